/**
 * `pnpm bench <name>`: runs bench/<name>.ts. Without a name, lists what exists.
 *
 * Every bench runs our server as `pnpm start` does: the built bundle with plain node
 * (`startServerProcess` in `_util.ts`; rebuilt first when a source is newer than it).
 * BENCH_FROM_SOURCE=1 runs the TypeScript sources through tsx instead, and
 * BENCH_SERVER_BUNDLE=<main.js> a bundle built elsewhere (`node apps/server/scripts/build.mjs
 * --outdir <dir>` in another checkout), to pair before and after.
 */
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const available = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.replace(/\.ts$/, ""))

const name = process.argv[2]
if (name === undefined || !available.includes(name)) {
  console.error(`usage: pnpm bench <${available.join("|")}>`)
  process.exit(name === undefined ? 0 : 1)
}
await import(join(here, `${name}.ts`))
