/**
 * Measuring for `pnpm bench http`: autocannon in its own process (`_load.mjs`), a server's CPU
 * time over its measured window, and min / median / max over rounds. A server is measured
 * alone: while it is loaded, every other server of the run is stopped (SIGSTOP), so an idle
 * neighbour's timers cannot take the core either.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { root } from "./_util.js"

export interface Load {
  readonly rps: number
  readonly total: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}

export interface Measured extends Load {
  /** The server's own user + system CPU time over its measured window, per request (µs). */
  readonly cpuPerRequestUs: number
}

export interface Server {
  readonly name: string
  readonly child: ChildProcess
  readonly url: string
}

/** autocannon in its own process: `connections` on `url` for `duration` seconds. */
const load = (url: string, headers: Record<string, string>, connections: number, duration: number): Promise<Load> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bench/_load.mjs", JSON.stringify({ url, connections, duration, headers })], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (d) => {
      out += d
    })
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as Load) : reject(new Error(`load client exited with ${code}`))))
  })

/** user + system CPU time of a process so far, in µs (Linux /proc). */
const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
const cpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticks
}

/** The current and peak resident memory of a process, in MB. */
export const memory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 }
}

/** Loads `server` on `path` alone (the others of `all` stopped): a 2 s warm-up, then `duration` seconds measured. */
export const measure = async (
  server: Server,
  all: ReadonlyArray<Server>,
  path: string,
  headers: Record<string, string>,
  connections: number,
  duration: number
): Promise<Measured> => {
  for (const other of all) if (other !== server) other.child.kill("SIGSTOP")
  server.child.kill("SIGCONT")
  try {
    await load(`${server.url}${path}`, headers, connections, 2)
    const pid = server.child.pid!
    const before = cpuUs(pid)
    const result = await load(`${server.url}${path}`, headers, connections, duration)
    return { ...result, cpuPerRequestUs: (cpuUs(pid) - before) / Math.max(1, result.total) }
  } finally {
    for (const other of all) other.child.kill("SIGCONT")
  }
}

const sorted = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)
export const median = (xs: ReadonlyArray<number>) => sorted(xs)[Math.floor((xs.length - 1) / 2)]
/** `min / median / max` of `xs`. */
export const mmm = (xs: ReadonlyArray<number>, digits: number) => {
  const s = sorted(xs)
  return `${s[0].toFixed(digits)} / ${median(s).toFixed(digits)} / ${s[s.length - 1].toFixed(digits)}`
}

/** The table of one read: per server, requests/s, p99 and CPU per request over the rounds. */
export const table = (servers: ReadonlyArray<Server>, results: ReadonlyMap<string, ReadonlyArray<Measured>>) => {
  console.log(
    `  ${"".padEnd(24)} ${"req/s min / median / max".padStart(26)}   ${"p99 ms min / med / max".padStart(24)}   ${"CPU µs/req min / med / max".padStart(28)}   errors`
  )
  for (const server of servers) {
    const rs = results.get(server.name) ?? []
    if (rs.length === 0) continue
    const failures = rs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0)
    console.log(
      `  ${server.name.padEnd(24)} ${mmm(
        rs.map((r) => r.rps),
        0
      ).padStart(26)}   ${mmm(
        rs.map((r) => r.p99),
        0
      ).padStart(24)}   ${mmm(
        rs.map((r) => r.cpuPerRequestUs),
        0
      ).padStart(28)}   ${failures}`
    )
  }
}
