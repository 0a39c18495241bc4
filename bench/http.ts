/**
 * `pnpm bench http`: authenticated `GET /chat/templates?limit=25` on our server (the README's
 * server: `serve` on SQLite, the built bundle run by plain `node`, as `pnpm start` runs it)
 * against two anchors doing the same work by the shortest path, in the same run:
 *   - `bytes`:  node:http, the same Bearer check, the page's bytes cached at start;
 *   - `sqlite`: node:http, the same Bearer check, a prepared better-sqlite3 statement for the
 *     same rows and JSON.stringify (`_anchor-http.mjs`; both answer byte for byte what ours does).
 * A fourth server is ours again with its page cache off (`SWITCHBOARD_PAGE_CACHE=false`, on
 * the same file, no worker): what a request costs when it must read and render the page.
 * Each server is its own plain `node` process, and so is the load client (`_load.mjs`,
 * autocannon): nothing under test shares an event loop with the harness, with tsx or with
 * another server. Servers are measured one at a time: while one is loaded the others are
 * stopped (SIGSTOP), so an idle neighbour's timers cannot take the core either. Each of
 * BENCH_ROUNDS rounds measures them all, after a short warm-up, in a rotating order.
 *
 * Printed: per server, min / median / max requests/s and p99 over the rounds, CPU time per
 * request (the server's own user+system time over its measured window: steadier than
 * requests/s on a shared machine), the ratios of ours to each anchor (per round, then
 * min / median / max), our server's RSS (current and peak), and the load average before and
 * after, since other work on the machine moves every figure.
 *
 * Environment: BENCH_DURATION (s per measurement, 10), BENCH_CONNECTIONS (50), BENCH_ROUNDS
 * (3), BENCH_FROM_SOURCE=1 (run our server from the TypeScript sources through tsx instead of
 * a bundle built for the run), BENCH_SERVER_ROOT (build and run the server of another checkout,
 * e.g. a worktree of main, to pair before and after in one kind of run), BENCH_VERBOSE
 * (server logs to stderr).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, root, startTs, stop, waitForHttp } from "./_util.js"

const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === "1"
const TEMPLATES = 40
const PATH = "/chat/templates?limit=25"

const dir = mkdtempSync(join(tmpdir(), "sb-bench-http-"))
const file = join(dir, "bench.sqlite")
const env = { DATABASE_URL: file, LOG_LEVEL: "WARN", SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "100" }
const children: Array<ChildProcess> = []
const loadBefore = loadavg()

// our server: a bundle built for this run (apps/server/.bench-http-<pid>, removed at the end)
const bundleDir = `.bench-http-${process.pid}`
const serverRoot = process.env.BENCH_SERVER_ROOT ?? root
const bundle = join(serverRoot, "apps", "server", bundleDir)
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGCONT")
  rmSync(bundle, { recursive: true, force: true })
}
process.on("exit", () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL")
  cleanup()
})
if (!FROM_SOURCE) execFileSync(process.execPath, ["apps/server/scripts/build.mjs", "--outdir", bundleDir], { cwd: serverRoot, stdio: "ignore" })
const startNode = (args: ReadonlyArray<string>, extraEnv: Record<string, string>): ChildProcess => {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] })
  child.stderr?.on("data", (d) => process.env.BENCH_VERBOSE && process.stderr.write(d))
  child.stdout?.resume()
  children.push(child)
  return child
}
const cli = (args: ReadonlyArray<string>): string =>
  FROM_SOURCE
    ? execFileSync(process.execPath, ["--conditions=@switchboard/source", "--import", "tsx", "apps/server/src/main.ts", ...args], {
        cwd: root,
        env: { ...process.env, ...env },
        encoding: "utf8"
      })
    : execFileSync(process.execPath, [join(bundle, "main.js"), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" })

const created = JSON.parse(cli(["stores", "create", "--name", "bench"])) as { id: string; live_key: string }
const auth = { authorization: `Bearer ${created.live_key}` }

const port = await freePort()
const ours = FROM_SOURCE
  ? startTs("apps/server/src/main.ts", ["serve"], { ...env, PORT: String(port) })
  : startNode([join(bundle, "main.js"), "serve"], { ...env, PORT: String(port) })
if (FROM_SOURCE) children.push(ours)
const base = `http://127.0.0.1:${port}`
await waitForHttp(`${base}/healthz`)
for (let i = 0; i < TEMPLATES; i++) {
  const res = await fetch(`${base}/chat/templates`, {
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
// the emulator approves them after its review delay; measure a page that no longer changes
let page = ""
for (let tries = 0; ; tries++) {
  const res = await fetch(`${base}${PATH}`, { headers: auth })
  page = await res.text()
  const data = (JSON.parse(page) as { data: Array<{ status: string }> }).data
  if (res.status !== 200 || data.length !== 25) throw new Error(`unexpected answer ${res.status}: ${page.slice(0, 200)}`)
  if (data.every((t) => t.status === "APPROVED")) break
  if (tries > 100) throw new Error("the emulator did not approve the templates")
  await new Promise((r) => setTimeout(r, 100))
}
const pageFile = join(dir, "page.json")
writeFileSync(pageFile, page)

const anchor = async (mode: "bytes" | "sqlite", ...args: ReadonlyArray<string>) => {
  const anchorPort = await freePort()
  const child = startNode(["bench/_anchor-http.mjs", mode, String(anchorPort), created.live_key, ...args], {})
  const url = `http://127.0.0.1:${anchorPort}`
  await waitForHttp(url)
  const same = await fetch(`${url}${PATH}`, { headers: auth })
  const body = await same.text()
  if (same.status !== 200 || body !== page) throw new Error(`the ${mode} anchor does not answer our page: ${body.slice(0, 200)}`)
  if ((await fetch(`${url}${PATH}`)).status !== 401) throw new Error(`the ${mode} anchor does not check the key`)
  return { child, url }
}
// the same server with its page cache off (SWITCHBOARD_PAGE_CACHE=false), on the same file,
// without a worker of its own: every request reads the table and renders the page
const uncachedPort = await freePort()
const uncachedEnv = { ...env, PORT: String(uncachedPort), SWITCHBOARD_PAGE_CACHE: "false", SWITCHBOARD_WORKER: "false" }
const uncached = FROM_SOURCE ? startTs("apps/server/src/main.ts", ["serve"], uncachedEnv) : startNode([join(bundle, "main.js"), "serve"], uncachedEnv)
if (FROM_SOURCE) children.push(uncached)
await waitForHttp(`http://127.0.0.1:${uncachedPort}/healthz`)
const servers = [
  { name: "switchboard (serve)", child: ours, url: base },
  { name: "anchor: bytes", ...(await anchor("bytes", pageFile)) },
  { name: "anchor: sqlite", ...(await anchor("sqlite", file, created.id)) },
  { name: "switchboard, no cache", child: uncached, url: `http://127.0.0.1:${uncachedPort}` }
]
if ((await fetch(`${base}${PATH}`)).status !== 401) throw new Error("our server answered without a key")

// ---------------------------------------------------------------------------
// measuring

interface Load {
  readonly rps: number
  readonly total: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}

/** autocannon in its own process. */
const load = (url: string, connections: number, duration: number): Promise<Load> =>
  new Promise((resolve, reject) => {
    const options = JSON.stringify({ url: `${url}${PATH}`, connections, duration, headers: auth })
    execFile(["bench/_load.mjs", options], (out) => resolve(JSON.parse(out) as Load), reject)
  })
const execFile = (args: ReadonlyArray<string>, ok: (stdout: string) => void, fail: (e: Error) => void) => {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
  let out = ""
  child.stdout.on("data", (d) => {
    out += d
  })
  child.on("exit", (code) => (code === 0 ? ok(out) : fail(new Error(`load client exited with ${code}`))))
}

/** user + system CPU time of a process so far, in µs (Linux /proc). */
const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
const cpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticks
}
const memory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 }
}

interface Measured extends Load {
  readonly cpuPerRequestUs: number
}
const results = new Map<string, Array<Measured>>(servers.map((s) => [s.name, []]))
const measure = async (server: (typeof servers)[number]): Promise<Measured> => {
  for (const other of servers) if (other !== server) other.child.kill("SIGSTOP")
  server.child.kill("SIGCONT")
  try {
    await load(server.url, CONNECTIONS, 2) // warm-up
    const pid = server.child.pid!
    const before = cpuUs(pid)
    const result = await load(server.url, CONNECTIONS, DURATION)
    return { ...result, cpuPerRequestUs: (cpuUs(pid) - before) / Math.max(1, result.total) }
  } finally {
    for (const other of servers) other.child.kill("SIGCONT")
  }
}

console.log(`server: ${FROM_SOURCE ? "the sources (tsx)" : `a bundle of ${serverRoot}`}`)
console.log(
  `GET ${PATH}, ${CONNECTIONS} connections, ${DURATION} s per measurement, ${ROUNDS} rounds; load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")}`
)
const ratios = { bytes: [] as Array<number>, sqlite: [] as Array<number>, uncachedBytes: [] as Array<number>, uncachedSqlite: [] as Array<number> }
for (let round = 0; round < ROUNDS; round++) {
  const order = servers.map((_, i) => servers[(i + round) % servers.length])
  const got = new Map<string, Measured>()
  for (const server of order) {
    const r = await measure(server)
    got.set(server.name, r)
    results.get(server.name)!.push(r)
  }
  const o = got.get(servers[0].name)!
  const b = got.get(servers[1].name)!
  const s = got.get(servers[2].name)!
  const u = got.get(servers[3].name)!
  ratios.bytes.push(o.rps / b.rps)
  ratios.sqlite.push(o.rps / s.rps)
  ratios.uncachedBytes.push(u.rps / b.rps)
  ratios.uncachedSqlite.push(u.rps / s.rps)
  console.log(
    `round ${round + 1}: ${order.map((x) => `${x.name} ${got.get(x.name)!.rps.toFixed(0)} req/s p99 ${got.get(x.name)!.p99} ms`).join(", ")}; ` +
      `ratio to bytes ${(o.rps / b.rps).toFixed(3)}, to sqlite ${(o.rps / s.rps).toFixed(3)}`
  )
}

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
const mmm = (xs: ReadonlyArray<number>, digits: number) => {
  const s = sorted(xs)
  return `${s[0].toFixed(digits)} / ${s[Math.floor((s.length - 1) / 2)].toFixed(digits)} / ${s[s.length - 1].toFixed(digits)}`
}
console.log(`\n${"".padEnd(22)} ${"req/s min / median / max".padStart(28)}   ${"p99 ms min / med / max".padStart(24)}   CPU µs/req (median)   errors`)
for (const server of servers) {
  const rs = results.get(server.name)!
  const failures = rs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0)
  console.log(
    `${server.name.padEnd(22)} ${mmm(
      rs.map((r) => r.rps),
      0
    ).padStart(28)}   ${mmm(
      rs.map((r) => r.p99),
      0
    ).padStart(24)}   ${sorted(rs.map((r) => r.cpuPerRequestUs))
      [Math.floor((rs.length - 1) / 2)].toFixed(0)
      .padStart(19)}   ${failures}`
  )
}
const mem = memory(ours.pid!)
const medianP99 = sorted(results.get(servers[0].name)!.map((r) => r.p99))[Math.floor((ROUNDS - 1) / 2)]
console.log(`\nratio to the bytes anchor  (min / median / max): ${mmm(ratios.bytes, 3)}   goal >= 0.2`)
console.log(`ratio to the sqlite anchor (min / median / max): ${mmm(ratios.sqlite, 3)}   goal >= 0.25`)
console.log(
  `page cache off: ratio to bytes ${mmm(ratios.uncachedBytes, 3)}, to sqlite ${mmm(ratios.uncachedSqlite, 3)} (every request reads and renders the page)`
)
console.log(`our p99 (median of rounds): ${medianP99} ms   goal < 15 ms`)
console.log(`our RSS: ${mem.rssMb.toFixed(0)} MB now, ${mem.peakMb.toFixed(0)} MB peak   goal < 250 MB`)
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(" ")}, after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (${(await import("node:os")).cpus().length} cores)`
)

for (const c of children) c.kill("SIGCONT")
await Promise.all(servers.map((s) => stop(s.child)))
cleanup()
rmSync(dir, { recursive: true, force: true })
