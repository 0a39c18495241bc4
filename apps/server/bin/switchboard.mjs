#!/usr/bin/env node
// Runs the `switchboard` CLI from its TypeScript sources (no build step needed), in a child
// node process that gets this one's node flags (`node --max-old-space-size=4096 switchboard.mjs serve`).
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const tsx = require.resolve("tsx")
const main = join(here, "..", "src", "main.ts")
const child = spawn(process.execPath, [...process.execArgv, "--conditions=@switchboard/source", "--import", tsx, main, ...process.argv.slice(2)], {
  stdio: "inherit"
})
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
child.on("exit", (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)))
