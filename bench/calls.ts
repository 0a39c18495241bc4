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
 * 2. operator call webhooks processed per second: BENCH_WEBHOOK_ROUNDS rounds (3) of
 *    BENCH_WEBHOOKS signed `calls` webhooks POSTed over BENCH_CONNECTIONS connections, timed
 *    from the first POST until every one is applied: a user-initiated connect for each of
 *    BENCH_WEBHOOKS / 2 new calls (timed until every call row exists), then the terminate of
 *    each (until every one has ended). Min, median and max over the rounds of the rate and of
 *    the server's CPU time per webhook (from /proc, which depends less on what else the
 *    machine runs). Goal: at least 3,000 per second on SQLite, 2,000 on PostgreSQL, at most
 *    250 µs of server CPU per webhook.
 *
 * One server process (`main.ts serve`, its emulator in-process on a known port); client and
 * server share the machine. Environment: BENCH_STORES (sqlite,postgres), BENCH_CALLS (200),
 * BENCH_CONNECT_ROUNDS (3), BENCH_WEBHOOKS (5000), BENCH_WEBHOOK_ROUNDS (3), BENCH_CONNECTIONS (32), BENCH_VERBOSE,
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
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 3)
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
    { storeName: "bench calls", nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS"), timeoutMs: 240_000 }
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
    /** min, median and max over the rounds (as milliseconds unless `format` says otherwise) */
    const spread = (values: ReadonlyArray<number>, format: (n: number) => string | number = ms) => ({
      min: format(Math.min(...values)),
      median: format(percentile(values, 50)),
      max: format(Math.max(...values))
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

    // call webhooks: rounds of user-initiated connects (each a new call), then the terminate of each
    const count = async (where: string) => Number((await query(dialect.id, database.url, `select count(*) as n from calls${where}`))[0].n)
    const callWebhook = (i: number, call: Record<string, unknown>) => {
      const now = Math.floor(Date.now() / 1000)
      const waId = `1556${String(1_000_000 + i)}`
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
                  contacts: [{ profile: { name: "Bench" }, wa_id: waId }],
                  calls: [{ from: waId, to: row.display, timestamp: String(now), direction: "USER_INITIATED", ...call }]
                }
              }
            ]
          }
        ]
      })
    }
    /** POSTs `bodies` and waits until `count(where)` grew by as many; the rate and the server's CPU per webhook. */
    const timed = async (bodies: ReadonlyArray<string>, where: string) => {
      const before = await count(where)
      const cpuBefore = cpuMs(server.child.pid)
      const started = performance.now()
      await sendAll(bodies, CONNECTIONS, async (body) => {
        const signature = `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`
        const status = await post(`${base}/chat/operator/webhook`, body, { "x-hub-signature-256": signature })
        if (status >= 300) throw new Error(`the webhook answered ${status}`)
      })
      const acknowledged = performance.now()
      await untilGrown(() => count(where), before, bodies.length, "calls", started, 50)
      const done = performance.now()
      return {
        acknowledged: bodies.length / ((acknowledged - started) / 1000),
        processed: bodies.length / ((done - started) / 1000),
        cpu: (cpuMs(server.child.pid) - cpuBefore) / bodies.length
      }
    }
    const half = Math.floor(WEBHOOKS / 2)
    const rounds: Array<{ connect: Awaited<ReturnType<typeof timed>>; terminate: Awaited<ReturnType<typeof timed>> }> = []
    for (let round = 0; round < ROUNDS; round++) {
      const ids = Array.from({ length: half }, () => `wacid.bench${randomBytes(8).toString("hex")}`)
      const connect = await timed(
        ids.map((id, i) => callWebhook(i, { id, event: "connect", session: { sdp_type: "offer", sdp: OFFER } })),
        ""
      )
      const terminate = await timed(
        ids.map((id, i) => callWebhook(i, { id, event: "terminate", status: "COMPLETED", duration: 0 })),
        " where status = 'ended'"
      )
      rounds.push({ connect, terminate })
    }
    const phase = (of: (r: (typeof rounds)[number]) => Awaited<ReturnType<typeof timed>>) => ({
      acknowledged_per_second: spread(
        rounds.map((r) => of(r).acknowledged),
        Math.round
      ),
      processed_per_second: spread(
        rounds.map((r) => of(r).processed),
        Math.round
      ),
      server_cpu_per_webhook: spread(
        rounds.map((r) => of(r).cpu),
        (n) => `${Math.round(n * 1000)} µs`
      )
    })
    console.log(
      JSON.stringify(
        {
          store: dialect.id,
          connect: connectReport,
          call_webhooks: {
            rounds: ROUNDS,
            webhooks_per_phase: half,
            connect: phase((r) => r.connect),
            terminate: phase((r) => r.terminate),
            goal: "processed >= 3000/s (SQLite), >= 2000/s (PostgreSQL); <= 250 µs server CPU per webhook"
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
