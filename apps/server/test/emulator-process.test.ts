/**
 * Several processes share one emulator (issue 11, item 12): `switchboard emulator` is the
 * sandbox's one home; a server and two workers on PostgreSQL name it with
 * SWITCHBOARD_EMULATOR_URL and run a campaign through it. Before, each process started an
 * emulator of its own on one state file: the workers' emulators lacked the server's template,
 * the campaign paused, and a later sync deleted the template. A worker without the URL now
 * refuses to start, in one line that says what to do.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPostgresDatabase, eventually, freePort, cliArgs, POSTGRES, root, type TestDatabase } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const SECRET = "shared-emulator-secret"

describe.skipIf(!POSTGRES.available)("one emulator for a server and two workers on PostgreSQL", () => {
  const children: Array<ChildProcess> = []
  let dir: string
  let database: TestDatabase
  let env: Record<string, string>
  let emulatorUrl: string
  let base: string
  let keys: { live_key: string; test_key: string }

  /** Starts `main.ts <args>`; answers the child and what it printed so far. */
  const start = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, cliArgs(...args), {
      cwd: root,
      env: { ...process.env, ...env, ...extra },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const out = { stdout: "", stderr: "" }
    child.stdout?.on("data", (d) => (out.stdout += String(d)))
    child.stderr?.on("data", (d) => (out.stderr += String(d)))
    children.push(child)
    return { child, out }
  }
  const request = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await res.text()
    return { status: res.status, json: text.length > 0 ? JSON.parse(text) : undefined }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-emulator-"))
    database = await createPostgresDatabase()
    const [serverPort, emulatorPort] = [await freePort(), await freePort()]
    env = {
      DATABASE_URL: database.url,
      PORT: String(serverPort),
      HOST: "127.0.0.1",
      LOG_LEVEL: "WARN",
      LOG_FORMAT: "json",
      SWITCHBOARD_EMULATOR_APP_SECRET: SECRET,
      SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json"),
      SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "300",
      OPERATOR_VERIFY_TOKEN: "verify"
    }
    // the emulator's own process, its webhooks going to the server
    const emulator = start(["emulator"], { SWITCHBOARD_EMULATOR_PORT: String(emulatorPort) })
    const announced = await eventually(() => emulator.out.stdout.split("\n").find((l) => l.startsWith("{")), "the emulator's URL on stdout", 30_000)
    expect(JSON.parse(announced)).toEqual({
      url: `http://127.0.0.1:${emulatorPort}`,
      webhook_url: `http://127.0.0.1:${serverPort}/chat/operator/webhook`,
      state_file: env.SWITCHBOARD_EMULATOR_STATE
    })
    emulatorUrl = `http://127.0.0.1:${emulatorPort}`
    env.SWITCHBOARD_EMULATOR_URL = emulatorUrl

    // the server sends nothing itself: the workers do (SWITCHBOARD_WORKER=false)
    const server = start(["serve"], { SWITCHBOARD_WORKER: "false" })
    base = `http://127.0.0.1:${serverPort}`
    await eventually(
      async () => {
        if (server.child.exitCode !== null) throw new Error(`server exited: ${server.out.stderr}`)
        return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200
      },
      "server ready",
      60_000
    )
    for (let i = 0; i < 2; i++) start(["worker"])
    keys = JSON.parse(
      execFileSync(process.execPath, cliArgs("stores", "create", "--name", "Shared"), {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: "utf8"
      })
    )
  }, 120_000)

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve()
            child.once("exit", () => resolve())
            child.kill("SIGTERM")
            setTimeout(() => child.kill("SIGKILL"), 5000).unref()
          })
      )
    )
    await database?.drop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("a campaign created on the server is sent by the workers through the one emulator, and the template survives a sync", async () => {
    const template = {
      templateData: {
        name: "shared_update",
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hi {{1}}, your order is on its way.", example: { body_text: [["Ana"]] } }]
      }
    }
    expect((await request("POST", "/chat/templates", keys.live_key, template)).status).toBe(201)
    // the review's webhook reaches the server, a worker applies it
    await eventually(
      async () => {
        const list = await request("GET", "/chat/templates", keys.live_key)
        return list.json.data.some((t: any) => t.name === "shared_update" && t.status === "APPROVED")
      },
      "template approved by webhook",
      20_000
    )

    const campaign = await request("POST", "/chat/campaigns", keys.test_key, {
      name: "Shared",
      template: { name: "shared_update", language: "en_US", parameters: ["friend"] }
    })
    expect(campaign.status).toBe(201)
    const phones = Array.from({ length: 40 }, (_, i) => `+1555888${String(1000 + i * 10 + 5).padStart(4, "0")}`)
    expect((await request("POST", `/chat/campaigns/${campaign.json.id}/recipients`, keys.test_key, { phones })).status).toBe(201)
    expect((await request("POST", `/chat/campaigns/${campaign.json.id}/launch`, keys.test_key)).status).toBe(200)
    const done = await eventually(
      async () => {
        const c = await request("GET", `/chat/campaigns/${campaign.json.id}`, keys.test_key)
        expect(c.json.status).not.toBe("paused")
        return c.json.status === "completed" && c.json.delivered === 40 ? c.json : undefined
      },
      "campaign completed and delivered",
      60_000
    )
    expect(done).toMatchObject({ sent: 40, delivered: 40, failed: 0 })

    // every send went to the one emulator, once
    const [row] = await (async () => {
      const { Client } = await import("pg")
      const c = new Client({ connectionString: database.url })
      await c.connect()
      try {
        return (await c.query("SELECT sandbox_phone_number_id AS p FROM stores")).rows
      } finally {
        await c.end()
      }
    })()
    const stats = await (await fetch(`${emulatorUrl}/_emulator/stats?phone_number_id=${row.p}`)).json()
    expect(stats).toMatchObject({ sends: 40, duplicateRecipients: 0 })

    // a later sync finds the template where the server created it
    const sync = await request("POST", "/chat/templates/sync", keys.live_key)
    expect(sync.status).toBe(200)
    expect(sync.json.data.map((t: any) => [t.name, t.status])).toEqual([["shared_update", "APPROVED"]])
  }, 120_000)

  it("a worker without SWITCHBOARD_EMULATOR_URL refuses to start, in one line that says what to do", async () => {
    const { SWITCHBOARD_EMULATOR_URL: _, ...withoutUrl } = env
    let failure: { status: number | null; stderr: string } | undefined
    try {
      execFileSync(process.execPath, cliArgs("worker"), {
        cwd: root,
        env: { ...withoutUrl, PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        encoding: "utf8",
        timeout: 60_000,
        stdio: ["ignore", "pipe", "pipe"]
      })
    } catch (error) {
      const e = error as { status: number | null; stderr: string }
      failure = { status: e.status, stderr: e.stderr }
    }
    expect(failure?.status).toBe(1)
    expect(failure?.stderr).toContain("SWITCHBOARD_EMULATOR_URL")
    expect(failure?.stderr).toContain("switchboard emulator")
  }, 90_000)
})
