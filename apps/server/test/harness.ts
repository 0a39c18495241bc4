/**
 * End-to-end harness: the real `switchboard` CLI and server as child processes, on a fresh
 * database of the dialect asked for (`DIALECTS` of `@switchboard/testing`: a temporary
 * SQLite file, or a throw-away PostgreSQL database), with the in-process emulator, spoken to
 * over HTTP.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Dialect, eventually, freePort, cliArgs, root, SQLITE } from "@switchboard/testing"

export { eventually, freePort, root }

/**
 * One statement on a server's database (`url`, of `dialect`) over a connection of its own: a
 * read answers its rows; a write waits for the server's lock.
 */
export const sqlOn = async (dialect: Pick<Dialect, "id">, url: string, sql: string, write = false): Promise<Array<any>> => {
  if (dialect.id === "postgres") {
    const { Client } = await import("pg")
    const c = new Client({ connectionString: url })
    await c.connect()
    try {
      return (await c.query(sql)).rows
    } finally {
      await c.end()
    }
  }
  const { default: Database } = await import("better-sqlite3")
  const db = new Database(url, { readonly: !write })
  if (write) db.pragma("busy_timeout = 5000")
  try {
    const statement = db.prepare(sql)
    if (!write) return statement.all() as Array<any>
    statement.run()
    return []
  } finally {
    db.close()
  }
}

export interface CreatedStore {
  readonly id: string
  readonly live_key: string
  readonly test_key: string
}

export interface Harness {
  readonly base: string
  /** The server process's id (e.g. to read its memory from /proc). */
  readonly pid: number
  readonly env: Record<string, string>
  /** The server's DATABASE_URL: a SQLite file path or a PostgreSQL URL. */
  readonly databaseUrl: string
  /** Runs the CLI with the server's environment; answers stdout. */
  readonly cli: (...args: ReadonlyArray<string>) => string
  readonly createStore: (name: string) => CreatedStore
  readonly request: (
    method: string,
    path: string,
    key?: string,
    body?: unknown,
    headers?: Record<string, string>
  ) => Promise<{ status: number; text: string; json: any; headers: Headers }>
  /** Runs a read query on the server's database (SQLite file or PostgreSQL). */
  readonly query: <A = Record<string, unknown>>(sql: string) => Promise<Array<A>>
  /** Runs one write on the server's database over a connection of its own (another process's write, as the store sees it). */
  readonly write: (sql: string) => Promise<void>
  readonly stop: () => Promise<void>
  /** Kills the server (SIGKILL, mid-request if need be) and starts it again on the same database and emulator state, with `env` changed. */
  readonly restart: (env?: Record<string, string>) => Promise<void>
  /** What the server wrote to stderr so far (its WARN and ERROR logs). */
  readonly stderr: () => string
}

/** `text` parsed as JSON, or undefined when it is not JSON (an empty body, an HTML page). */
export const parseJson = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A server on `dialect` with two stores (for a suite's `beforeAll`). */
export const withStores = async (
  dialect: Dialect,
  env: Record<string, string> = {},
  names: readonly [string, string] = ["Shop A", "Shop B"]
): Promise<{ h: Harness; a: CreatedStore; b: CreatedStore }> => {
  const h = await startServer(env, { dialect })
  return { h, a: h.createStore(names[0]), b: h.createStore(names[1]) }
}

/** The phrase of `OperatorGuard.ts`'s defect (kept here as text: the harness reads the server's output). */
export const OPERATOR_IN_TRANSACTION = "operator call inside a database transaction"

/** Starts `main.ts serve` on a fresh database of `options.dialect` (default SQLite). */
export const startServer = async (extraEnv: Record<string, string> = {}, options: { readonly dialect?: Dialect } = {}): Promise<Harness> => {
  const dialect = options.dialect ?? SQLITE
  const dir = mkdtempSync(join(tmpdir(), "sb-e2e-"))
  const database = await dialect.createDatabase()
  const port = await freePort()
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json"),
    OPERATOR_VERIFY_TOKEN: "e2e-verify-token",
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "WARN",
    SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "300",
    SWITCHBOARD_EMULATOR_APP_SECRET: "e2e-app-secret",
    // every operator call is checked to start outside any database transaction (`OperatorGuard.ts`)
    SWITCHBOARD_TEST_GUARD_OPERATOR_TX: "1",
    ...extraEnv
  }
  let stderr = ""
  const base = `http://127.0.0.1:${port}`
  const launch = async (): Promise<ChildProcess> => {
    const child: ChildProcess = spawn(process.execPath, cliArgs("serve"), {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    child.stderr?.on("data", (d) => (stderr += String(d)))
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`)
      try {
        if ((await fetch(`${base}/readyz`)).status === 200) break
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    return child
  }
  let child = await launch()
  const runSql = (sql: string, write: boolean) => sqlOn(dialect, database.url, sql, write)
  const cli = (...args: ReadonlyArray<string>) =>
    execFileSync(process.execPath, cliArgs(...args), { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" })
  return {
    base,
    get pid() {
      return child.pid!
    },
    env,
    databaseUrl: database.url,
    stderr: () => stderr,
    cli,
    createStore: (name) => JSON.parse(cli("stores", "create", "--name", name)) as CreatedStore,
    request: async (method, path, key, body, headers = {}) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...headers
        },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
      })
      const text = await res.text()
      return { status: res.status, text, json: parseJson(text), headers: res.headers }
    },
    query: (sql) => runSql(sql, false),
    write: async (sql) => void (await runSql(sql, true)),
    restart: async (changed = {}) => {
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGKILL")
      await exited
      for (const [name, value] of Object.entries(changed)) if (value === "") delete env[name]
      Object.assign(env, Object.fromEntries(Object.entries(changed).filter(([, value]) => value !== "")))
      child = await launch()
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r))
        child.kill("SIGTERM")
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
        if (child.exitCode === null) child.kill("SIGKILL")
      }
      rmSync(dir, { recursive: true, force: true })
      await database.drop()
      // the rule of ARCHITECTURE.md "A mirrored write": no operator call inside a transaction
      const tripped = stderr.split("\n").filter((line) => line.includes(OPERATOR_IN_TRANSACTION))
      if (tripped.length > 0) throw new Error(`the server called the operator inside a database transaction:\n${tripped.slice(0, 5).join("\n")}`)
    }
  }
}

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A local HTTP receiver for caller webhooks. */
export const startReceiver = async (
  status = 200
): Promise<{ url: string; received: Array<Received>; server: Server; setStatus: (s: number) => void }> => {
  const received: Array<Received> = []
  let answer = status
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      received.push({ headers: req.headers, body })
      res.writeHead(answer)
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}/hook`, received, server, setStatus: (s) => (answer = s) }
}

/**
 * The CLI from the current build with `env`: its exit code, stdout and stderr. Asynchronous: a
 * synchronous spawn would stall this process's event loop, and fetch would then reuse
 * keep-alive sockets the server closed meanwhile.
 */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, cliArgs(...args), { cwd: root, env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (d) => (stdout += String(d)))
    child.stderr?.on("data", (d) => (stderr += String(d)))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })
