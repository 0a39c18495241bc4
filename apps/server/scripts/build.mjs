#!/usr/bin/env node
/**
 * Builds the `switchboard` CLI to `dist/`: esbuild bundles `src/main.ts` with the TypeScript
 * sources of the workspace packages (the `@switchboard/source` condition, so no package needs
 * building first) into a few ES modules. A command loads only its own chunk (`serve` and
 * `worker` the server's modules, `stores` the store's), and node parses one bundle instead of
 * hundreds of files: a CLI call starts in a fraction of the time `tsx` takes. Native and
 * optional modules (better-sqlite3, pg-native) stay external. Type checking is `pnpm
 * typecheck`'s job. `bin/switchboard.mjs` runs this output when it is newer than the sources
 * (the `BUILT` stamp). `FeedCheckWorker` is the script of the thread that checks a large
 * feed file (`@switchboard/outbound`'s `FeedFiles` starts it from the file next to its own
 * chunk: `dist/FeedCheckWorker.js`).
 */
import { build } from "esbuild"
import { nodeBundle } from "./bundle-options.mjs"
import { rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const app = join(dirname(fileURLToPath(import.meta.url)), "..")
// `--outdir <dir>` (relative to apps/server) builds elsewhere, for tests
const outdirFlag = process.argv.indexOf("--outdir")
const outdir = outdirFlag === -1 ? "dist" : process.argv[outdirFlag + 1]
const dist = join(app, outdir)
rmSync(dist, { recursive: true, force: true })
const started = Date.now()
await build({
  absWorkingDir: app,
  entryPoints: { main: "src/main.ts", FeedCheckWorker: "../../packages/outbound/src/FeedCheckWorker.ts" },
  outdir,
  bundle: true,
  splitting: true,
  ...nodeBundle,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: "linked",
  logLevel: "warning"
})
// the launcher compares the sources' times with this stamp's
writeFileSync(join(dist, "BUILT"), `${new Date(started).toISOString()}\n`)
console.log(`switchboard CLI built to ${dist} in ${Date.now() - started} ms`)
