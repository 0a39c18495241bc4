/**
 * `pnpm bench <name>`: runs bench/<name>.ts. Without a name, lists what exists.
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
