/**
 * The README's first hour, as a newcomer runs it: the server started as "The two commands"
 * says (`pnpm start`: SQLite and the built-in emulator), then every ```sh block of the
 * walk-through sections, in order, in one bash session, exactly as written. Substituted:
 * the port (`localhost:3000` becomes a free port). The caller webhooks go to the README's own
 * receiver, `switchboard webhooks listen`, started in the background by the Messaging block
 * (the server runs with SWITCHBOARD_ALLOW_PRIVATE_URLS=true, as that section says); it must
 * have printed the events, and Ctrl-C must remove its registration. `curl` fails on an error
 * answer and `jq` on a missing value, so a step that breaks fails the test and names its block.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, root } from "./harness.js"

const README = readFileSync(join(root, "README.md"), "utf8")

/** The sections whose ```sh blocks make the walk-through, in the README's order. */
const WALK_THROUGH = ["A walk through templates with curl", "Messaging with the sandbox", "Campaigns", "Commerce", "Calls", "Flows"]

/** The ```sh blocks of the section headed `title` (## level). */
const blocksOf = (title: string): Array<string> => {
  const start = README.indexOf(`\n## ${title}\n`)
  if (start < 0) return []
  const end = README.indexOf("\n## ", start + 1)
  const section = README.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
}

describe("README", () => {
  it("installs the exact pnpm that package.json pins", () => {
    const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager as string
    expect(pinned).toMatch(/^pnpm@\d+\.\d+\.\d+$/)
    const installs = [...README.matchAll(/npm install -g (pnpm@[^\s`]+)/g)].map((m) => m[1])
    expect(installs.length).toBeGreaterThan(0)
    for (const install of installs) expect(install).toBe(pinned)
  })

  it("starts the server with `pnpm start`", () => {
    expect(blocksOf("The two commands").join("\n")).toMatch(/pnpm install && pnpm start/)
    expect(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start).toBe("switchboard serve")
  })

  it("has no placeholder left in a walk-through command", () => {
    for (const title of WALK_THROUGH) {
      const commands = blocksOf(title)
        .join("\n")
        .split("\n")
        .filter((line) => !line.trimStart().startsWith("#"))
        .map((line) => line.replace(/\s#.*$/, ""))
      expect(
        commands.filter((line) => line.includes("…")),
        title
      ).toEqual([])
    }
  })

  it("the webhook walk-through receives them with `switchboard webhooks listen`, and says what the server needs", () => {
    const messaging = blocksOf("Messaging with the sandbox").join("\n")
    expect(messaging).toMatch(/^pnpm -s switchboard webhooks listen --key "\$TEST" .*&$/m)
    expect(messaging).not.toContain("example.com/hook")
    const section = README.slice(README.indexOf("\n## Messaging with the sandbox\n"), README.indexOf("\n## Campaigns\n"))
    expect(section).toContain("SWITCHBOARD_ALLOW_PRIVATE_URLS=true pnpm start")
  })

  it("the campaign walk-through creates the template it sends", () => {
    const campaigns = blocksOf("Campaigns").join("\n")
    const sent = /"template": \{"name": "(\w+)"/.exec(campaigns)?.[1]
    expect(sent).toBeDefined()
    const created = campaigns.indexOf(`"templateData": {"name": "${sent}"`)
    expect(created).toBeGreaterThan(-1)
    expect(created).toBeLessThan(campaigns.indexOf("/chat/campaigns "))
  })
})

describe("the README's walk-through, run as written", () => {
  let dir: string
  let server: ReturnType<typeof spawn> | undefined
  let port: number
  let env: Record<string, string>
  let serverLog = ""

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-readme-"))
    port = await freePort()
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: join(dir, "switchboard.sqlite"),
      SWITCHBOARD_EMULATOR_STATE: join(dir, "emulator-state.json"),
      SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
      PORT: String(port),
      LOG_LEVEL: "WARN"
    }
    // `pnpm start`, in its own process group so that stopping it stops every child
    server = spawn("pnpm", ["start"], { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "pipe"] })
    server.stderr?.on("data", (d) => (serverLog += String(d)))
    const deadline = Date.now() + 60_000
    for (;;) {
      if (server.exitCode !== null) throw new Error(`pnpm start exited: ${serverLog}`)
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new Error(`pnpm start did not answer: ${serverLog}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }, 90_000)

  afterAll(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((r) => server!.once("exit", r))
      process.kill(-server.pid, "SIGTERM")
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (server.exitCode === null) process.kill(-server.pid, "SIGKILL")
    }
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("every block succeeds, in order, in one shell", async () => {
    const blocks = WALK_THROUGH.flatMap((title) => {
      const found = blocksOf(title)
      expect(found.length, `README section "${title}" has no sh block`).toBeGreaterThan(0)
      return found.map((code, i) => ({ name: `${title} #${i + 1}`, code }))
    })
    const script = [
      "set -euo pipefail",
      // an error answer (4xx, 5xx) fails the step; so does a value jq cannot find
      'curl() { command curl --fail-with-body --max-time 20 "$@"; echo; }',
      'jq() { command jq -e "$@"; }',
      ...blocks.map(({ name, code }) => [`echo "::block ${name}::" >&2`, code.replace(/localhost:3000/g, `127.0.0.1:${port}`)].join("\n")),
      'echo "::done::" >&2'
    ].join("\n")
    // in its own process group: the receiver the README starts in the background is in it too
    const shell = spawn("bash", ["-c", script], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    shell.stdout.on("data", (d) => (stdout += String(d)))
    shell.stderr.on("data", (d) => (stderr += String(d)))
    const closed = new Promise((resolve) => shell.once("close", resolve))
    const status = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => process.kill(-shell.pid!, "SIGKILL"), 120_000)
      shell.once("exit", (code) => {
        clearTimeout(timer)
        resolve(code)
      })
    })
    // the shell is done; Ctrl-C stops what it left running (the webhook receiver)
    try {
      process.kill(-shell.pid!, "SIGINT")
    } catch {
      // nothing left
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 15_000))])
    const failedIn = [...stderr.matchAll(/::block (.*)::/g)].pop()?.[1]
    expect(
      status,
      `the README block "${failedIn}" failed (exit ${status})\nstdout:\n${stdout.slice(-3000)}\nstderr:\n${stderr.slice(-3000)}\nserver:\n${serverLog.slice(-2000)}`
    ).toBe(0)
    expect(stderr).toContain("::done::")
    // what the README promises along the way
    expect(stdout).toContain('"status":"APPROVED"')
    expect(stdout).toMatch(/"phone":"\+15551230001"/) // STOP opted the customer out
    expect(stdout).toMatch(/"added":3/)
    expect(stdout).toMatch(/"status":"(active|completed)"/)
    // the receiver printed the caller events it verified, one JSON line each
    // (each is one write, so it is whole, but it may follow a curl answer before that one's newline)
    const events = [...stdout.matchAll(/\{"id":"evt_[^\n]*/g)].map((m) => JSON.parse(m[0]))
    expect(events.map((e) => e.type)).toContain("message.received")
    expect(events.find((e) => e.type === "message.received").data).toMatchObject({ from: "+15551230001", text: "hello" })
    expect(stderr).toMatch(/Ready: webhook whe_\w+ sends message\.status, message\.received/)
    // and Ctrl-C removed its registration
    expect(stderr).toMatch(/Removed webhook whe_\w+\./)
    const test = JSON.parse(/^\{"id":"str_.*$/m.exec(stdout)![0]).test_key as string
    const left = await fetch(`http://127.0.0.1:${port}/chat/webhooks`, { headers: { authorization: `Bearer ${test}` } })
    expect(((await left.json()) as { data: unknown }).data).toEqual([])
  }, 150_000)
})
