/**
 * A SIGTERM while a campaign sends and a request is in flight (README, "Logs"), on SQLite
 * and PostgreSQL: the request is answered, the log says "draining" then "stopped", and the
 * campaign, once the server is started again on the same database, completes with every
 * recipient sent once (the emulator runs in its own process, `switchboard emulator`, and
 * counts the sends across both servers: `duplicateRecipients`).
 *
 * The request in flight is a POST whose body arrives in two parts, the second after the
 * signal: without the drain the server would close its connection (or be gone) before it
 * could answer.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cliArgs, DIALECTS, eventually, freePort, root, sleep, type TestDatabase } from "@switchboard/testing"
import { afterAll, describe, expect, it } from "vitest"
import { sqlOn } from "./harness.js"
import { approvedTemplate } from "./steps.js"

const SECRET = "shutdown-emulator-secret"
const PHONES = Array.from({ length: 12 }, (_, i) => `+1555703${String(i).padStart(4, "0")}`)

interface Started {
  readonly child: ChildProcess
  readonly out: { stdout: string; stderr: string }
  readonly exited: Promise<number | null>
}

const children: Array<ChildProcess> = []

const start = (args: ReadonlyArray<string>, env: Record<string, string>): Started => {
  const child = spawn(process.execPath, cliArgs(...args), { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  const out = { stdout: "", stderr: "" }
  child.stdout?.on("data", (d) => (out.stdout += String(d)))
  child.stderr?.on("data", (d) => (out.stderr += String(d)))
  children.push(child)
  return { child, out, exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))) }
}

/** A POST whose body is sent in two parts: `sendRest` writes the second; `answer` is the response. */
const slowPost = (port: number, path: string, key: string, body: string) => {
  const bytes = Buffer.from(body)
  const half = Math.floor(bytes.length / 2)
  let sendRest = () => {}
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(bytes.length) }
      },
      (res) => {
        let text = ""
        res.on("data", (c) => (text += String(c)))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      }
    )
    req.on("error", reject)
    req.write(bytes.subarray(0, half))
    sendRest = () => req.end(bytes.subarray(half))
  })
  return { answer, sendRest: () => sendRest() }
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`SIGTERM drains (${dialect.name})`, () => {
    let database: TestDatabase | undefined
    let dir: string | undefined
    afterAll(async () => {
      await database?.drop()
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    })

    it("answers the request in flight, logs draining and stopped, and the campaign resumes after a restart with no duplicate", async () => {
      dir = mkdtempSync(join(tmpdir(), "sb-shutdown-"))
      database = await dialect.createDatabase()
      const [port, emulatorPort] = [await freePort(), await freePort()]
      const env: Record<string, string> = {
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "INFO",
        LOG_FORMAT: "json",
        SWITCHBOARD_EMULATOR_APP_SECRET: SECRET,
        SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json"),
        SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "300",
        OPERATOR_VERIFY_TOKEN: "verify",
        SWITCHBOARD_CAMPAIGN_LEASE_MS: "3000",
        SWITCHBOARD_SHUTDOWN_GRACE: "10s"
      }
      const emulator = start(["emulator"], { ...env, SWITCHBOARD_EMULATOR_PORT: String(emulatorPort) })
      await eventually(() => emulator.out.stdout.includes("{"), "the emulator's URL on stdout", 60_000)
      env.SWITCHBOARD_EMULATOR_URL = `http://127.0.0.1:${emulatorPort}`
      const base = `http://127.0.0.1:${port}`
      const serve = async (extra: Record<string, string>) => {
        const server = start(["serve"], { ...env, ...extra })
        await eventually(
          async () => {
            if (server.child.exitCode !== null) throw new Error(`server exited: ${server.out.stderr}`)
            return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200
          },
          "server ready",
          90_000
        )
        return server
      }
      const call = async (method: string, path: string, key: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        const text = await res.text()
        return { status: res.status, text, json: text.length > 0 ? JSON.parse(text) : undefined }
      }

      // two sends a second: the campaign of 12 is still sending when the signal comes
      const first = await serve({ SWITCHBOARD_CAMPAIGN_MPS: "2" })
      const keys = JSON.parse(
        execFileSync(process.execPath, cliArgs("stores", "create", "--name", "Drained"), {
          cwd: root,
          env: { ...process.env, ...env },
          encoding: "utf8"
        })
      )
      const key: string = keys.test_key
      await approvedTemplate(call, key, "drained", { timeoutMs: 30_000 })
      const campaign = (
        await call("POST", "/chat/campaigns", key, { name: "Drained", template: { name: "drained", language: "en_US", parameters: ["x"] } })
      ).json
      expect((await call("POST", `/chat/campaigns/${campaign.id}/recipients`, key, { phones: PHONES })).status).toBe(201)
      expect((await call("POST", `/chat/campaigns/${campaign.id}/launch`, key)).status).toBe(200)
      await eventually(async () => (await call("GET", `/chat/campaigns/${campaign.id}`, key)).json.sent >= 2, "a few sent", 30_000)

      // a request in flight (half its body sent), then the signal, then the rest of the body
      const inFlight = slowPost(
        port,
        "/chat/campaigns",
        key,
        JSON.stringify({ name: "Sent during the drain", template: { name: "drained", language: "en_US" } })
      )
      await sleep(300)
      first.child.kill("SIGTERM")
      await sleep(500)
      inFlight.sendRest()
      const answered = await inFlight.answer
      expect(answered.status, answered.text).toBe(201)
      await first.exited
      const messages = first.out.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l).message as string)
      const draining = messages.indexOf("draining")
      const stopped = messages.indexOf("stopped")
      expect(draining).toBeGreaterThanOrEqual(0)
      expect(stopped).toBeGreaterThan(draining)
      // the in-flight request's access line was written before "stopped"
      expect(messages.indexOf("POST /chat/campaigns 201")).toBeLessThan(stopped)
      // the lane was handed back on the way out, runnable at once (not left to its lease)
      expect(first.out.stderr).toContain("campaign lane handed back on shutdown")
      const lanes = await sqlOn(dialect, database.url, "SELECT status, locked_by FROM jobs WHERE kind = 'campaign.lane'")
      expect(lanes).toEqual([{ status: "queued", locked_by: null }])

      const interrupted = (await (async () => {
        const second = await serve({ SWITCHBOARD_CAMPAIGN_MPS: "50" })
        const before = (await call("GET", `/chat/campaigns/${campaign.id}`, key)).json
        let last: unknown
        const done = await eventually(
          async () => {
            const c = (await call("GET", `/chat/campaigns/${campaign.id}`, key)).json
            last = c
            return c.status === "completed" && c.pending === 0 ? c : undefined
          },
          "campaign completed after the restart",
          60_000
        ).catch(async (e) => {
          const jobs = await sqlOn(dialect, database!.url, "SELECT kind, status, run_at, attempt, last_error FROM jobs WHERE kind LIKE 'campaign%'")
          const open = await sqlOn(
            dialect,
            database!.url,
            "SELECT seq, status, lane_attempt, sending_at, updated_at FROM campaign_recipients WHERE status IN ('pending', 'sending')"
          )
          throw new Error(
            `${e.message}: the campaign read ${JSON.stringify(last)}; its jobs ${JSON.stringify(jobs)}; its open recipients ${JSON.stringify(open)}`
          )
        })
        const recipients = (await call("GET", `/chat/campaigns/${campaign.id}/recipients?limit=100`, key)).json.data
        second.child.kill("SIGTERM")
        await second.exited
        return { before, done, failures: recipients.filter((r: any) => r.status === "failed") }
      })()) as { before: any; done: any; failures: Array<unknown> }
      expect(interrupted.before.sent).toBeLessThan(PHONES.length)
      // every recipient reached a final state
      expect(interrupted.done).toMatchObject({ status: "completed", pending: 0 })
      expect(interrupted.done.sent + interrupted.done.failed).toBe(PHONES.length)
      // the sandbox fails some numbers by their ending (131026, 131050, 131000 by status webhook,
      // after accepting the send): every failure is one of those, none is an interruption
      for (const failure of interrupted.failures as Array<any>) expect([131026, 131050, 131000]).toContain(failure.failure.code)

      // the one store's number is the only one the emulator saw
      const stats = await (await fetch(`${env.SWITCHBOARD_EMULATOR_URL}/_emulator/stats`)).json()
      expect(stats).toMatchObject({ sends: PHONES.length, duplicateRecipients: 0 })
      emulator.child.kill("SIGTERM")
    }, 240_000)
  })
