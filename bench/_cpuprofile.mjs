/**
 * Sums a V8 CPU profile (`node --cpu-prof`) by self time: per package, then per function.
 *   node bench/_cpuprofile.mjs <file.cpuprofile> [top=40] [filter] [skip-seconds=0]
 * A package is the npm package a script belongs to (`effect`, `@effect/platform`, …), a
 * workspace package (`@switchboard/http`), `node:` internals, or V8's own entries
 * (`(garbage collector)`, `(program)`, `(idle)`). `filter` keeps functions whose package or
 * location contains it; `skip-seconds` leaves out the first seconds (start-up). Scripts with a
 * source map next to them (the bundle of `pnpm build`) are mapped back to their sources.
 */
import { existsSync, readFileSync } from "node:fs"
import { SourceMap } from "node:module"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const [file, topArg, filterArg, skipArg] = process.argv.slice(2)
const top = Number(topArg ?? 40)
const filter = filterArg === "" ? undefined : filterArg
const skipUs = Number(skipArg ?? 0) * 1e6

const maps = new Map()
/** The original source of a bundled script's position, when the script has a source map. */
const original = (url, line, column) => {
  if (!url.startsWith("file://") || url.includes("/node_modules/")) return undefined
  if (!maps.has(url)) {
    const path = `${fileURLToPath(url)}.map`
    maps.set(url, existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, "utf8"))) : undefined)
  }
  const entry = maps.get(url)?.findEntry(line, column)
  if (entry?.originalSource === undefined) return undefined
  return { url: resolve(dirname(fileURLToPath(url)), entry.originalSource.replace(/^file:\/\//, "")), line: entry.originalLine }
}
const profile = JSON.parse(readFileSync(file, "utf8"))

const packageOf = (url, name) => {
  if (url === "") return name.startsWith("(") ? name : "(native)"
  if (url.startsWith("node:")) return "node:"
  const nm = url.lastIndexOf("/node_modules/")
  if (nm !== -1) {
    const parts = url.slice(nm + 14).split("/")
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]
  }
  const ws = url.match(/\/(packages|apps)\/([^/]+)\//)
  if (ws) return `@switchboard/${ws[2]}`
  return url
}

// self time per node from the samples and their time deltas (µs)
const selfUs = new Map()
let at = profile.startTime
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0
  if (at - profile.startTime < skipUs) continue
  const id = profile.samples[i]
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
}
let total = 0
const byPackage = new Map()
const byFunction = new Map()
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0
  if (us === 0) continue
  const { functionName, lineNumber: line0, columnNumber } = node.callFrame
  const mapped = original(node.callFrame.url, line0, columnNumber)
  const url = mapped?.url ?? node.callFrame.url
  const lineNumber = mapped?.line ?? line0
  const pkg = packageOf(url, functionName)
  if (pkg === "(idle)") continue
  total += us
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us)
  const where = url === "" ? "" : `${url.replace(/^.*\/(node_modules|packages|apps)\//, "")}:${lineNumber + 1}`
  const key = `${pkg}  ${functionName || "(anonymous)"}  ${where}`
  if (filter === undefined || key.includes(filter)) byFunction.set(key, (byFunction.get(key) ?? 0) + us)
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms`
console.log(`busy (not idle): ${(total / 1000).toFixed(0)} ms\n\nby package:`)
for (const [k, v] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`)
console.log("\nby function:")
for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`)
