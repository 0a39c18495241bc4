/**
 * `pnpm bench calls`: on SQLite and PostgreSQL,
 *
 * 1. the latency our `POST /chat/calls/connect` adds over the emulator's own answer: BENCH_CALLS
 *    customers (each with a permission, granted through the sandbox) are called one after the
 *    other through our route, and as many other permitted customers are called straight on the
 *    emulator's `POST /{phone_number_id}/calls`; the difference of the p50 and p99 latencies is
 *    what our route adds (its permission check, SDP parsing and checks, the call row written
 *    before and after the operator's answer), and the server's CPU per connect (our calls
 *    include the in-process emulator's work), BENCH_CONNECT_ROUNDS rounds (3), min, median and
 *    max over them. Goal: p99 under 5 ms.
 * 2. operator call webhooks processed per second: BENCH_WEBHOOKS signed `calls` webhooks
 *    (user-initiated connects, each a new call) POSTed over BENCH_CONNECTIONS connections,
 *    timed from the first POST until every call row exists. Goal: at least 2,000 per second.
 *
 * One server process (`main.ts serve`, its emulator in-process on a known port); client and
 * server share the machine. Environment: BENCH_STORES (sqlite,postgres), BENCH_CALLS (200),
 * BENCH_CONNECT_ROUNDS (3), BENCH_WEBHOOKS (5000), BENCH_CONNECTIONS (32), BENCH_VERBOSE,
 * BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof" to profile the server).
 */
import { createHmac, randomBytes } from "node:crypto"
import http from "node:http"
// the root package does not depend on the domain; its example offer is read from source
import { EXAMPLE_OFFER as OFFER } from "../packages/domain/src/calls/Sdp.js"
import {
  cpuMs,
  freePort,
  ms,
  nodeFlags,
  runnableDialects,
  percentile,
  query,
  sandboxOf,
  sendAll,
  startSwitchboard,
  stop,
  untilGrown
} from "./_util.js"

const CALLS = Number(process.env.BENCH_CALLS ?? 200)
const CONNECT_ROUNDS = Math.max(1, Number(process.env.BENCH_CONNECT_ROUNDS ?? 3))
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 5_000)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const APP_SECRET = "bench-calls-app-secret"

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

for (const dialect of await runnableDialects(STORES)) {
  const database = await dialect.createDatabase()
  const emulatorPort = await freePort()
  const server = await startSwitchboard(
    database.url,
    { SWITCHBOARD_EMULATOR_PORT: String(emulatorPort), SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET, SWITCHBOARD_EMULATOR_MPS: "1000" },
    { storeName: "bench calls", nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS"), timeoutMs: 180_000 }
  )
  const { base } = server
  const emulator = `http://127.0.0.1:${emulatorPort}`
  const auth = { authorization: `Bearer ${server.created.test_key}`, "content-type": "application/json" }
  try {
    const api = async (path: string, body: unknown) => {
      const res = await server.request("POST", path, body)
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.json)}`)
      return res.json
    }
    const permit = async (phone: string) => {
      await api("/chat/sandbox/inbound-messages", { from: phone, text: "hi" })
      await api("/chat/calls/permissions", { phone })
      await api("/chat/sandbox/call-permission-replies", { phone, response: "accept" })
    }
    const phoneOf = (i: number) => `+1555${String(7_000_000 + i)}`
    // permissions for 2 x CALLS customers per round: the first half is called through us, the second straight on the emulator
    const customers = 2 * CALLS * CONNECT_ROUNDS
    await sendAll(
      Array.from({ length: customers }, (_, i) => i),
      8,
      (i) => permit(phoneOf(i))
    )
    const row = await sandboxOf(dialect.id, database.url, server.created.id)
    const pnid = row.pnid
    const offer = { type: "offer", sdp: OFFER }
    // keep the calls from ending or being answered while we measure
    await fetch(`${emulator}/_emulator/calls/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ring_ms: 600_000 })
    })

    const connectRounds: Array<{ ours: Array<number>; theirs: Array<number>; cpu: number }> = []
    for (let round = 0; round < CONNECT_ROUNDS; round++) {
      const first = 2 * CALLS * round
      const ours: Array<number> = []
      const cpuBefore = cpuMs(server.child.pid)
      for (let i = first; i < first + CALLS; i++) {
        const t = performance.now()
        const status = await post(`${base}/chat/calls/connect`, JSON.stringify({ phone: phoneOf(i), sdp: offer }), auth)
        ours.push(performance.now() - t)
        if (status !== 201) throw new Error(`connect answered ${status}`)
      }
      const cpu = (cpuMs(server.child.pid) - cpuBefore) / CALLS
      const theirs: Array<number> = []
      for (let i = first + CALLS; i < first + 2 * CALLS; i++) {
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
      connectRounds.push({ ours, theirs, cpu })
    }
    const spread = (values: ReadonlyArray<number>) => ({
      min: ms(Math.min(...values)),
      median: ms(percentile(values, 50)),
      max: ms(Math.max(...values))
    })
    const connectReport = {
      calls_per_round: CALLS,
      rounds: connectRounds.map(({ ours, theirs, cpu }) => ({
        ours: { p50: ms(percentile(ours, 50)), p99: ms(percentile(ours, 99)) },
        emulator: { p50: ms(percentile(theirs, 50)), p99: ms(percentile(theirs, 99)) },
        added: { p50: ms(percentile(ours, 50) - percentile(theirs, 50)), p99: ms(percentile(ours, 99) - percentile(theirs, 99)) },
        server_cpu_per_connect: ms(cpu)
      })),
      added_p99: spread(connectRounds.map((r) => percentile(r.ours, 99) - percentile(r.theirs, 99))),
      server_cpu_per_connect: spread(connectRounds.map((r) => r.cpu)),
      goal: "added p99 < 5 ms"
    }

    // call webhooks: user-initiated connects, each a new call
    const calls = async () => Number((await query(dialect.id, database.url, "select count(*) as n from calls"))[0].n)
    const before = await calls()
    const bodies = Array.from({ length: WEBHOOKS }, (_, i) => {
      const now = Math.floor(Date.now() / 1000)
      return JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: row.waba,
            time: now,
            changes: [
              {
                field: "calls",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: row.display, phone_number_id: pnid },
                  contacts: [{ profile: { name: "Bench" }, wa_id: `1556${String(1_000_000 + i)}` }],
                  calls: [
                    {
                      id: `wacid.bench${randomBytes(8).toString("hex")}`,
                      from: `1556${String(1_000_000 + i)}`,
                      to: row.display,
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
    await sendAll(bodies, CONNECTIONS, async (body) => {
      const signature = `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`
      const status = await post(`${base}/chat/operator/webhook`, body, { "x-hub-signature-256": signature })
      if (status >= 300) throw new Error(`the webhook answered ${status}`)
    })
    const acknowledged = performance.now()
    await untilGrown(calls, before, WEBHOOKS, "calls", started, 50)
    const done = performance.now()
    console.log(
      JSON.stringify(
        {
          store: dialect.id,
          connect: connectReport,
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
    await stop(server.child)
    await database.drop()
  }
}
agent.destroy()
