#!/usr/bin/env node
// The `switchboard` CLI. It runs the built bundle (`dist/main.js`, made by `pnpm build` or by
// `pnpm install`'s prepare step) in this process when the bundle is newer than every source
// it was built from; otherwise (no build yet, or sources edited since) it runs the TypeScript
// sources through tsx in a child node process that gets this one's node flags
// (`node --max-old-space-size=4096 switchboard.mjs serve`). SWITCHBOARD_FROM_SOURCE=1 forces
// the sources; SWITCHBOARD_LAUNCH_TRACE=1 prints which one runs, to stderr.
import { spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const app = join(dirname(fileURLToPath(import.meta.url)), "..")
const built = join(app, "dist", "main.js")
const stamp = join(app, "dist", "BUILT")

/** Newest modification time (ms) of the files under `dir` (0 when it does not exist). */
const newest = (dir) => {
  let latest = 0
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs
    if (time > latest) latest = time
  }
  return latest
}

/** The bundle is current when it is newer than the server's sources and every workspace package's. */
const bundleIsCurrent = () => {
  if (!existsSync(built) || !existsSync(stamp)) return false
  const builtAt = statSync(stamp).mtimeMs
  const sources = [join(app, "src")]
  const packages = join(app, "..", "..", "packages")
  if (existsSync(packages)) for (const name of readdirSync(packages)) sources.push(join(packages, name, "src"))
  return sources.every((dir) => newest(dir) <= builtAt)
}

const fromSource = process.env.SWITCHBOARD_FROM_SOURCE === "1" || !bundleIsCurrent()
if (process.env.SWITCHBOARD_LAUNCH_TRACE === "1") process.stderr.write(`switchboard: running ${fromSource ? "the sources (tsx)" : "dist/main.js"}\n`)

if (!fromSource) {
  await import(pathToFileURL(built).href)
} else {
  const tsx = createRequire(import.meta.url).resolve("tsx")
  const main = join(app, "src", "main.ts")
  const child = spawn(process.execPath, [...process.execArgv, "--conditions=@switchboard/source", "--import", tsx, main, ...process.argv.slice(2)], {
    stdio: "inherit"
  })
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)))
}
