/**
 * The `switchboard` launcher (`bin/switchboard.mjs`) and the built CLI:
 * - it runs the bundle in `dist/` when the bundle is newer than every source, and the
 *   sources through tsx otherwise (no build yet, a source edited since, or
 *   SWITCHBOARD_FROM_SOURCE=1), with the same exit code either way;
 * - a CLI call from the bundle costs less than half the CPU of the same call from the sources
 *   through tsx (measured on `stores list`; the absolute cost is a machine's, not a test's).
 */
import { execFile, spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { root } from "@switchboard/testing"
import { afterAll, describe, expect, it } from "vitest"

const app = join(root, "apps/server")
const scratch = join(app, `.test-launch-${process.pid}`)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("the launcher", () => {
  // a fake app: the real launcher, a "built" main and a "source" main that say which they are
  const fake = join(scratch, "app")
  mkdirSync(join(fake, "bin"), { recursive: true })
  mkdirSync(join(fake, "dist"), { recursive: true })
  mkdirSync(join(fake, "src"), { recursive: true })
  copyFileSync(join(app, "bin/switchboard.mjs"), join(fake, "bin/switchboard.mjs"))
  writeFileSync(
    join(fake, "src/main.ts"),
    'const which: string = "sources"\nconsole.log(which, process.argv.slice(2).join(" "))\nprocess.exitCode = 3\n'
  )
  writeFileSync(join(fake, "dist/main.js"), 'console.log("built", process.argv.slice(2).join(" "))\nprocess.exitCode = 3\n')
  const launch = (env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(fake, "bin/switchboard.mjs"), "stores", "list"], {
      encoding: "utf8",
      env: { ...process.env, SWITCHBOARD_FROM_SOURCE: "", ...env }
    })
    return { out: r.stdout.trim(), code: r.status }
  }
  const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds)

  it("runs the bundle when it is newer than the sources, else the sources, with the same exit code", () => {
    // no build stamp yet: the sources
    expect(launch()).toEqual({ out: "sources stores list", code: 3 })
    writeFileSync(join(fake, "dist/BUILT"), "now\n")
    at(join(fake, "src/main.ts"), 1_000_000)
    at(join(fake, "dist/BUILT"), 2_000_000)
    expect(launch()).toEqual({ out: "built stores list", code: 3 })
    expect(launch({ SWITCHBOARD_FROM_SOURCE: "1" })).toEqual({ out: "sources stores list", code: 3 })
    // a source edited after the build: the sources again
    mkdirSync(join(fake, "src/cli"), { recursive: true })
    writeFileSync(join(fake, "src/cli/new.ts"), "export {}\n")
    at(join(fake, "src/cli/new.ts"), 3_000_000)
    expect(launch()).toEqual({ out: "sources stores list", code: 3 })
  })
})

const run = promisify(execFile)

/** CPU seconds (user + system) and wall seconds of one child run, from bash's `times` (asynchronous: vitest's worker must stay responsive). */
const measure = async (command: string, env: Record<string, string>) => {
  const started = process.hrtime.bigint()
  const { stdout } = await run("bash", ["-c", `${command} >/dev/null 2>&1; times`], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" })
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  const children = stdout.trim().split("\n").at(-1)!
  const [user, system] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
  return { cpu: user + system, wall }
}

describe("the built CLI", () => {
  it("a call from the bundle costs a fraction of the CPU of the sources through tsx", { timeout: 300_000 }, async () => {
    const outdir = `.test-launch-${process.pid}/dist`
    await run(process.execPath, [join(app, "scripts/build.mjs"), "--outdir", outdir], { cwd: app, encoding: "utf8" })
    const env = { DATABASE_URL: join(scratch, "timing.sqlite") }
    const tsx = `node --conditions=@switchboard/source --import tsx ${join(app, "src/main.ts")} stores list`
    const built = `node ${join(app, outdir, "main.js")} stores list`
    await measure(built, env) // creates and migrates the database
    const runs: Array<{ built: { cpu: number; wall: number }; tsx: { cpu: number; wall: number } }> = []
    for (let i = 0; i < 3; i++) runs.push({ built: await measure(built, env), tsx: await measure(tsx, env) })
    const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[1]
    const result = {
      builtCpu: median(runs.map((r) => r.built.cpu)),
      builtWall: median(runs.map((r) => r.built.wall)),
      tsxCpu: median(runs.map((r) => r.tsx.cpu)),
      tsxWall: median(runs.map((r) => r.tsx.wall))
    }
    console.log(
      `switchboard stores list: bundle ${result.builtCpu.toFixed(2)} s CPU / ${result.builtWall.toFixed(2)} s wall; tsx ${result.tsxCpu.toFixed(2)} s CPU / ${result.tsxWall.toFixed(2)} s wall`
    )
    expect(result.builtCpu).toBeLessThan(result.tsxCpu / 2)
  })
})
