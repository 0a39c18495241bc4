/**
 * The README's first hour, as a newcomer runs it: the server started as "The two commands"
 * says (`pnpm start`: SQLite and the built-in emulator), then every ```sh block of the
 * walk-through sections, in order, in one bash session, exactly as written. Substituted:
 * the port (`localhost:3000` becomes a free port) and the example webhook URL (a local
 * receiver, with private URLs allowed, as this machine has no network). `curl` fails on an
 * error answer and `jq` on a missing value, so a step that breaks fails the test and names
 * its block.
 */
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, root, startReceiver } from "./harness.js"

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
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let port: number
  let env: Record<string, string>
  let serverLog = ""

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-readme-"))
    port = await freePort()
    receiver = await startReceiver()
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
    receiver?.server.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("every block succeeds, in order, in one shell", () => {
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
      ...blocks.map(({ name, code }) =>
        [
          `echo "::block ${name}::" >&2`,
          code.replace(/localhost:3000/g, `127.0.0.1:${port}`).replace(/https:\/\/example\.com\/hook/g, receiver.url)
        ].join("\n")
      ),
      'echo "::done::" >&2'
    ].join("\n")
    const run = spawnSync("bash", ["-c", script], { cwd: root, env, encoding: "utf8", timeout: 120_000 })
    const failedIn = [...run.stderr.matchAll(/::block (.*)::/g)].pop()?.[1]
    expect(
      run.status,
      `the README block "${failedIn}" failed (exit ${run.status})\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-3000)}\nserver:\n${serverLog.slice(-2000)}`
    ).toBe(0)
    expect(run.stderr).toContain("::done::")
    // what the README promises along the way
    expect(run.stdout).toContain('"status":"APPROVED"')
    expect(run.stdout).toMatch(/"phone":"\+15551230001"/) // STOP opted the customer out
    expect(run.stdout).toMatch(/"added":3/)
    expect(run.stdout).toMatch(/"status":"(active|completed)"/)
  }, 150_000)
})
