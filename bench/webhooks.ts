/**
 * `pnpm bench webhooks`: how many inbound operator status webhooks per second the server
 * ingests (verifies, stores in the inbox with its job, acknowledges) and processes end to
 * end (every inbox job done, every message at its final status), on SQLite and PostgreSQL.
 *
 * Per store: a fresh database (a temporary SQLite file; a new PostgreSQL database on
 * SWITCHBOARD_TEST_POSTGRES_URL's server), a store created with the CLI, and BENCH_MESSAGES
 * outbound message rows inserted directly with SQL in status `accepted` with their own
 * wamids (sending thousands through `POST /chat/messages` would first need as many
 * customers writing in, and would be paced by the emulator's rate limit, and the emulator's
 * own statuses would mix with ours). Then one server process (`main.ts serve`, HTTP and the
 * worker, the in-process emulator not involved) and BENCH_STATUSES statuses signed as the
 * operator signs them (HMAC-SHA256 of the body with the app secret): sent, delivered and read
 * for every message plus duplicates, shuffled (so some arrive out of order), batched as the
 * operator does: most POSTs carry one status, some 4 or 10. BENCH_CONNECTIONS keep-alive
 * connections POST them as fast as the server acknowledges.
 *
 * Reported: POSTs and statuses acknowledged per second (ingest), and POSTs and statuses per
 * second from the first POST until every message row is `read` and no job is left (end to
 * end), and the server process's CPU time per status over that span (a figure the machine's
 * load barely moves, unlike the rates). Client and server share the machine.
 *
 * Environment: BENCH_STORES (sqlite,postgres), BENCH_MESSAGES (5000), BENCH_STATUSES
 * (20000), BENCH_CONNECTIONS (32), BENCH_VERBOSE (server logs to stderr), BENCH_SERVER_NODE_ARGS (e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_SPLIT (the intake and the processing apart; the worker, a
 * process of its own, then names an emulator process of its own, and BENCH_WORKER_NODE_ARGS gives it node flags).
 */
import type { ChildProcess } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgresAdminUrl, probePostgres } from "@switchboard/testing"
import { type MessageRow, postgresDb, sqliteDb } from "./_webhooks-db.js"
import { cpuMs, freePort, nodeFlags, startEmulatorProcess, startServerProcess, stop, switchboard, waitForHttp } from "./_util.js"

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5_000)
const STATUSES = Math.max(Number(process.env.BENCH_STATUSES ?? 20_000), MESSAGES * 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
/** The intake and the processing in two processes: the server without its worker, then `switchboard worker` alone. */
const SPLIT = (process.env.BENCH_SPLIT ?? "0") !== "0"
const APP_SECRET = "bench-webhooks-app-secret"
const DEADLINE_MS = 15 * 60_000

// ---------------------------------------------------------------------------
// the workload

/** A small deterministic PRNG (mulberry32), so every run sends the same mix. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Post {
  readonly body: Buffer
  readonly signature: string
  readonly statuses: number
}

const workload = (store: { waba: string; phone: string; display: string }, messages: ReadonlyArray<MessageRow>, total = STATUSES): Array<Post> => {
  const random = prng(20_26)
  const base = Math.floor(Date.now() / 1000)
  type Status = { readonly message: MessageRow; readonly status: "sent" | "delivered" | "read"; readonly at: number }
  const statuses: Array<Status> = []
  for (const message of messages) {
    statuses.push({ message, status: "sent", at: base }, { message, status: "delivered", at: base + 1 }, { message, status: "read", at: base + 2 })
  }
  // the operator delivers at least once: duplicates
  while (statuses.length < total) statuses.push({ ...statuses[Math.floor(random() * statuses.length)] })
  // ... and in no particular order
  for (let i = statuses.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[statuses[i], statuses[j]] = [statuses[j], statuses[i]]
  }
  const posts: Array<Post> = []
  for (let i = 0; i < statuses.length; ) {
    const r = random()
    const size = r < 0.7 ? 1 : r < 0.9 ? 4 : 10
    const batch = statuses.slice(i, i + size)
    i += batch.length
    const body = Buffer.from(
      JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: store.waba,
            time: base,
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: store.display, phone_number_id: store.phone },
                  statuses: batch.map((s) => ({
                    id: s.message.wamid,
                    status: s.status,
                    timestamp: String(s.at),
                    recipient_id: s.message.to.slice(1),
                    biz_opaque_callback_data: s.message.id,
                    pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "service" }
                  }))
                }
              }
            ]
          }
        ]
      }),
      "utf8"
    )
    posts.push({ body, signature: `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`, statuses: batch.length })
  }
  return posts
}

// ---------------------------------------------------------------------------
// the load

interface LoadResult {
  readonly byStatus: Record<number, number>
  readonly latencies: Float64Array
  readonly ms: number
}

/** POSTs every body once over `connections` keep-alive connections, as fast as answered. */
const fire = async (url: string, posts: ReadonlyArray<Post>, connections: number): Promise<LoadResult> => {
  const target = new URL(url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const byStatus: Record<number, number> = {}
  const latencies = new Float64Array(posts.length)
  let next = 0
  const post = (p: Post) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": p.body.length, "x-hub-signature-256": p.signature }
        },
        (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
          res.on("error", reject)
        }
      )
      req.on("error", reject)
      req.end(p.body)
    })
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let i = next++; i < posts.length; i = next++) {
        const t = performance.now()
        const status = await post(posts[i])
        latencies[i] = performance.now() - t
        byStatus[status] = (byStatus[status] ?? 0) + 1
      }
    })
  )
  const ms = performance.now() - started
  agent.destroy()
  return { byStatus, latencies, ms }
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------

interface Figures {
  readonly store: string
  readonly posts: number
  readonly statuses: number
  readonly ingestMs: number
  readonly p50: number
  readonly p99: number
  readonly backlogAtAck: number
  readonly endToEndMs: number
  /** CPU time of the server process (user + system) from the first POST to the end. */
  readonly serverCpuMs: number
  /** With BENCH_SPLIT: the server's CPU time over the ingest alone (no worker in it), and the worker's over the processing. */
  readonly intakeCpuMs?: number
  readonly workerCpuMs?: number
}

const runOne = async (kind: "sqlite" | "postgres"): Promise<Figures> => {
  const dir = mkdtempSync(join(tmpdir(), "sb-bench-webhooks-"))
  const db = kind === "sqlite" ? sqliteDb(dir) : await postgresDb()
  let server: ChildProcess | undefined
  let workerChild: ChildProcess | undefined
  // split, the worker is a process of its own, which names the installation's one emulator (SWITCHBOARD_EMULATOR_URL)
  const emulator = SPLIT ? await startEmulatorProcess(APP_SECRET) : undefined
  try {
    const env = {
      DATABASE_URL: db.url,
      LOG_LEVEL: "WARN",
      SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
      ...(emulator === undefined ? { SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json") } : { SWITCHBOARD_EMULATOR_URL: emulator.url })
    }
    switchboard(env, "stores", "create", "--name", "bench")
    const store = await db.store()
    const messages: Array<MessageRow> = Array.from({ length: MESSAGES }, (_, i) => ({
      id: `msg_bench${String(i).padStart(8, "0")}${randomBytes(6).toString("hex")}`,
      storeId: store.id,
      to: `+1555${String(2_000_000 + i).padStart(7, "0")}`,
      wamid: `wamid.bench${randomBytes(12).toString("base64url")}`
    }))
    await db.insertMessages(messages)
    const posts = workload(store, messages)
    const statuses = posts.reduce((n, p) => n + p.statuses, 0)

    const port = await freePort()
    server = startServerProcess(
      ["serve"],
      { ...env, PORT: String(port), HOST: "127.0.0.1", ...(SPLIT ? { SWITCHBOARD_WORKER: "false" } : {}) },
      nodeFlags("BENCH_SERVER_NODE_ARGS")
    )
    server.stderr?.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
    const base = `http://127.0.0.1:${port}`
    await waitForHttp(`${base}/readyz`)

    const settled = async () =>
      (await db.count("select count(*) as n from jobs where status in ('queued', 'running')")) === 0 &&
      (await db.count("select count(*) as n from inbox where processed_at is null")) === 0
    /** `switchboard worker` (BENCH_SPLIT); a worker that exits fails the run with the end of what it printed. */
    const startWorker = (flags: ReadonlyArray<string> = []) => {
      const child = startServerProcess(["worker"], env, flags)
      let said = ""
      const keep = (d: Buffer) => {
        said = (said + d.toString()).slice(-2000)
        if (process.env.BENCH_VERBOSE) process.stderr.write(d)
      }
      child.stdout?.on("data", keep)
      child.stderr?.on("data", keep)
      const alive = () => {
        if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}): ${said}`)
      }
      return { child, alive }
    }
    const waitSettled = async (alive = () => {}) => {
      const deadline = Date.now() + DEADLINE_MS
      while (!(await settled())) {
        alive()
        if (Date.now() > deadline) throw new Error("the queue did not drain")
        await sleep(25)
      }
    }

    // warm-up: statuses of a wamid no message has, through the same path
    const warm = workload(store, [{ id: "msg_warmup", storeId: store.id, to: "+15550000000", wamid: "wamid.warmup" }], 1)
    await fire(
      `${base}/chat/operator/webhook`,
      Array.from({ length: 500 }, () => warm[0]),
      CONNECTIONS
    )
    // split: the worker that processed the warm-up is paused (SIGSTOP) over the ingest, then
    // continued, so its CPU over the processing counts neither its start nor the warm-up
    const worker = SPLIT ? startWorker(nodeFlags("BENCH_WORKER_NODE_ARGS")) : undefined
    await waitSettled(worker?.alive)
    workerChild = worker?.child
    if (worker !== undefined) process.kill(worker.child.pid!, "SIGSTOP")
    const inboxBefore = await db.count("select count(*) as n from inbox")

    const cpuBefore = cpuMs(server.pid)
    process.stderr.write(`${kind}: ${posts.length} POSTs carrying ${statuses} statuses of ${MESSAGES} messages, ${CONNECTIONS} connections\n`)
    const load = await fire(`${base}/chat/operator/webhook`, posts, CONNECTIONS)
    const unprocessedAtAck = await db.count("select count(*) as n from inbox where processed_at is null")
    if (load.byStatus[200] !== posts.length) throw new Error(`not every POST was acknowledged with 200: ${JSON.stringify(load.byStatus)}`)
    const inboxAfter = await db.count("select count(*) as n from inbox")
    if (inboxAfter - inboxBefore !== posts.length) throw new Error(`inbox grew by ${inboxAfter - inboxBefore}, expected ${posts.length}`)

    const intakeCpuMs = cpuMs(server.pid) - cpuBefore
    const workerCpuBefore = worker === undefined ? 0 : cpuMs(worker.child.pid)
    if (worker !== undefined) process.kill(worker.child.pid!, "SIGCONT")
    const deadline = Date.now() + DEADLINE_MS
    const started = performance.now() - load.ms
    for (;;) {
      const read = await db.count("select count(*) as n from messages where store_id = ? and status = 'read'", store.id)
      if (read === MESSAGES && (await settled())) break
      worker?.alive()
      if (Date.now() > deadline) throw new Error(`end to end not reached: ${read} of ${MESSAGES} messages read`)
      await sleep(25)
    }
    const endToEndMs = performance.now() - started
    const workerCpuMs = worker === undefined ? undefined : cpuMs(worker.child.pid) - workerCpuBefore
    const serverCpuMs = cpuMs(server.pid) - cpuBefore + (workerCpuMs ?? 0)
    const sorted = Float64Array.from(load.latencies).sort()
    return {
      store: kind === "sqlite" ? "SQLite" : "PostgreSQL",
      posts: posts.length,
      statuses,
      ingestMs: load.ms,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      backlogAtAck: unprocessedAtAck,
      endToEndMs,
      serverCpuMs,
      ...(SPLIT ? { intakeCpuMs, workerCpuMs } : {})
    }
  } finally {
    if (server) await stop(server)
    if (workerChild !== undefined && workerChild.exitCode === null) {
      workerChild.kill("SIGCONT")
      await stop(workerChild)
    }
    if (emulator) await stop(emulator.child)
    await db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results: Array<Figures> = []
for (const kind of STORES) {
  if (kind !== "sqlite" && kind !== "postgres") throw new Error(`unknown store ${kind}`)
  if (kind === "postgres" && !(await probePostgres()).ok) {
    console.error(`PostgreSQL at ${postgresAdminUrl} is not reachable: skipped`)
    continue
  }
  for (let round = 0; round < ROUNDS; round++) results.push(await runOne(kind))
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toLocaleString("en-US")
const header = [
  "store",
  "POSTs",
  "statuses",
  "ingest POST/s",
  "ingest status/s",
  "POST p50/p99 ms",
  "inbox backlog at ack",
  "end-to-end s",
  "e2e POST/s",
  "e2e status/s",
  "server CPU µs/status",
  ...(SPLIT ? ["intake CPU µs/status", "worker CPU µs/status"] : [])
]
const rows = results.map((r) => [
  r.store,
  r.posts.toLocaleString("en-US"),
  r.statuses.toLocaleString("en-US"),
  rate(r.posts, r.ingestMs),
  rate(r.statuses, r.ingestMs),
  `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)}`,
  r.backlogAtAck.toLocaleString("en-US"),
  (r.endToEndMs / 1000).toFixed(1),
  rate(r.posts, r.endToEndMs),
  rate(r.statuses, r.endToEndMs),
  Math.round((r.serverCpuMs * 1000) / r.statuses).toLocaleString("en-US"),
  ...(SPLIT
    ? [
        Math.round((r.intakeCpuMs! * 1000) / r.statuses).toLocaleString("en-US"),
        Math.round((r.workerCpuMs! * 1000) / r.statuses).toLocaleString("en-US")
      ]
    : [])
])
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
console.log(`\nInbound status webhooks, ${CONNECTIONS} connections, one server process (HTTP + worker)`)
console.log(line(header))
for (const row of rows) console.log(line(row))
console.log("ingest: signed POSTs verified, stored with their job and acknowledged; end to end: from the first POST until every")
console.log("message row is `read` and no job is queued or running. Server CPU: the server process's user + system time over that")
console.log("span per status (the machine's load barely changes it; PostgreSQL's own processes are not counted).")
if (SPLIT)
  console.log(
    "BENCH_SPLIT: the server ran without its worker (intake CPU over the ingest); `switchboard worker`, started before and paused over\nthe ingest, then processed the inbox alone (its CPU from then on: not its start, nor the warm-up)."
  )
/** min / median / max of a figure over the rounds of each store. */
const spread = (pick: (r: Figures) => number, digits = 0) =>
  [...new Set(results.map((r) => r.store))].map((store) => {
    const xs = results
      .filter((r) => r.store === store)
      .map(pick)
      .sort((a, b) => a - b)
    const f = (x: number) => x.toLocaleString("en-US", { maximumFractionDigits: digits })
    return `${store} ${f(xs[0])} / ${f(xs[Math.floor(xs.length / 2)])} / ${f(xs[xs.length - 1])}`
  })
console.log(`\nmin / median / max over ${ROUNDS} round(s):`)
console.log(`  end to end statuses/s: ${spread((r) => (r.statuses * 1000) / r.endToEndMs).join("; ")}`)
console.log(`  server CPU µs/status:  ${spread((r) => (r.serverCpuMs * 1000) / r.statuses).join("; ")}`)
console.log(`  ingest POST/s:         ${spread((r) => (r.posts * 1000) / r.ingestMs).join("; ")}`)

// ---------------------------------------------------------------------------
// the anchor (bench/_webhooks-anchor.ts): node:http + the HMAC check + one prepared SQLite
// INSERT per POST, in its own plain node process, with this client, POSTs and connections.
{
  const { printAnchor } = await import("./_webhooks-anchor.js")
  const messages = Array.from({ length: MESSAGES }, (_, i) => ({
    id: `msg_a${i}`,
    storeId: "str_a",
    to: `+1555${2_000_000 + i}`,
    wamid: `wamid.a${i}`
  }))
  const posts = workload({ waba: "anchor-waba", phone: "anchor-phone", display: "+15550000000" }, messages)
  const ingest = results.map((r) => ({ store: r.store, perSecond: (r.posts * 1000) / r.ingestMs }))
  await printAnchor({ posts, fire, connections: CONNECTIONS, appSecret: APP_SECRET, ingest })
}
