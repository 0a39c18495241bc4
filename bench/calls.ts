/**
 * `pnpm bench calls`: on SQLite and PostgreSQL,
 *
 * 1. the latency our `POST /chat/calls/connect` adds over the emulator's own answer: BENCH_CALLS
 *    customers (each with a permission, granted through the sandbox) are called one after the
 *    other through our route, and as many other permitted customers are called straight on the
 *    emulator's `POST /{phone_number_id}/calls`; the difference of the p50 and p99 latencies is
 *    what our route adds (its permission check, SDP parsing and checks, the call row written
 *    before and after the operator's answer). Goal: p99 under 5 ms.
 * 2. operator call webhooks processed per second: BENCH_WEBHOOKS signed `calls` webhooks
 *    (user-initiated connects, each a new call) POSTed over BENCH_CONNECTIONS connections,
 *    timed from the first POST until every call row exists. Goal: at least 2,000 per second.
 *
 * One server process (`main.ts serve`, its emulator in-process on a known port); client and
 * server share the machine. Environment: BENCH_STORES (sqlite,postgres), BENCH_CALLS (200),
 * BENCH_WEBHOOKS (5000), BENCH_CONNECTIONS (32), BENCH_VERBOSE.
 */
import Sqlite from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import http from "node:http"
import pg from "pg"
import { DIALECTS, probePostgres } from "@switchboard/testing"
import { freePort, root, startTs, stop, waitForHttp } from "./_util.js"

const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 5_000)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const APP_SECRET = "bench-calls-app-secret"

/** A browser-style audio offer (as `OFFER` of the domain, which the bench cannot import). */
const OFFER = [
  "v=0",
  "o=- 4611731400430051336 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "a=group:BUNDLE 0",
  "m=audio 9 UDP/TLS/RTP/SAVPF 111 9 0 8",
  "c=IN IP4 0.0.0.0",
  "a=candidate:1 1 udp 2122260223 192.0.2.10 54400 typ host generation 0",
  "a=ice-ufrag:8hhY",
  "a=ice-pwd:asd88fgpdd777uzjYhagZg",
  "a=fingerprint:sha-256 D1:2C:BE:AD:C4:F6:64:5C:25:16:11:9C:AF:E7:0F:73:79:36:4E:9C:1E:15:54:39:0C:06:8B:ED:96:86:00:39",
  "a=setup:actpass",
  "a=mid:0",
  "a=sendrecv",
  "a=rtcp-mux",
  "a=rtpmap:111 opus/48000/2",
  "a=rtpmap:9 G722/8000",
  "a=rtpmap:0 PCMU/8000",
  "a=rtpmap:8 PCMA/8000",
  ""
].join("\r\n")

const percentile = (values: Array<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}
const ms = (n: number) => `${n.toFixed(2)} ms`

const query = async (dialect: string, url: string, sql: string): Promise<Array<Record<string, unknown>>> => {
  if (dialect === "postgres") {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      return (await c.query(sql)).rows
    } finally {
      await c.end()
    }
  }
  const db = new Sqlite(url, { readonly: true })
  try {
    return db.prepare(sql).all() as Array<Record<string, unknown>>
  } finally {
    db.close()
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
const post = (url: string, body: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end(body)
  })

for (const dialect of DIALECTS.filter((d) => STORES.includes(d.id))) {
  // outside vitest nobody has probed PostgreSQL yet (`available` comes from the test run's global setup)
  if (dialect.id === "postgres" ? !(await probePostgres()).ok : !dialect.available) {
    console.log(`${dialect.name}: not available, skipped`)
    continue
  }
  const database = await dialect.createDatabase()
  const emulatorPort = await freePort()
  const port = await freePort()
  const env = {
    DATABASE_URL: database.url,
    LOG_LEVEL: "WARN",
    PORT: String(port),
    HOST: "127.0.0.1",
    SWITCHBOARD_EMULATOR_PORT: String(emulatorPort),
    SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
    SWITCHBOARD_EMULATOR_MPS: "1000",
    OPERATOR_VERIFY_TOKEN: "bench"
  }
  const cli = (...args: Array<string>) =>
    execFileSync(process.execPath, ["--conditions=@switchboard/source", "--import", "tsx", "apps/server/src/main.ts", ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: "utf8"
    })
  const created = JSON.parse(cli("stores", "create", "--name", "bench calls")) as { id: string; test_key: string }
  const server = startTs("apps/server/src/main.ts", ["serve"], env)
  server.stderr?.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
  const base = `http://127.0.0.1:${port}`
  const emulator = `http://127.0.0.1:${emulatorPort}`
  try {
    await waitForHttp(`${base}/healthz`, 60_000)
    const auth = { authorization: `Bearer ${created.test_key}`, "content-type": "application/json" }
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: "POST", headers: auth, body: JSON.stringify(body) })
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
      return res.json() as Promise<any>
    }
    const permit = async (phone: string) => {
      await api("/chat/sandbox/inbound-messages", { from: phone, text: "hi" })
      await api("/chat/calls/permissions", { phone })
      await api("/chat/sandbox/call-permission-replies", { phone, response: "accept" })
    }
    const phoneOf = (i: number) => `+1555${String(7_000_000 + i)}`
    // permissions for 2 x CALLS customers: the first half is called through us, the second straight on the emulator
    for (let i = 0; i < 2 * CALLS; i++) await permit(phoneOf(i))
    const [row] = await query(
      dialect.id,
      database.url,
      `select sandbox_phone_number_id as pnid, sandbox_waba_id as waba, sandbox_display_phone as display from stores where id = '${created.id}'`
    )
    const pnid = String(row.pnid)
    const offer = { type: "offer", sdp: OFFER }
    // keep the calls from ending or being answered while we measure
    await fetch(`${emulator}/_emulator/calls/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ring_ms: 60_000 })
    })

    const ours: Array<number> = []
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now()
      const status = await post(`${base}/chat/calls/connect`, JSON.stringify({ phone: phoneOf(i), sdp: offer }), auth)
      ours.push(performance.now() - t)
      if (status !== 201) throw new Error(`connect answered ${status}`)
    }
    const theirs: Array<number> = []
    for (let i = CALLS; i < 2 * CALLS; i++) {
      const body = JSON.stringify({
        messaging_product: "whatsapp",
        to: phoneOf(i).slice(1),
        action: "connect",
        session: { sdp_type: "offer", sdp: OFFER }
      })
      const t = performance.now()
      const status = await post(`${emulator}/v23.0/${pnid}/calls`, body, { authorization: "Bearer bench" })
      theirs.push(performance.now() - t)
      if (status !== 200) throw new Error(`the emulator's connect answered ${status}`)
    }

    // call webhooks: user-initiated connects, each a new call
    const before = Number((await query(dialect.id, database.url, "select count(*) as n from calls"))[0].n)
    const bodies = Array.from({ length: WEBHOOKS }, (_, i) => {
      const now = Math.floor(Date.now() / 1000)
      return JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: String(row.waba),
            time: now,
            changes: [
              {
                field: "calls",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: String(row.display), phone_number_id: pnid },
                  contacts: [{ profile: { name: "Bench" }, wa_id: `1556${String(1_000_000 + i)}` }],
                  calls: [
                    {
                      id: `wacid.bench${randomBytes(8).toString("hex")}`,
                      from: `1556${String(1_000_000 + i)}`,
                      to: String(row.display),
                      event: "connect",
                      timestamp: String(now),
                      direction: "USER_INITIATED",
                      session: { sdp_type: "offer", sdp: OFFER }
                    }
                  ]
                }
              }
            ]
          }
        ]
      })
    })
    const started = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]
          const signature = `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`
          const status = await post(`${base}/chat/operator/webhook`, body, { "x-hub-signature-256": signature })
          if (status >= 300) throw new Error(`the webhook answered ${status}`)
        }
      })
    )
    const acknowledged = performance.now()
    for (;;) {
      const n = Number((await query(dialect.id, database.url, "select count(*) as n from calls"))[0].n)
      if (n - before >= WEBHOOKS) break
      if (performance.now() - started > 10 * 60_000) throw new Error(`only ${n - before} of ${WEBHOOKS} calls after 10 minutes`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const done = performance.now()
    console.log(
      JSON.stringify(
        {
          store: dialect.id,
          connect: {
            calls: CALLS,
            ours: { p50: ms(percentile(ours, 50)), p99: ms(percentile(ours, 99)) },
            emulator: { p50: ms(percentile(theirs, 50)), p99: ms(percentile(theirs, 99)) },
            added: { p50: ms(percentile(ours, 50) - percentile(theirs, 50)), p99: ms(percentile(ours, 99) - percentile(theirs, 99)) },
            goal: "added p99 < 5 ms"
          },
          call_webhooks: {
            webhooks: WEBHOOKS,
            acknowledged_per_second: Math.round(WEBHOOKS / ((acknowledged - started) / 1000)),
            processed_per_second: Math.round(WEBHOOKS / ((done - started) / 1000)),
            goal: "processed >= 2000/s"
          }
        },
        null,
        2
      )
    )
  } finally {
    await stop(server)
    await database.drop()
  }
}
agent.destroy()
