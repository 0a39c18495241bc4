/**
 * `pnpm bench campaign`: campaign throughput, pacing, worker cost and ingestion, on SQLite
 * and on PostgreSQL. Every piece is its own process: the operator emulator (its CLI), the
 * server (`switchboard serve` without its worker: the HTTP routes) and the campaign worker
 * (the lane runner, `apps/server/test/fixtures/campaign-lane.ts`), so the worker's CPU
 * and memory are its own.
 *
 * 1. Sending: a campaign of BENCH_RECIPIENTS (default 100,000) against the emulator limited
 *    to R = BENCH_RATE (default 1000) messages per second per number, the worker paced at
 *    R. Reports the achieved rate as a share of R (first to last accepted send), the most
 *    sends the emulator accepted in any sliding one-second window (it refuses the excess
 *    with 429, so that figure is <= R by construction: the 429 count is the one to watch),
 *    the worker's CPU time per message (user + system of the whole process, all threads,
 *    from launch to completion, over the messages sent), and its RSS at 10% of the sends,
 *    at the end and at its peak (flat memory as the campaign grows). The emulator's status
 *    webhooks go to a sink that discards them: this measures the lane (claim, send,
 *    record); webhook ingestion has `pnpm bench http`.
 *    The worker sends through `OperatorClient`, the shipped adapter of the `MessageOperator` port.
 *    BENCH_SEND_ROUNDS (3) rounds, each on a fresh emulator, database and server, and each
 *    followed by its anchor: the client's bare send (`sendPaced`, as the lane sends, paced at
 *    R, 32 in flight) of as many messages against the same emulator in a process of its own
 *    (`apps/server/test/fixtures/sendloop.ts`), with its CPU per message and the worker's over
 *    it. Goal: at most 1.25× the bare send.
 * 2. Ingestion and launch: a fresh database, BENCH_INGEST (default 1,000,000) recipients
 *    posted through `POST /chat/campaigns/{id}/recipients` in requests of 10,000 (two in
 *    flight), BENCH_INGEST_ROUNDS (default 3) times, each into a new campaign: recipients per
 *    second and the server's CPU per recipient (and on PostgreSQL its backends' CPU, from
 *    /proc), each round followed by the anchor: the same rows inserted by the bare driver
 *    (`_ingest-anchor.ts`; on PostgreSQL by `unnest`, by COPY, and by COPY into a temporary
 *    table then INSERT … ON CONFLICT) into another new campaign. Then three of the first
 *    campaign's recipients opt out, and the time `POST .../launch` takes to answer.
 *
 * Environment: BENCH_RECIPIENTS (0 skips the sending), BENCH_RATE, BENCH_SEND_ROUNDS, BENCH_INGEST (0 skips it),
 * BENCH_INGEST_ROUNDS, BENCH_STORES
 * (sqlite,postgres), BENCH_VERBOSE=1 for the processes' logs,
 * BENCH_THREADS=1 for the worker's CPU per thread, BENCH_WORKER_NODE_ARGS,
 * BENCH_SERVER_NODE_ARGS and BENCH_EMULATOR_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import { createInterface } from "node:readline"
import { postgresAnchor, sqliteAnchor } from "./_ingest-anchor.js"
import { benchDatabase, nodeFlags, pipeLogs, query, root, startEmulatorProcess, startSwitchboard, startTs, stop } from "./_util.js"

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 100_000)
const RATE = Number(process.env.BENCH_RATE ?? 1000)
const INGEST = Number(process.env.BENCH_INGEST ?? 1_000_000)
const INGEST_ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 3)
const SEND_ROUNDS = Math.max(1, Number(process.env.BENCH_SEND_ROUNDS ?? 3))
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",")
const CHUNK = 10_000
const APP_SECRET = "bench-app-secret"

const log = (line: string) => process.stderr.write(`[bench campaign] ${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------------------
// processes

/** A sink for the emulator's webhooks: answers 200 and counts the statuses. */
const startSink = async () => {
  let statuses = 0
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      statuses += (body.match(/"status":/g) ?? []).length
      res.writeHead(200)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}/`, statuses: () => statuses, close: () => new Promise<void>((r) => server.close(() => r())) }
}

const startEmulator = (sinkUrl: string) =>
  startEmulatorProcess(
    APP_SECRET,
    [
      "--webhook-url",
      sinkUrl,
      "--mps",
      String(RATE),
      "--template-review-delay-ms",
      "100",
      // status webhooks in fewer, larger posts: the sink discards them; this keeps the emulator's CPU for the sends
      "--webhook-batch-ms",
      "250",
      "--webhook-batch-max",
      "2000",
      // the bench measures pacing, not the messaging limit: an unlimited tier
      "--default-messaging-limit=-1"
    ],
    nodeFlags("BENCH_EMULATOR_NODE_ARGS")
  )

interface Database {
  readonly url: string
  readonly drop: () => Promise<void>
}

/** `switchboard serve` without its worker, on `database`, with the emulator as the sandbox. */
const startServer = (database: Database, emulatorUrl: string) =>
  startSwitchboard(
    database.url,
    { SWITCHBOARD_WORKER: "false", SWITCHBOARD_EMULATOR_URL: emulatorUrl, SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET },
    { storeName: "bench", nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS") }
  )

type Server = Awaited<ReturnType<typeof startServer>>
type Emulator = Awaited<ReturnType<typeof startEmulator>>

/**
 * The shipped worker, `switchboard worker` (job runner and campaign lanes), started by the
 * CLI's launcher as a user starts it; answers the launcher and the worker's own process
 * (the launcher itself when it runs the built bundle, else its child: its CPU and memory
 * are the ones measured). Extra node flags
 * (BENCH_WORKER_NODE_ARGS) are given to the launcher, which passes them on.
 */
const startWorker = async (database: Database, emulatorUrl: string) => {
  const child = spawn(process.execPath, [...nodeFlags("BENCH_WORKER_NODE_ARGS"), "apps/server/bin/switchboard.mjs", "worker"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      SWITCHBOARD_EMULATOR_URL: emulatorUrl,
      SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
      SWITCHBOARD_CAMPAIGN_MPS: String(RATE),
      LOG_FORMAT: "logfmt",
      LOG_LEVEL: "INFO"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  pipeLogs("worker", child)
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on("line", (line) => line.includes("campaign lane runner started") && resolve())
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)))
  })
  // the launcher runs the built bundle in its own process, or the sources in one child
  const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter((c) => c !== "")
  if (children.length > 1) throw new Error(`the worker's launcher has ${children.length} children`)
  return { child, pid: children.length === 1 ? Number(children[0]) : child.pid! }
}

/** CPU seconds (user + system) and RSS of a process, from /proc. */
const usage = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(fields[11]) + Number(fields[12]) // utime, stime
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { cpuSeconds: ticks / 100, rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 }
}

/** CPU seconds of each thread of a process, from /proc. */
const threadTimes = (pid: number) => {
  const times = new Map<string, { readonly name: string; readonly seconds: number; readonly system: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
    const f = st.slice(st.lastIndexOf(")") + 2).split(" ")
    times.set(tid, {
      name: st.slice(st.indexOf("(") + 1, st.lastIndexOf(")")),
      seconds: (Number(f[11]) + Number(f[12])) / 100,
      system: Number(f[12]) / 100
    })
  }
  return times
}

// ---------------------------------------------------------------------------------------
// steps

const approvedTemplate = async (server: Server) => {
  const created = await server.request("POST", "/chat/templates", {
    templateData: {
      name: "bench_sale",
      category: "MARKETING",
      language: "en_US",
      components: [{ type: "BODY", text: "Hello {{1}}, the sale starts today.", example: { body_text: [["Ann"]] } }]
    }
  })
  if (created.status !== 201) throw new Error(`template: ${created.status} ${JSON.stringify(created.json)}`)
  for (let i = 0; i < 100; i++) {
    const synced = await server.request("POST", "/chat/templates/sync")
    if (synced.json?.data?.some((t: any) => t.name === "bench_sale" && t.status === "APPROVED")) return
    await sleep(100)
  }
  throw new Error("template not approved")
}

const phoneOf = (i: number) => `+1${String(2_000_000_000 + i)}`

/** Posts `n` recipients in requests of 10,000, two in flight; answers the rate (recipients per second). */
const ingest = async (server: Server, campaignId: string, n: number) => {
  const started = performance.now()
  let next = 0
  const lane = async () => {
    while (next < n) {
      const from = next
      next += CHUNK
      const phones = Array.from({ length: Math.min(CHUNK, n - from) }, (_, k) => phoneOf(from + k))
      const res = await server.request("POST", `/chat/campaigns/${campaignId}/recipients`, { phones })
      if (res.status !== 201 || res.json.added !== phones.length) throw new Error(`recipients: ${res.status} ${JSON.stringify(res.json)}`)
    }
  }
  await Promise.all([lane(), lane()])
  return n / ((performance.now() - started) / 1000)
}

const newCampaign = async (server: Server) => {
  const c = await server.request("POST", "/chat/campaigns", {
    name: "Bench",
    template: { name: "bench_sale", language: "en_US", parameters: ["friend"] }
  })
  if (c.status !== 201) throw new Error(`campaign: ${c.status} ${JSON.stringify(c.json)}`)
  return c.json.id as string
}

interface SendResult {
  readonly sends: number
  readonly seconds: number
  readonly share: number
  readonly maxWindow: number
  readonly rejected429: number
  readonly duplicates: number
  readonly cpuUsPerMessage: number
  /** The client's bare paced send in the same run (`bareSend`): its CPU per message, µs. */
  readonly bareUsPerMessage: number
  readonly rssAt10: number
  readonly rssAtEnd: number
  readonly peakRss: number
}

/**
 * The pieces a run needs (a sink for the emulator's webhooks, the emulator, a fresh database
 * of `store`, the server) and a campaign of the approved template there; `run` measures, the
 * pieces are stopped after it.
 */
const withCampaign = async <A>(
  store: "sqlite" | "postgres",
  run: (pieces: { readonly server: Server; readonly database: Database; readonly emulator: Emulator; readonly id: string }) => Promise<A>
): Promise<A> => {
  const sink = await startSink()
  const emulator = await startEmulator(sink.url)
  const database = await benchDatabase(store, "campaign")
  const server = await startServer(database, emulator.url)
  try {
    await approvedTemplate(server)
    return await run({ server, database, emulator, id: await newCampaign(server) })
  } finally {
    await stop(server.child)
    await stop(emulator.child)
    await sink.close()
    await database.drop()
  }
}

/**
 * The client's bare send, the anchor of the worker's CPU per message: the shipped operator
 * client's `sendPaced` (what the lane sends with) in a loop of its own, as many messages
 * paced at R, 32 in flight, against the same emulator (a number of its own), with nothing
 * claimed or recorded (`apps/server/test/fixtures/sendloop.ts`); its process's CPU per send
 * after 2,000 sends of warm-up.
 */
const bareSend = async (emulatorUrl: string): Promise<number> => {
  const child = startTs("apps/server/test/fixtures/sendloop.ts", [], {
    MODE: "paced",
    PACE: String(RATE),
    N: String(RECIPIENTS),
    EMULATOR_URL: emulatorUrl
  })
  let out = ""
  let err = ""
  child.stdout!.on("data", (chunk) => (out += chunk))
  child.stderr!.on("data", (chunk) => (err = (err + chunk).slice(-4000)))
  pipeLogs("bare send", child)
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
  const cpu = /CPU (\d+) µs\/send/.exec(out)
  if (code !== 0 || cpu === null) throw new Error(`the bare send exited with ${code}: ${out}${err}`)
  return Number(cpu[1])
}

const sending = (store: "sqlite" | "postgres"): Promise<SendResult> =>
  withCampaign(store, async ({ server, database, emulator, id }) => {
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined
    try {
      await ingest(server, id, RECIPIENTS)
      worker = await startWorker(database, emulator.url)
      await sleep(1000)
      const threadsBefore = threadTimes(worker.pid)
      const before = usage(worker.pid)
      const launched = await server.request("POST", `/chat/campaigns/${id}/launch`)
      if (launched.status !== 200) throw new Error(`launch: ${launched.status} ${JSON.stringify(launched.json)}`)
      log(`${store}: sending ${RECIPIENTS} at ${RATE}/s`)
      let rssAt10 = 0
      for (;;) {
        await sleep(500)
        const c = (await server.request("GET", `/chat/campaigns/${id}`)).json
        if (rssAt10 === 0 && c.total - c.pending >= RECIPIENTS / 10) rssAt10 = usage(worker.pid).rssMb
        if (c.status === "completed") break
        if (c.status !== "active") throw new Error(`campaign ${c.status}: ${c.paused_reason}`)
      }
      const after = usage(worker.pid)
      if (process.env.BENCH_THREADS === "1") {
        for (const [tid, t] of threadTimes(worker.pid)) {
          const cpu = t.seconds - (threadsBefore.get(tid)?.seconds ?? 0)
          const system = t.system - (threadsBefore.get(tid)?.system ?? 0)
          if (cpu >= 0.01) log(`thread ${tid} ${t.name}: ${cpu.toFixed(2)} s during the campaign (system ${system.toFixed(2)} s)`)
        }
      }
      const stats = await emulator.get("/stats")
      const seconds = (stats.lastSendAt - stats.firstSendAt) / 1000
      await stop(worker.child)
      worker = undefined
      const bareUsPerMessage = await bareSend(emulator.url)
      return {
        sends: stats.sends,
        seconds,
        share: stats.sends / seconds / RATE,
        maxWindow: stats.maxInAnyOneSecondWindow,
        rejected429: stats.rejected429,
        duplicates: stats.duplicateRecipients,
        cpuUsPerMessage: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / (stats.sends || RECIPIENTS),
        bareUsPerMessage,
        rssAt10,
        rssAtEnd: after.rssMb,
        peakRss: after.peakRssMb
      }
    } finally {
      if (worker) await stop(worker.child)
    }
  })

interface IngestResult {
  /** Recipients per second, wall, per round. */
  readonly rates: ReadonlyArray<number>
  /** The server's CPU (user + system) per recipient, µs, per round. */
  readonly cpuUs: ReadonlyArray<number>
  /** The bare driver's runs of the same rows, by way (`sqlite`, `unnest`, `copy`): rows per second and its CPU per row (µs). */
  readonly anchors: ReadonlyMap<string, { readonly rates: Array<number>; readonly cpuUs: Array<number>; readonly backendUs: Array<number> }>
  /** PostgreSQL's backends' CPU per recipient (µs), per round (0 on SQLite). */
  readonly backendUs: ReadonlyArray<number>
  readonly launchMs: number
  readonly skippedAtLaunch: number
}

/**
 * BENCH_INGEST_ROUNDS rounds on one server and database, each a new campaign: ingestion
 * through the route (the server's CPU per recipient from /proc), then the same rows by the
 * bare driver (`_ingest-anchor.ts`) into another new campaign, alternately. The first
 * campaign is then launched.
 */
/**
 * CPU seconds of the PostgreSQL backends serving `url`'s database (from /proc: the server
 * runs on this machine), by pid; a bench reads it before and after a step and adds up the
 * differences (`backendCpuSince`). Empty on SQLite.
 */
const backendCpu = async (store: string, url: string): Promise<Map<number, number>> => {
  const times = new Map<number, number>()
  if (store !== "postgres") return times
  const rows = await query(store, url, "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")
  for (const { pid } of rows) {
    try {
      times.set(Number(pid), usage(Number(pid)).cpuSeconds)
    } catch {
      // gone meanwhile
    }
  }
  return times
}
const backendCpuSince = async (store: string, url: string, before: Map<number, number>) => {
  let seconds = 0
  for (const [pid, now] of await backendCpu(store, url)) seconds += now - (before.get(pid) ?? 0)
  return seconds
}

const ingestion = (store: "sqlite" | "postgres"): Promise<IngestResult> =>
  withCampaign(store, async ({ server, database, id }) => {
    const rates: Array<number> = []
    const cpuUs: Array<number> = []
    const backendUs: Array<number> = []
    const anchors = new Map<string, { rates: Array<number>; cpuUs: Array<number>; backendUs: Array<number> }>()
    const pid = server.child.pid!
    for (let round = 0; round < INGEST_ROUNDS; round++) {
      const campaign = round === 0 ? id : await newCampaign(server)
      log(`${store}: round ${round + 1}, ingesting ${INGEST} recipients`)
      const cpu = usage(pid).cpuSeconds
      const backends = await backendCpu(store, database.url)
      rates.push(await ingest(server, campaign, INGEST))
      cpuUs.push(((usage(pid).cpuSeconds - cpu) * 1e6) / INGEST)
      backendUs.push(((await backendCpuSince(store, database.url, backends)) * 1e6) / INGEST)
      const [row] = await query(store, database.url, `select zone_id from campaign_recipients where campaign_id = '${campaign}' limit 1`)
      const zone = row?.zone_id === null || row?.zone_id === undefined ? null : Number(row.zone_id)
      for (const how of store === "sqlite" ? ["sqlite"] : ["unnest", "copy", "copy+insert"]) {
        const target = await newCampaign(server)
        const before = await backendCpu(store, database.url)
        const run =
          how === "sqlite"
            ? await sqliteAnchor(database.url, target, round, INGEST, phoneOf, zone)
            : await postgresAnchor(database.url, how as "unnest" | "copy" | "copy+insert", target, round, INGEST, phoneOf, zone)
        const entry = anchors.get(how) ?? { rates: [], cpuUs: [], backendUs: [] }
        entry.rates.push(INGEST / run.seconds)
        entry.cpuUs.push((run.cpuSeconds * 1e6) / INGEST)
        entry.backendUs.push(((run.backendCpuSeconds ?? (await backendCpuSince(store, database.url, before))) * 1e6) / INGEST)
        anchors.set(how, entry)
      }
    }
    // contacts who opted out since they were added: launch skips them with one statement driven by the opt-out list
    for (const i of [7, 70_007, 700_007]) if (i < INGEST) await server.request("POST", "/chat/opt-outs", { phone: phoneOf(i) })
    const started = performance.now()
    const launched = await server.request("POST", `/chat/campaigns/${id}/launch`)
    const launchMs = performance.now() - started
    if (launched.status !== 200) throw new Error(`launch: ${launched.status} ${JSON.stringify(launched.json)}`)
    return { rates, cpuUs, backendUs, anchors, launchMs, skippedAtLaunch: launched.json.skipped }
  })

const spread = (xs: ReadonlyArray<number>, f: (n: number) => string) => {
  const s = [...xs].sort((a, b) => a - b)
  return `${f(s[0])} / ${f(s[Math.floor(s.length / 2)])} / ${f(s[s.length - 1])}`
}
const perSecond = (n: number) => Math.round(n).toLocaleString("en-US")
const micro = (n: number) => n.toFixed(2)

// ---------------------------------------------------------------------------------------

const SKIP_INGEST = process.env.BENCH_INGEST === "0"

const rows: Array<Array<string>> = []
const ingestRows: Array<Array<string>> = []
for (const store of STORES as Array<"sqlite" | "postgres">) {
  const runs: Array<SendResult> = []
  for (let round = 0; RECIPIENTS > 0 && round < SEND_ROUNDS; round++) {
    log(`${store}: sending, round ${round + 1} of ${SEND_ROUNDS}`)
    runs.push(await sending(store))
  }
  if (runs.length > 0) {
    const each = (f: (s: SendResult) => number) => runs.map(f)
    const sum = (f: (s: SendResult) => number) => runs.reduce((n, s) => n + f(s), 0)
    const whole = (n: number) => n.toFixed(0)
    const median = (xs: ReadonlyArray<number>) => whole([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
    rows.push([
      store,
      `${sum((s) => s.sends)}`,
      spread(
        each((s) => s.share * 100),
        (n) => `${n.toFixed(1)}%`
      ),
      `${Math.max(...each((s) => s.maxWindow))}`,
      `${sum((s) => s.rejected429)}`,
      `${sum((s) => s.duplicates)}`,
      `${spread(
        each((s) => s.cpuUsPerMessage),
        whole
      )} µs`,
      `${spread(
        each((s) => s.bareUsPerMessage),
        whole
      )} µs`,
      spread(
        each((s) => s.cpuUsPerMessage / s.bareUsPerMessage),
        (n) => `${n.toFixed(2)}×`
      ),
      `${median(each((s) => s.rssAt10))} / ${median(each((s) => s.rssAtEnd))} / ${median(each((s) => s.peakRss))} MB`
    ])
  }
  if (!SKIP_INGEST) {
    const i = await ingestion(store)
    ingestRows.push([
      store,
      "route",
      `${spread(i.rates, perSecond)}/s`,
      `${spread(i.cpuUs, micro)} µs`,
      store === "postgres" ? `${spread(i.backendUs, micro)} µs` : "-",
      `${i.launchMs.toFixed(0)} ms`,
      `${i.skippedAtLaunch}`
    ])
    for (const [how, a] of i.anchors) {
      ingestRows.push([
        store,
        `bare driver (${how})`,
        `${spread(a.rates, perSecond)}/s`,
        `${spread(a.cpuUs, micro)} µs`,
        store === "postgres" ? `${spread(a.backendUs, micro)} µs` : "-",
        "",
        ""
      ])
    }
  }
  log(`${store}: done`)
}

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(" | ")} |`
  console.log(line(header))
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const r of rows) console.log(line(r))
}

console.log(
  `\nSending ${RECIPIENTS.toLocaleString("en-US")} recipients, emulator limit and worker pace R = ${RATE}/s per number, ${SEND_ROUNDS} rounds (min / median / max; sends, 429s and duplicates summed, the window's max), each round followed by the client's bare paced send of as many messages against the same emulator`
)
table(
  [
    "store",
    "sent",
    "rate / R",
    `max in any 1 s (<= ${RATE})`,
    "429s",
    "dup. recipients",
    "worker CPU / msg",
    "bare send CPU / msg",
    "worker / bare",
    "worker RSS 10% / end / peak (medians)"
  ],
  rows
)
if (ingestRows.length > 0) {
  console.log(
    `\nIngesting ${INGEST.toLocaleString("en-US")} recipients through POST /chat/campaigns/{id}/recipients (10,000 per request, two in flight), ${INGEST_ROUNDS} rounds (min / median / max), beside the same rows by the bare driver; then launch`
  )
  table(
    [
      "store",
      "path",
      "recipients per second",
      "node CPU / recipient (server; bare: its process)",
      "PostgreSQL backends' CPU / recipient",
      "launch answers in",
      "skipped at launch (opted out since)"
    ],
    ingestRows
  )
}
console.log(
  `\nGoals: rate >= 98% of R with no one-second window above R; worker CPU <= 1.25× the bare send of the same round; ingestion >= 300,000/s (SQLite), 150,000/s (PostgreSQL), bounded by the bare driver's insert of the same rows beside it; launch < 2 s with 1,000,000 recipients.`
)
