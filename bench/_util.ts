import Sqlite from "better-sqlite3"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { createPostgresDatabase, DIALECTS, type Dialect, freePort, nodeArgs, probePostgres, root } from "@switchboard/testing"

export { freePort, root }

/** Starts a TypeScript entry point with the source condition, as `pnpm start` does. */
export const startTs = (
  entry: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  extraNodeArgs: ReadonlyArray<string> = []
): ChildProcess =>
  spawn(process.execPath, [...extraNodeArgs, ...nodeArgs, entry, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })

export const waitForHttp = async (url: string, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url)
      if (res.status < 500) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not come up within ${timeoutMs} ms`)
}

export const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    // a profiling process writes its profile on the way out: give it time on a loaded machine
    const profiling = Object.entries(process.env).some(([k, v]) => k.endsWith("_NODE_ARGS") && (v ?? "").includes("prof"))
    setTimeout(() => child.kill("SIGKILL"), profiling ? 60_000 : 5000).unref()
  })

/** BENCH_VERBOSE set (and not 0): the processes' logs go to stderr. */
export const verbose = (process.env.BENCH_VERBOSE ?? "0") !== "0" && process.env.BENCH_VERBOSE !== ""

/** With BENCH_VERBOSE, a child's output to stderr, each chunk headed `[name]`. */
export const pipeLogs = (name: string, child: ChildProcess) => {
  child.stderr?.on("data", (d) => verbose && process.stderr.write(`[${name}] ${d}`))
  child.stdout?.on("data", (d) => verbose && process.stderr.write(`[${name}] ${d}`))
}

/** Node flags for a bench's process from the environment variable `name` (e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof"). */
export const nodeFlags = (name: string): Array<string> => (process.env[name] ?? "").split(" ").filter((a) => a.length > 0)

/** The value at percentile `p` (0 to 100) of `values`. */
export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
export const ms = (n: number) => `${n.toFixed(2)} ms`

/** CPU time (user + system, every thread) a process has used, in ms (Linux); NaN once it is gone. */
export const cpuMs = (pid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

/** A fresh database for a bench run: a SQLite file in a temporary folder, or a new PostgreSQL database. */
export const benchDatabase = async (kind: string, name: string): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), `sb-bench-${name}-`))
    return { url: join(dir, "bench.sqlite"), drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  return createPostgresDatabase({ prefix: "sb_bench" })
}

/** The `switchboard` CLI from the sources with `env`; answers its stdout. */
export const switchboard = (env: Record<string, string>, ...args: ReadonlyArray<string>): string =>
  execFileSync(process.execPath, [...nodeArgs, "apps/server/src/main.ts", ...args], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" })

export interface BenchServer {
  readonly child: ChildProcess
  readonly base: string
  /** The store the CLI made before the server started. */
  readonly created: { readonly id: string; readonly test_key: string }
  readonly env: Record<string, string>
  /** A call with the store's test key (a string body is sent as it is). */
  readonly request: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>
}

/** The built bundle of the server (`pnpm build`), rebuilt first when a source is newer than it (as `bin/switchboard.mjs` judges). */
export const currentBundle = (): string => {
  const app = join(root, "apps", "server")
  const newest = (dir: string): number => {
    let latest = 0
    for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const path = join(dir, entry.name)
      latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
    }
    return latest
  }
  const stamp = join(app, "dist", "BUILT")
  const sources = [join(app, "src"), ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "src"))]
  if (!existsSync(stamp) || sources.some((dir) => newest(dir) > statSync(stamp).mtimeMs)) {
    process.stderr.write("the server's bundle is older than its sources: building it (apps/server/scripts/build.mjs)\n")
    execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: app, stdio: "ignore" })
  }
  return join(app, "dist", "main.js")
}

/**
 * The server of a bench, as `pnpm start` runs it: the built bundle (`currentBundle`, or the
 * `main.js` of BENCH_SERVER_BUNDLE, built elsewhere, to pair before and after) with plain node;
 * BENCH_FROM_SOURCE=1 runs the TypeScript sources through tsx instead. `args`: the CLI's
 * command (`serve`, `worker`).
 */
export const startServerProcess = (args: ReadonlyArray<string>, env: Record<string, string>, flags: ReadonlyArray<string> = []): ChildProcess => {
  if (process.env.BENCH_FROM_SOURCE === "1") return startTs("apps/server/src/main.ts", args, env, flags)
  const bundle = process.env.BENCH_SERVER_BUNDLE ?? currentBundle()
  return spawn(process.execPath, [...flags, bundle, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
}

/**
 * A store made with the CLI (named `storeName`), then `switchboard serve` (with `nodeFlags`,
 * run by `startServerProcess`) on `databaseUrl`, a free port and `env`, answered once `ready` answers.
 */
export const startSwitchboard = async (
  databaseUrl: string,
  env: Record<string, string>,
  options: {
    readonly storeName: string
    readonly nodeFlags?: ReadonlyArray<string>
    readonly ready?: string
    readonly timeoutMs?: number
  }
): Promise<BenchServer> => {
  const port = await freePort()
  const all = { DATABASE_URL: databaseUrl, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "WARN", OPERATOR_VERIFY_TOKEN: "bench", ...env }
  const created = JSON.parse(switchboard(all, "stores", "create", "--name", options.storeName)) as { id: string; test_key: string }
  const child = startServerProcess(["serve"], all, options.nodeFlags)
  pipeLogs("server", child)
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}${options.ready ?? "/healthz"}`, options.timeoutMs)
  } catch (e) {
    await stop(child)
    throw e
  }
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${created.test_key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
    })
    const text = await res.text()
    return { status: res.status, json: text ? JSON.parse(text) : undefined }
  }
  return { child, base, created, env: all, request }
}

/** The operator emulator's CLI on a free port with `args` (and `flags` for its node), answered once healthy. */
export const startEmulatorProcess = async (appSecret: string, args: ReadonlyArray<string> = [], flags: ReadonlyArray<string> = []) => {
  const port = await freePort()
  const child = startTs("packages/operator-emulator/src/main.ts", ["--port", String(port), "--app-secret", appSecret, ...args, "--quiet"], {}, flags)
  pipeLogs("emulator", child)
  const url = `http://127.0.0.1:${port}`
  await waitForHttp(`${url}/_emulator/health`)
  return {
    url,
    child,
    get: async (path: string) => (await fetch(`${url}/_emulator${path}`)).json() as Promise<any>,
    /** POSTs `body` to the emulator's `path` (`/config`, `/calls/config`); throws unless it answers 2xx. */
    post: async (path: string, body: unknown) => {
      const res = await fetch(`${url}/_emulator${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      if (!res.ok) throw new Error(`emulator ${path}: ${res.status}`)
    }
  }
}

/** Sends every one of `items` with `send`, `connections` at a time, in order. */
export const sendAll = async <A>(items: ReadonlyArray<A>, connections: number, send: (item: A) => Promise<void>): Promise<void> => {
  let next = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < items.length) await send(items[next++])
    })
  )
}

/** Polls `count` every `pollMs` until it has grown by `n` from `before`; throws after 10 minutes. */
export const untilGrown = async (count: () => Promise<number>, before: number, n: number, what: string, started: number, pollMs: number) => {
  for (;;) {
    const now = await count()
    if (now - before >= n) return
    if (performance.now() - started > 10 * 60_000) throw new Error(`only ${now - before} of ${n} ${what} after 10 minutes`)
    await new Promise((r) => setTimeout(r, pollMs))
  }
}

/** One read on the server's database (`dialect` "postgres" or SQLite), over a connection of its own. */
export const query = async (dialect: string, url: string, sql: string): Promise<Array<Record<string, unknown>>> => {
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

/** The sandbox number of store `id`: its phone number id, WhatsApp business account and display phone. */
export const sandboxOf = async (dialect: string, url: string, id: string) => {
  const [row] = await query(
    dialect,
    url,
    `select sandbox_phone_number_id as pnid, sandbox_waba_id as waba, sandbox_display_phone as display from stores where id = '${id}'`
  )
  return { pnid: String(row.pnid), waba: String(row.waba), display: String(row.display) }
}

/** The dialects named in `stores` that this machine can run; the others are reported skipped. */
export const runnableDialects = async (stores: ReadonlyArray<string>): Promise<Array<Dialect>> => {
  const runnable: Array<Dialect> = []
  for (const dialect of DIALECTS.filter((d) => stores.includes(d.id))) {
    // outside vitest nobody has probed PostgreSQL yet (`available` comes from the test run's global setup)
    if (dialect.id === "postgres" ? (await probePostgres()).ok : dialect.available) runnable.push(dialect)
    else console.log(`${dialect.name}: not available, skipped`)
  }
  return runnable
}
