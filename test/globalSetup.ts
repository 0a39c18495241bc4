/**
 * Decides once per run whether the PostgreSQL suites run (`postgresAvailable` of
 * `@switchboard/testing` reads the answer), and announces loudly when they are skipped.
 * `.ci/run` sets SWITCHBOARD_REQUIRE_POSTGRES=1 and then a missing server is a failure.
 *
 * Also bundles the CLI from the current sources, once per run, to a folder of its own
 * (`SWITCHBOARD_TEST_BUNDLE`): the end-to-end tests start their servers and CLI calls from it
 * (`cliArgs`), each in a fraction of the CPU time tsx takes, and the folder is removed after
 * the run. SWITCHBOARD_TEST_FROM_SOURCE=1 runs them through tsx instead.
 */
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import { createRequire } from "node:module"
import { basename, join } from "node:path"
import { postgresAdminUrl, probePostgres, root } from "@switchboard/testing"

const bundle = async () => {
  if (process.env.SWITCHBOARD_TEST_FROM_SOURCE === "1") return () => {}
  const folder = `.test-bundle-${process.pid}`
  const app = join(root, "apps/server")
  execFileSync(process.execPath, [join(app, "scripts/build.mjs"), "--outdir", folder], { cwd: app, stdio: ["ignore", "ignore", "inherit"] })
  process.env.SWITCHBOARD_TEST_BUNDLE = join(app, folder, "main.js")
  await bundleEntries(app, join(app, folder, "entries"))
  return () => rmSync(join(app, folder), { recursive: true, force: true })
}

/** Processes the tests start from TypeScript entry points (see `entryArgs` of `@switchboard/testing`). */
const ENTRIES = [
  "apps/server/test/fixtures/worker.ts",
  "apps/server/test/fixtures/job-worker.ts",
  "apps/server/test/fixtures/campaign-lane.ts",
  "packages/operator-emulator/src/main.ts"
]

const bundleEntries = async (app: string, outdir: string) => {
  const { nodeBundle } = (await import(join(app, "scripts/bundle-options.mjs"))) as { nodeBundle: Record<string, unknown> }
  const { buildSync } = createRequire(join(app, "package.json"))("esbuild") as { buildSync: (options: Record<string, unknown>) => unknown }
  const entryPoints = Object.fromEntries(ENTRIES.map((e, i) => [`${i}-${basename(e, ".ts")}`, join(root, e)]))
  buildSync({
    entryPoints,
    outdir,
    bundle: true,
    ...nodeBundle,
    logLevel: "warning"
  })
  process.env.SWITCHBOARD_TEST_ENTRIES = Object.entries(entryPoints)
    .map(([name, source]) => `${source}=${join(outdir, `${name}.js`)}`)
    .join(",")
}

export default async function setup() {
  const removeBundle = await bundle()
  await probe()
  return removeBundle
}

async function probe() {
  const url = postgresAdminUrl
  process.env.SWITCHBOARD_TEST_POSTGRES_URL = url
  const probe = await probePostgres(url)
  if (probe.ok) {
    process.env.SWITCHBOARD_POSTGRES_AVAILABLE = "1"
    return
  }
  if (process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1") {
    throw new Error(`PostgreSQL is required (SWITCHBOARD_REQUIRE_POSTGRES=1) but ${url} is unreachable: ${String(probe.error)}`)
  }
  process.env.SWITCHBOARD_POSTGRES_AVAILABLE = "0"
  const line = "!".repeat(78)
  console.warn(`\n${line}\n!! PostgreSQL is not reachable at ${url}\n!! The PostgreSQL suites are SKIPPED. Only SQLite was tested.\n${line}\n`)
}
