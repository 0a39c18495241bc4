/**
 * Start-up as a person meets it (`switchboard serve` from the sources, as a child process):
 * - it listens on 127.0.0.1 unless HOST says otherwise;
 * - one banner (URL, docs, database and its path, the emulator, the next step), readable
 *   with LOG_FORMAT=pretty (which never prints `undefined`), one JSON line otherwise;
 * - `/` points to the docs;
 * - a failed start-up prints ONE line that says what to change (port in use, database
 *   unreachable with its URL redacted, a path that cannot be written), exits 1, and does not
 *   hang on a bad path.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer, type Server } from "node:net"
import { networkInterfaces, tmpdir } from "node:os"
import { join } from "node:path"
import { createRequire } from "node:module"
import { freePort, root } from "@switchboard/testing"
import { afterAll, describe, expect, it } from "vitest"

const main = join(root, "apps/server/src/main.ts")
/** The sources through tsx, resolved here: the processes run in a temporary folder. */
const nodeArgs = ["--conditions=@switchboard/source", "--import", createRequire(import.meta.url).resolve("tsx")]
const dir = mkdtempSync(join(tmpdir(), "sb-startup-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Run {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
  readonly stop: () => Promise<void>
}

/** `main.ts <args>` with only the given environment on top of a clean one (no HOST, no LOG_FORMAT from the caller). */
const run = (args: ReadonlyArray<string>, env: Record<string, string>): Run => {
  const base = { ...process.env }
  // npm_execpath: the banner's next step names `pnpm switchboard` when pnpm started the process
  for (const name of ["HOST", "PORT", "LOG_FORMAT", "LOG_LEVEL", "DATABASE_URL", "SWITCHBOARD_EMULATOR_URL", "npm_execpath"]) delete base[name]
  // the bundle the test run built (SWITCHBOARD_TEST_BUNDLE, a fifth of tsx's start-up CPU), else the sources through tsx
  const bundle = process.env.SWITCHBOARD_TEST_BUNDLE
  const argv = bundle ? [bundle, ...args] : [...nodeArgs, main, ...args]
  const child = spawn(process.execPath, argv, { cwd: dir, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (d) => (stdout += String(d)))
  child.stderr!.on("data", (d) => (stderr += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM")
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
        if (child.exitCode === null) child.kill("SIGKILL")
      }
    }
  }
}

const until = async (what: string, check: () => boolean, r: Run, timeoutMs = 45_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (r.child.exitCode !== null) throw new Error(`exited before ${what}: ${r.stderr()}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${r.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** An address of this machine other than loopback, if it has one. */
const otherAddress = (): string | undefined =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address

const connects = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

describe("serve as a person starts it", () => {
  it("listens on 127.0.0.1 by default; prints one readable banner (LOG_FORMAT=pretty never prints undefined); / points to the docs", async () => {
    const port = await freePort()
    const server = run(["serve"], { PORT: String(port), LOG_FORMAT: "pretty", DATABASE_URL: join(dir, "banner", "switchboard.sqlite") })
    try {
      await until("the banner", () => server.stderr().includes("Next:"), server)
      const text = server.stderr()
      expect(text).toContain(`is ready on http://127.0.0.1:${port}`)
      expect(text).toContain(`API docs   http://127.0.0.1:${port}/docs`)
      expect(text).toContain(`Database   SQLite ${join(dir, "banner", "switchboard.sqlite")}`)
      expect(text).toMatch(/Operator {3}the emulator at http:\/\/127\.0\.0\.1:\d+ \(in this process\)/)
      expect(text).toContain('Next: create a store: switchboard stores create --name "My shop"')
      expect(text).not.toContain("undefined")
      // one banner, and none of the routine start-up lines around it
      expect(text.match(/is ready on/g)).toHaveLength(1)
      expect(text).not.toMatch(/runner started|emulator started|Listening on/)

      expect(await connects("127.0.0.1", port)).toBe(true)
      const other = otherAddress()
      if (other !== undefined) expect(await connects(other, port)).toBe(false)

      const json = await fetch(`http://127.0.0.1:${port}/`)
      expect(json.status).toBe(200)
      expect(await json.json()).toMatchObject({ docs: "/docs", openapi: "/chat/openapi.json" })
      const page = await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: "text/html" } })
      expect(page.headers.get("content-type")).toMatch(/text\/html/)
      expect(await page.text()).toContain('href="/docs"')
    } finally {
      await server.stop()
    }
  })

  it("LOG_FORMAT=pretty prints readable lines, never `undefined` (LOG_LEVEL=DEBUG shows the start-up lines too)", async () => {
    const port = await freePort()
    const server = run(["serve"], {
      PORT: String(port),
      LOG_FORMAT: "pretty",
      LOG_LEVEL: "DEBUG",
      DATABASE_URL: join(dir, "pretty", "switchboard.sqlite")
    })
    try {
      await until("the banner", () => server.stderr().includes("Next:"), server)
      const text = server.stderr()
      expect(text).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(#\d+\): job runner started/)
      expect(text).not.toMatch(/\bundefined\b/)
    } finally {
      await server.stop()
    }
  })

  it("an empty HOST means the default, 127.0.0.1 (never every interface)", async () => {
    const port = await freePort()
    const server = run(["serve"], { PORT: String(port), HOST: "", LOG_FORMAT: "pretty", DATABASE_URL: join(dir, "empty-host", "switchboard.sqlite") })
    try {
      await until("the banner", () => server.stderr().includes("Next:"), server)
      expect(server.stderr()).toContain(`is ready on http://127.0.0.1:${port}\n`)
      expect(server.stderr()).not.toContain("all interfaces")
      expect(await connects("127.0.0.1", port)).toBe(true)
      const other = otherAddress()
      if (other !== undefined) expect(await connects(other, port)).toBe(false)
    } finally {
      await server.stop()
    }
  })

  it("LOG_LEVEL takes any case of trace, debug, info, warn, warning, error, fatal and none", async () => {
    const runs = ["warning", "Warn", "NONE"].map((level) =>
      run(["migrate"], { LOG_LEVEL: level, LOG_FORMAT: "json", DATABASE_URL: join(dir, `level-${level}.sqlite`) })
    )
    for (const r of runs) {
      expect(await r.exited, r.stderr()).toBe(0)
      expect(JSON.parse(r.stdout())).toMatchObject({ database: "sqlite" })
    }
  }, 90_000)

  it("logs one JSON object per line when not on a terminal, the banner's facts as one of them; HOST opens it wider", async () => {
    const other = otherAddress()
    const port = await freePort()
    const server = run(["serve"], { PORT: String(port), HOST: "0.0.0.0", DATABASE_URL: join(dir, "json", "switchboard.sqlite") })
    try {
      await until("the ready line", () => server.stderr().includes("Switchboard is ready"), server)
      const lines = server.stderr().trim().split("\n")
      const parsed = lines.map((line) => JSON.parse(line))
      const ready = parsed.find((l) => l.message === "Switchboard is ready")
      expect(ready.annotations).toMatchObject({
        url: `http://localhost:${port}`,
        docs: `http://localhost:${port}/docs`,
        database: `SQLite ${join(dir, "json", "switchboard.sqlite")}`,
        next: expect.stringContaining("create a store")
      })
      if (other !== undefined) expect(await connects(other, port)).toBe(true)
    } finally {
      await server.stop()
    }
  })
})

describe("a failed start-up prints one line that says what to change", () => {
  const failure = async (env: Record<string, string>, args: ReadonlyArray<string> = ["serve"]) => {
    const started = Date.now()
    const r = run(args, env)
    const code = await Promise.race([r.exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 40_000))])
    await r.stop()
    expect(code, `exit code (stderr: ${r.stderr()})`).toBe(1)
    const lines = r.stderr().trim().split("\n")
    expect(lines, r.stderr()).toHaveLength(1)
    expect(r.stderr()).not.toMatch(/\n\s+at |Error:|"_tag"|\{"message"/)
    return { line: lines[0], stdout: r.stdout(), ms: Date.now() - started }
  }

  it("the port is in use", async () => {
    const blocker: Server = createServer()
    const port = await new Promise<number>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port)))
    try {
      const { line } = await failure({ PORT: String(port), DATABASE_URL: join(dir, "busy", "switchboard.sqlite") })
      expect(line).toBe(`Port ${port} is already in use on 127.0.0.1: stop the process using it, or set PORT to a free port.`)
    } finally {
      blocker.close()
    }
  })

  it("the database is unreachable: the line names DATABASE_URL with the password redacted", async () => {
    const port = await freePort()
    const { line } = await failure({ PORT: String(port), DATABASE_URL: `postgres://app:s3cret-pass@127.0.0.1:${port}/shop` })
    expect(line).toBe(
      `Cannot reach the database at postgres://app:***@127.0.0.1:${port}/shop (ECONNREFUSED): start PostgreSQL there, or set DATABASE_URL.`
    )
    expect(line).not.toContain("s3cret")
  })

  it("a path that cannot be written: no hang (a /proc path made mkdir -p spin), one line naming DATABASE_URL", async () => {
    const { line, ms } = await failure({ PORT: String(await freePort()), DATABASE_URL: "/proc/switchboard-nope/switchboard.sqlite" })
    expect(line).toMatch(
      /^Cannot write the SQLite database at \/proc\/switchboard-nope\/switchboard\.sqlite \(.*\): set DATABASE_URL to a file in a folder this user can write\.$/
    )
    expect(ms).toBeLessThan(40_000)
    writeFileSync(join(dir, "a-file"), "")
    const { line: notADirectory } = await failure({ DATABASE_URL: join(dir, "a-file", "switchboard.sqlite") }, ["migrate"])
    expect(notADirectory).toMatch(/^Cannot write the SQLite database at .*a-file\/switchboard\.sqlite/)
  })

  it("a bad LOG_LEVEL or LOG_FORMAT names the variable and the values it accepts (it printed nothing)", async () => {
    const levels = "trace, debug, info, warn, warning, error, fatal, none"
    const [verbose, xml] = await Promise.all([failure({ LOG_LEVEL: "verbose" }, ["migrate"]), failure({ LOG_FORMAT: "xml" }, ["migrate"])])
    expect(verbose.line).toMatch(
      new RegExp(`^Invalid setting: LOG_LEVEL is "verbose"; accepted values: .*${levels}.*\\. Fix that environment variable and start again\\.$`)
    )
    expect(xml.line).toBe(
      'Invalid setting: LOG_FORMAT is "xml"; accepted values: json, pretty, logfmt. Fix that environment variable and start again.'
    )
  })

  it("every other setting that does not parse or is out of range: one line naming it", async () => {
    const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
      [{ SWITCHBOARD_WORKER: "maybe" }, /^Invalid setting: SWITCHBOARD_WORKER: expected a boolean value but received "maybe"\./],
      [{ SWITCHBOARD_EMULATOR_MPS: "-1" }, /^Invalid setting: SWITCHBOARD_EMULATOR_MPS must be an integer from 1 to 1000000\./],
      [{ SWITCHBOARD_PUBLIC_URL: "localhost:3000" }, /^Invalid setting: SWITCHBOARD_PUBLIC_URL must be an http:\/\/ or https:\/\/ URL\./],
      [{ SWITCHBOARD_CAMPAIGN_LEASE_MS: "soon" }, /^Invalid setting: SWITCHBOARD_CAMPAIGN_LEASE_MS: expected an integer value but received "soon"\./]
    ]
    const results = await Promise.all(
      cases.map(async ([env], i) => failure({ PORT: String(await freePort()), ...env, DATABASE_URL: join(dir, `setting-${i}.sqlite`) }))
    )
    for (const [i, { line }] of results.entries()) expect(line).toMatch(cases[i]![1])
  }, 90_000)

  it("a setting that does not parse", async () => {
    const { line } = await failure({ PORT: "eighty" })
    expect(line).toMatch(/^Invalid setting: .*"eighty".* Fix that environment variable and start again\.$/)
  })
})
