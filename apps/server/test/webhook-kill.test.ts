/**
 * A server killed (SIGKILL) while operator webhooks pour in loses none it acknowledged: every
 * POST answered 200 has its inbox entry, stored once, and a processing job that names it.
 *
 * The real server (`main.ts serve`, its worker off so every entry stays to be counted) on a
 * fresh database; 16 connections POST distinct signed bodies as fast as answered, and the
 * server is killed once 150 are acknowledged, in the middle of the group commits.
 */
import Sqlite from "better-sqlite3"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { cliArgs, DIALECTS, eventually, freePort, root, signOperatorPayload } from "@switchboard/testing"

const APP_SECRET = "webhook-kill-app-secret"

const rowsOf = async (url: string, postgres: boolean) => {
  const inboxSql = "select id, body from inbox"
  const jobsSql = "select payload from jobs where kind = 'inbox.process'"
  if (postgres) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return { inbox: (await client.query(inboxSql)).rows, jobs: (await client.query(jobsSql)).rows }
    } finally {
      await client.end()
    }
  }
  const db = new Sqlite(url, { readonly: true })
  try {
    return { inbox: db.prepare(inboxSql).all() as Array<{ id: string; body: string }>, jobs: db.prepare(jobsSql).all() as Array<{ payload: string }> }
  } finally {
    db.close()
  }
}

for (const dialect of DIALECTS) {
  describe.skipIf(!dialect.available)(`a server killed under operator webhooks (${dialect.name})`, () => {
    it("loses none it acknowledged: each acknowledged body stored once, named by a processing job", { timeout: 180_000 }, async () => {
      const dir = mkdtempSync(join(tmpdir(), "sb-webhook-kill-"))
      const database = await dialect.createDatabase()
      const port = await freePort()
      const env = {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "WARN",
        SWITCHBOARD_WORKER: "false",
        SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
        SWITCHBOARD_EMULATOR_PORT: String(await freePort()),
        SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json")
      }
      execFileSync(process.execPath, cliArgs("stores", "create", "--name", "Kill"), { cwd: root, env, encoding: "utf8" })
      const server = spawn(process.execPath, cliArgs("serve"), { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] })
      let stderr = ""
      server.stderr!.on("data", (d) => (stderr += String(d)))
      try {
        await eventually(
          async () => {
            if (server.exitCode !== null) throw new Error(`the server exited: ${stderr}`)
            return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200
          },
          "the server",
          75_000
        )
        const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
        const acknowledged: Array<string> = []
        let killed = false
        const post = (body: string) =>
          new Promise<number | undefined>((resolve) => {
            const req = http.request(
              {
                host: "127.0.0.1",
                port,
                path: "/chat/operator/webhook",
                method: "POST",
                agent,
                headers: {
                  "content-type": "application/json",
                  "content-length": Buffer.byteLength(body),
                  "x-hub-signature-256": signOperatorPayload(body, APP_SECRET)
                }
              },
              (res) => {
                res.resume()
                res.on("end", () => resolve(res.statusCode))
                res.on("error", () => resolve(undefined))
              }
            )
            req.on("error", () => resolve(undefined))
            req.end(body)
          })
        let next = 0
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (!killed && next < 5_000) {
              const body = JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "kill-test", n: next++ }] })
              const status = await post(body)
              if (status === 200) acknowledged.push(body)
              if (acknowledged.length >= 150 && !killed) {
                killed = true
                server.kill("SIGKILL")
              }
              if (status === undefined) return
            }
          })
        )
        agent.destroy()
        await eventually(async () => server.exitCode !== null || server.signalCode !== null, "the server to die")
        expect(killed).toBe(true)

        const { inbox, jobs } = await rowsOf(database.url, dialect.id === "postgres")
        const stored = new Map<string, Array<string>>()
        for (const row of inbox) stored.set(row.body, [...(stored.get(row.body) ?? []), row.id])
        for (const body of acknowledged) expect(stored.get(body), body).toHaveLength(1)
        const named = jobs.flatMap((job: { payload: unknown }) => {
          const payload = (typeof job.payload === "string" ? JSON.parse(job.payload) : job.payload) as { inboxIds: Array<string> }
          return payload.inboxIds
        })
        // every entry stored (acknowledged or not) is named by exactly one job
        expect([...named].sort()).toEqual(inbox.map((row: { id: string }) => row.id).sort())
      } finally {
        if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL")
        await database.drop()
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}
