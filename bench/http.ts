/**
 * `pnpm bench http`: two authenticated reads on our server (the README's server: `serve`, the
 * built bundle run by plain `node`, as `pnpm start` runs it), each against anchors doing the
 * same work by the shortest path, in the same run:
 *   - `list`: `GET /chat/templates?limit=25`, a page of 25 of the store's 40 templates;
 *   - `one`:  `GET /chat/templates/order_update_7`, one template (its languages' page).
 *
 * On SQLite (a fresh file), four servers:
 *   - `switchboard (serve)`: ours, with its page cache (and its worker);
 *   - `anchor: bytes`:  node:http, the same Bearer check, each answer's bytes kept at start;
 *   - `anchor: sqlite`: node:http, the same Bearer check, the statements our repository runs
 *     prepared once in better-sqlite3, the rows mapped and JSON.stringify'd (`_anchor-http.mjs`);
 *   - `switchboard, no cache`: ours with its page cache off (`SWITCHBOARD_PAGE_CACHE=false`, on
 *     the same file, no worker): what a read costs when it must read and render its answer.
 * On PostgreSQL (a fresh database), two: ours (page cache off, no worker; PostgreSQL has no
 * page cache anyway) and `anchor: postgres`, node:http with the same statements through a `pg`
 * Pool of our pool's size. Every anchor answers byte for byte what ours answers (checked first).
 *
 * Each server is its own plain `node` process, and so is the load client (autocannon): nothing
 * under test shares an event loop with the harness or with another server. A server is
 * measured alone (the others are stopped with SIGSTOP); each of BENCH_ROUNDS rounds measures
 * them all, after a 2 s warm-up, in a rotating order.
 *
 * Printed per store and read: per server, min / median / max requests/s, p99 and CPU time per
 * request (the server's own user+system time over its measured window: steadier than
 * requests/s on a shared machine; on PostgreSQL the database's own CPU is not in it, for
 * either server); then the ratios of ours without cache to its same-statement anchor, by
 * requests/s and by CPU per request (anchor's µs / ours), min / median / max over the rounds.
 * Goal: >= 0.8 on both stores. For the cached list, the ratios to the bytes and SQLite anchors.
 *
 * Environment: BENCH_STORES (sqlite,postgres), BENCH_READS (list,one), BENCH_DURATION (s per
 * measurement, 10), BENCH_CONNECTIONS (50), BENCH_ROUNDS (3), BENCH_FROM_SOURCE=1 (run our
 * server from the TypeScript sources through tsx), BENCH_SERVER_ROOT (build and run the server
 * of another checkout, to pair before and after in one kind of run), BENCH_VERBOSE (server logs
 * to stderr), BENCH_SERVER_NODE_ARGS: node flags for ours without cache, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` (the bundle is then kept, for `_cpuprofile.mjs` to map
 * frames to the sources; the bench prints the seconds to skip to leave the start-up out).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { postgresAdminUrl, probePostgres } from "@switchboard/testing"
import { type Measured, measure, median, memory, mmm, type Server, table } from "./_http-measure.js"
import { benchDatabase, freePort, nodeFlags, root, startTs, stop, waitForHttp } from "./_util.js"

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === "1"
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",").map((s) => s.trim())
const READS = (process.env.BENCH_READS ?? "list,one").split(",").map((s) => s.trim())
const PROFILE = nodeFlags("BENCH_SERVER_NODE_ARGS")
const TEMPLATES = 40
/** Our pool's size on PostgreSQL (`StorePostgres.makePool`'s default), given to the anchor's pool too. */
const POOL_SIZE = 10
const PATHS: Record<string, string> = { list: "/chat/templates?limit=25", one: "/chat/templates/order_update_7" }
for (const read of READS) if (PATHS[read] === undefined) throw new Error(`unknown read ${read} (list, one)`)

const children: Array<ChildProcess> = []
const loadBefore = loadavg()

// our server: a bundle built for this run (apps/server/.bench-http-<pid>, removed at the end unless profiling)
const bundleDir = `.bench-http-${process.pid}`
const serverRoot = process.env.BENCH_SERVER_ROOT ?? root
const bundle = join(serverRoot, "apps", "server", bundleDir)
const keepBundle = PROFILE.length > 0
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGCONT")
  if (!keepBundle) rmSync(bundle, { recursive: true, force: true })
}
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL")
  cleanup()
})
if (!FROM_SOURCE) execFileSync(process.execPath, ["apps/server/scripts/build.mjs", "--outdir", bundleDir], { cwd: serverRoot, stdio: "ignore" })

const startNode = (args: ReadonlyArray<string>, env: Record<string, string>): ChildProcess => {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  child.stderr?.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
  child.stdout?.resume()
  children.push(child)
  return child
}
const cli = (env: Record<string, string>, args: ReadonlyArray<string>): string =>
  FROM_SOURCE
    ? execFileSync(process.execPath, ["--conditions=@switchboard/source", "--import", "tsx", "apps/server/src/main.ts", ...args], {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: "utf8"
      })
    : execFileSync(process.execPath, [join(bundle, "main.js"), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" })
/** `switchboard serve` with `env` (and node `flags`) on a free port, once `/healthz` answers. */
const serve = async (env: Record<string, string>, flags: ReadonlyArray<string> = []) => {
  const port = await freePort()
  const all = { ...env, PORT: String(port) }
  const child = FROM_SOURCE ? startTs("apps/server/src/main.ts", ["serve"], all, flags) : startNode([...flags, join(bundle, "main.js"), "serve"], all)
  if (FROM_SOURCE) children.push(child)
  const started = performance.now()
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}/healthz`)
  return { child, url, started }
}

/** Creates the bench's templates through `url` and answers each read's body once the emulator approved them all. */
const seed = async (url: string, auth: Record<string, string>): Promise<Record<string, string>> => {
  for (let i = 0; i < TEMPLATES; i++) {
    const res = await fetch(`${url}/chat/templates`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        templateData: {
          name: `order_update_${i}`,
          category: "UTILITY",
          language: "en_US",
          components: [{ type: "BODY", text: "Hello {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
        }
      })
    })
    if (res.status !== 201) throw new Error(`template create answered ${res.status}: ${await res.text()}`)
  }
  // the emulator approves them after its review delay; measure answers that no longer change
  for (let tries = 0; ; tries++) {
    const res = await fetch(`${url}${PATHS.list}`, { headers: auth })
    const page = await res.text()
    const data = (JSON.parse(page) as { data: Array<{ status: string }> }).data
    if (res.status !== 200 || data.length !== 25) throw new Error(`unexpected answer ${res.status}: ${page.slice(0, 200)}`)
    if (data.every((t) => t.status === "APPROVED")) break
    if (tries > 100) throw new Error("the emulator did not approve the templates")
    await new Promise((r) => setTimeout(r, 100))
  }
  const bodies: Record<string, string> = {}
  for (const [read, path] of Object.entries(PATHS)) {
    const res = await fetch(`${url}${path}`, { headers: auth })
    bodies[read] = await res.text()
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${bodies[read].slice(0, 200)}`)
  }
  return bodies
}

/** Checks that `server` answers each read as ours did, and 401 without the key. */
const check = async (server: Server, bodies: Record<string, string>, auth: Record<string, string>) => {
  for (const read of READS) {
    const res = await fetch(`${server.url}${PATHS[read]}`, { headers: auth })
    const body = await res.text()
    if (res.status !== 200 || body !== bodies[read]) throw new Error(`${server.name} does not answer our ${read}: ${body.slice(0, 200)}`)
    if ((await fetch(`${server.url}${PATHS[read]}`)).status !== 401) throw new Error(`${server.name} does not check the key`)
  }
}

const anchor = async (name: string, args: ReadonlyArray<string>, key: string): Promise<Server> => {
  const port = await freePort()
  const child = startNode(["bench/_anchor-http.mjs", args[0], String(port), key, ...args.slice(1)], {})
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(url)
  return { name, child, url }
}

const ratioLine = (label: string, anchorName: string, ours: ReadonlyArray<Measured>, theirs: ReadonlyArray<Measured>) => {
  const byRate = ours.map((o, i) => o.rps / theirs[i].rps)
  const byCpu = ours.map((o, i) => theirs[i].cpuPerRequestUs / o.cpuPerRequestUs)
  console.log(`  ${label} / ${anchorName}: by req/s ${mmm(byRate, 3)}, by CPU per request ${mmm(byCpu, 3)} (min / median / max)`)
}

const runStore = async (kind: "sqlite" | "postgres") => {
  const database = await benchDatabase(kind, "http")
  const dir = mkdtempSync(join(tmpdir(), "sb-bench-http-"))
  const env = { DATABASE_URL: database.url, LOG_LEVEL: "WARN", SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "100" }
  const created = JSON.parse(cli(env, ["stores", "create", "--name", "bench"])) as { id: string; live_key: string }
  const auth = { authorization: `Bearer ${created.live_key}` }
  const uncachedEnv = { ...env, SWITCHBOARD_PAGE_CACHE: "false", SWITCHBOARD_WORKER: "false" }
  const servers: Array<Server> = []
  let bodies: Record<string, string>
  let profiled: { readonly child: ChildProcess; readonly started: number }
  if (kind === "sqlite") {
    const ours = await serve(env)
    bodies = await seed(ours.url, auth)
    const bodiesFile = join(dir, "bodies.json")
    writeFileSync(bodiesFile, JSON.stringify(Object.fromEntries(READS.map((read) => [PATHS[read], bodies[read]]))))
    const uncached = await serve(uncachedEnv, PROFILE)
    profiled = uncached
    servers.push(
      { name: "switchboard (serve)", child: ours.child, url: ours.url },
      await anchor("anchor: bytes", ["bytes", bodiesFile], created.live_key),
      await anchor("anchor: sqlite", ["sqlite", database.url, created.id], created.live_key),
      { name: "switchboard, no cache", child: uncached.child, url: uncached.url }
    )
  } else {
    // a server of its own (with its worker) makes the templates, then the measured one starts without a worker
    const seeder = await serve(env)
    bodies = await seed(seeder.url, auth)
    await stop(seeder.child)
    const ours = await serve(uncachedEnv, PROFILE)
    profiled = ours
    servers.push(await anchor("anchor: postgres", ["postgres", database.url, created.id, String(POOL_SIZE)], created.live_key), {
      name: "switchboard, no cache",
      child: ours.child,
      url: ours.url
    })
  }
  for (const server of servers) await check(server, bodies, auth)

  console.log(
    `\n== ${kind}: ${CONNECTIONS} connections, ${DURATION} s per measurement, ${ROUNDS} rounds; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`
  )
  let firstMeasured: number | undefined
  for (const read of READS) {
    const results = new Map<string, Array<Measured>>(servers.map((s) => [s.name, []]))
    for (let round = 0; round < ROUNDS; round++) {
      const order = servers.map((_, i) => servers[(i + round) % servers.length])
      for (const server of order) {
        if (server.child === profiled.child) firstMeasured ??= performance.now()
        results.get(server.name)!.push(await measure(server, servers, PATHS[read], auth, CONNECTIONS, DURATION))
      }
      console.log(
        `  ${read} round ${round + 1}: ${order.map((s) => `${s.name} ${results.get(s.name)![round].rps.toFixed(0)} req/s ${results.get(s.name)![round].cpuPerRequestUs.toFixed(0)} µs`).join(", ")}`
      )
    }
    console.log(`\n GET ${PATHS[read]} (${kind})`)
    table(servers, results)
    const uncached = results.get("switchboard, no cache")!
    if (kind === "sqlite") {
      const cached = results.get("switchboard (serve)")!
      ratioLine("ours, cached", "bytes anchor", cached, results.get("anchor: bytes")!)
      ratioLine("ours, cached", "sqlite anchor", cached, results.get("anchor: sqlite")!)
      ratioLine("ours, no cache", "sqlite anchor", uncached, results.get("anchor: sqlite")!)
      console.log(
        `  goals: no cache / sqlite anchor >= 0.8; cached / bytes >= 0.2, cached / sqlite >= 0.25; our p99 (median) ${median(cached.map((r) => r.p99))} ms < 15 ms`
      )
    } else {
      ratioLine("ours, no cache", "postgres anchor", uncached, results.get("anchor: postgres")!)
      console.log("  goal: ours / postgres anchor >= 0.8")
    }
  }
  const mem = memory(servers.find((s) => s.name.startsWith("switchboard"))!.child.pid!)
  console.log(`  our RSS: ${mem.rssMb.toFixed(0)} MB now, ${mem.peakMb.toFixed(0)} MB peak   goal < 250 MB`)
  if (PROFILE.length > 0 && firstMeasured !== undefined)
    console.log(
      `  profile of ours without cache: skip ${Math.floor((firstMeasured - profiled.started) / 1000)} s of start-up (bundle kept in ${bundle})`
    )

  for (const c of servers) c.child.kill("SIGCONT")
  await Promise.all(servers.map((s) => stop(s.child)))
  rmSync(dir, { recursive: true, force: true })
  await database.drop()
}

console.log(
  `server: ${FROM_SOURCE ? "the sources (tsx)" : `a bundle of ${serverRoot}`}; load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`
)
for (const kind of STORES) {
  if (kind !== "sqlite" && kind !== "postgres") throw new Error(`unknown store ${kind}`)
  if (kind === "postgres" && !(await probePostgres()).ok) {
    console.error(`PostgreSQL at ${postgresAdminUrl} is not reachable: skipped`)
    continue
  }
  await runStore(kind)
}
console.log(
  `\nload average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (${cpus().length} cores)`
)
cleanup()
