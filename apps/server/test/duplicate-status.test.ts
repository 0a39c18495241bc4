/**
 * The same status webhook delivered 1,000 times, concurrently, changes state once; a forged
 * or altered one is refused and stores nothing.
 *
 * The real server runs as a child process (`main.ts serve`) on a temporary SQLite file with
 * the in-process emulator, whose app secret the test sets (SWITCHBOARD_EMULATOR_APP_SECRET)
 * so that it can sign sandbox webhooks itself. A customer writes through the sandbox route,
 * a text is sent to them (a number ending in 0001: the emulator reports sent and delivered,
 * never read), and once the emulator's own statuses have arrived the test POSTs 1,000
 * copies of one signed `read` status for that message at once. A caller webhook endpoint
 * registered for `message.status` must receive exactly one `read` event, verified with the
 * `standardwebhooks` library.
 */
import Sqlite from "better-sqlite3"
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Dialect, DIALECTS, eventually, freePort, cliArgs, root, signOperatorPayload, sleep, type TestDatabase } from "@switchboard/testing"
import { numbered, sqliteCount } from "./fixtures/sql.js"

const APP_SECRET = "duplicate-status-app-secret"
const CUSTOMER = "+15551230001" // ends in 0001: sent and delivered, never read
const COPIES = 1000

/** Read-only access to the server's database, whichever it is. */
interface Db {
  readonly url: string
  readonly count: (sql: string, ...params: ReadonlyArray<unknown>) => Promise<number>
  readonly store: () => Promise<{ waba: string; phone: string; display: string }>
  readonly close: () => Promise<void>
}

const STORE_SQL = "select sandbox_waba_id as waba, sandbox_phone_number_id as phone, sandbox_display_phone as display from stores"

const sqliteDb = (database: TestDatabase): Db => {
  let db: Sqlite.Database | undefined
  // opened on first use: the CLI creates the file
  const open = () => (db ??= new Sqlite(database.url, { readonly: true, fileMustExist: true }))
  return {
    url: database.url,
    count: async (sql, ...params) => sqliteCount(open(), sql, params),
    store: async () => open().prepare(STORE_SQL).get() as { waba: string; phone: string; display: string },
    close: async () => {
      db?.close()
      await database.drop()
    }
  }
}

const postgresDb = (database: TestDatabase): Db => {
  const pool = new pg.Pool({ connectionString: database.url, max: 2 })
  return {
    url: database.url,
    count: async (sql, ...params) => Number((await pool.query(numbered(sql), params as Array<unknown>)).rows[0].n),
    store: async () => (await pool.query(STORE_SQL)).rows[0],
    close: async () => {
      await pool.end()
      await database.drop()
    }
  }
}

/** A fresh database of `dialect`, dropped on close. */
const openDb = async (dialect: Dialect): Promise<Db> => {
  const database = await dialect.createDatabase()
  return dialect.id === "postgres" ? postgresDb(database) : sqliteDb(database)
}

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * The scenario on one database. On PostgreSQL a second process (`main.ts worker`) runs jobs
 * next to the server's own worker, so the 1,000 inbox entries are processed concurrently by
 * two processes of eight jobs each.
 */
const scenario = (dialect: Dialect, options: { readonly extraWorker: boolean }) =>
  describe.skipIf(!dialect.available)(
    `duplicate operator status webhooks (${dialect.name}${options.extraWorker ? ", two worker processes" : ""})`,
    () => {
      let dir = ""
      const children: Array<ChildProcess> = []
      let stderr = ""
      let base = ""
      let receiver: Server
      const received: Array<Received> = []
      let db: Db
      let testKey = ""

      const request = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${testKey}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body)
        })
        const text = await res.text()
        return { status: res.status, text, json: text ? JSON.parse(text) : undefined }
      }

      const postWebhook = (body: Buffer, signature: string | undefined) =>
        fetch(`${base}/chat/operator/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(signature !== undefined ? { "x-hub-signature-256": signature } : {}) },
          body
        })
          .then(async (res) => ({ status: res.status, text: await res.text() }))
          .catch((error) => {
            throw new Error(`the webhook POST got no answer: ${String(error?.cause ?? error)}`)
          })

      const inboxRows = () => db.count("select count(*) as n from inbox")
      /** No job queued or running, and every inbox entry processed. */
      const settled = async () =>
        (await db.count("select count(*) as n from jobs where status in ('queued', 'running')")) === 0 &&
        (await db.count("select count(*) as n from inbox where processed_at is null")) === 0

      /** A `messages` webhook (GRAPH_API.md §2.4, A.6) with one status, as the exact bytes to sign. */
      const statusWebhook = async (wamid: string, status: string) => {
        const store = await db.store()
        const now = Math.floor(Date.now() / 1000)
        return Buffer.from(
          JSON.stringify({
            object: "whatsapp_business_account",
            entry: [
              {
                id: store.waba,
                time: now,
                changes: [
                  {
                    field: "messages",
                    value: {
                      messaging_product: "whatsapp",
                      metadata: { display_phone_number: store.display, phone_number_id: store.phone },
                      statuses: [
                        {
                          id: wamid,
                          status,
                          timestamp: String(now),
                          recipient_id: CUSTOMER.slice(1),
                          pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "service" }
                        }
                      ]
                    }
                  }
                ]
              }
            ]
          }),
          "utf8"
        )
      }

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "sb-dup-status-"))
        db = await openDb(dialect)
        const port = await freePort()
        const emulatorPort = await freePort()
        const env = {
          ...process.env,
          DATABASE_URL: db.url,
          PORT: String(port),
          HOST: "127.0.0.1",
          LOG_LEVEL: "WARN",
          SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
          SWITCHBOARD_EMULATOR_PORT: String(emulatorPort),
          SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json"),
          SWITCHBOARD_ALLOW_PRIVATE_URLS: "true"
        }
        const created = JSON.parse(execFileSync(process.execPath, cliArgs("stores", "create", "--name", "Dup"), { cwd: root, env, encoding: "utf8" }))
        testKey = created.test_key
        expect(testKey).toMatch(/^sk_test_/)

        const start = (command: string, extra: Record<string, string> = {}) => {
          const child = spawn(process.execPath, cliArgs(command), {
            cwd: root,
            env: { ...env, ...extra },
            stdio: ["ignore", "ignore", "pipe"]
          })
          child.stderr!.on("data", (d) => (stderr += String(d)))
          children.push(child)
          return child
        }
        const server = start("serve")
        // a worker process of its own, using the server's emulator as its sandbox operator
        if (options.extraWorker) start("worker", { SWITCHBOARD_EMULATOR_URL: `http://127.0.0.1:${emulatorPort}` })
        base = `http://127.0.0.1:${port}`
        await eventually(
          async () => {
            for (const child of children) if (child.exitCode !== null) throw new Error(`a process exited: ${stderr}`)
            return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200 && server.exitCode === null
          },
          "the server",
          75_000
        ) // a start from the TypeScript sources on a busy machine can pass 30 s

        receiver = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (c: Buffer) => chunks.push(c))
          req.on("end", () => {
            received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
            res.writeHead(200).end()
          })
        })
        await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()))
      }, 90_000)

      afterAll(async () => {
        receiver?.close()
        await Promise.all(
          children.map(async (child) => {
            if (child.exitCode !== null || child.signalCode !== null) return
            const exited = new Promise((r) => child.once("exit", r))
            child.kill("SIGTERM")
            await Promise.race([exited, sleep(5000)])
            if (child.exitCode === null) child.kill("SIGKILL")
          })
        )
        await db?.close()
        if (dir) rmSync(dir, { recursive: true, force: true })
      })

      it("1,000 concurrent copies of one status change the message once, and the caller hears of it once", { timeout: 180_000 }, async () => {
        const address = receiver.address()
        const hookUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`
        const endpoint = await request("POST", "/chat/webhooks", { url: hookUrl, events: ["message.status"] })
        expect(endpoint.status, endpoint.text).toBe(201)
        const webhook = new Webhook(endpoint.json.secret)

        // the customer writes (opens the 24-hour window), then we send them a text
        expect((await request("POST", "/chat/sandbox/inbound-messages", { from: CUSTOMER, text: "hello" })).status).toBe(202)
        await eventually(async () => (await request("GET", "/chat/customers")).json?.data?.length === 1, "the customer")
        const sent = await request("POST", "/chat/messages", { to: CUSTOMER, type: "text", text: { body: "Your order shipped" } })
        expect(sent.status, sent.text).toBe(201)
        const messageId: string = sent.json.id
        const wamid: string = sent.json.operator_message_id
        expect(wamid).toMatch(/^wamid\./)

        /** The `message.status` events received for our message, each verified. */
        const events = () =>
          received
            .map((r) => {
              const payload = webhook.verify(r.body, {
                "webhook-id": String(r.headers["webhook-id"]),
                "webhook-timestamp": String(r.headers["webhook-timestamp"]),
                "webhook-signature": String(r.headers["webhook-signature"])
              }) as { type: string; data: { message_id: string; status: string } }
              return { id: String(r.headers["webhook-id"]), ...payload }
            })
            .filter((e) => e.type === "message.status" && e.data.message_id === messageId)
        const statuses = () => events().map((e) => e.data.status)

        // the emulator's own statuses (sent, delivered) arrive and settle first
        await eventually(async () => (await request("GET", `/chat/messages/${messageId}`)).json.status === "delivered", "delivered")
        await eventually(async () => statuses().includes("delivered") && (await settled()), "the emulator's statuses to settle")
        await sleep(1500) // a 0001 number is never read: nothing more may come from the emulator
        expect(await settled()).toBe(true)
        expect(statuses().sort()).toEqual(["delivered", "sent"])
        expect((await request("GET", `/chat/messages/${messageId}`)).json.status).toBe("delivered")

        // a status the message has not had yet, delivered 1,000 times at once
        const body = await statusWebhook(wamid, "read")
        const signature = signOperatorPayload(body, APP_SECRET)
        const before = await inboxRows()
        const answers = await Promise.all(Array.from({ length: COPIES }, () => postWebhook(body, signature)))
        const byStatus: Record<number, number> = {}
        for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
        expect(byStatus).toEqual({ 200: COPIES })
        // each delivery was stored before it was acknowledged
        expect(await inboxRows()).toBe(before + COPIES)

        await eventually(() => settled(), "the queue to drain", 120_000)
        await sleep(500) // a second event, were there one, would be queued by now
        await eventually(() => settled(), "the queue to drain")

        expect((await request("GET", `/chat/messages/${messageId}`)).json.status).toBe("read")
        expect(events().filter((e) => e.data.status === "read")).toHaveLength(1)
        expect(statuses().sort()).toEqual(["delivered", "read", "sent"])
        // each event delivered once (distinct webhook ids)
        expect(new Set(events().map((e) => e.id)).size).toBe(3)
        expect(await db.count("select count(*) as n from inbox where processed_at is not null and body = ?", body.toString("utf8"))).toBe(COPIES)
        expect(stderr).not.toMatch(/"logLevel":"(ERROR|FATAL)"/)
        for (const child of children) expect(child.exitCode).toBeNull()
      })

      it("a forged signature or a replay with one changed byte answers 401 and stores nothing", { timeout: 60_000 }, async () => {
        const body = await statusWebhook("wamid.forged", "delivered")
        const signature = signOperatorPayload(body, APP_SECRET)
        await eventually(() => settled(), "a quiet queue")
        const before = await inboxRows()

        // forged: signed with another key, or a well-formed header over other bytes, or none
        const forged = await postWebhook(body, signOperatorPayload(body, `${APP_SECRET}-not`))
        expect(forged.status).toBe(401)
        expect(JSON.parse(forged.text).error.code).toBe("unauthorized")
        expect((await postWebhook(body, signOperatorPayload(Buffer.from("{}"), APP_SECRET))).status).toBe(401)
        expect((await postWebhook(body, undefined)).status).toBe(401)
        expect((await postWebhook(body, "sha256=")).status).toBe(401)

        // a replay of the signed body with one byte changed (a digit of the status timestamp)
        const altered = Buffer.from(body)
        const at = altered.indexOf(Buffer.from(`"timestamp":"`)) + 15
        altered[at] = altered[at] === 0x39 ? 0x30 : altered[at] + 1
        expect(altered.equals(body)).toBe(false)
        expect(altered.length).toBe(body.length)
        expect(JSON.parse(altered.toString("utf8"))).toBeTruthy()
        expect((await postWebhook(altered, signature)).status).toBe(401)
        // and with one byte more
        expect((await postWebhook(Buffer.concat([body, Buffer.from(" ")]), signature)).status).toBe(401)

        await sleep(300)
        expect(await inboxRows()).toBe(before)

        // the untouched body with its signature is accepted: the refusals were about the bytes
        expect((await postWebhook(body, signature)).status).toBe(200)
        expect(await inboxRows()).toBe(before + 1)
      })
    }
  )

// where several processes may share the database, a second worker process joins the server's
for (const dialect of DIALECTS) scenario(dialect, { extraWorker: dialect.multiProcess })
