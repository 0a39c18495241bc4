/**
 * Decides once per run whether the PostgreSQL suites run (`postgresAvailable` of
 * `@switchboard/testing` reads the answer), and announces loudly when they are skipped.
 * `.ci/run` sets SWITCHBOARD_REQUIRE_POSTGRES=1 and then a missing server is a failure.
 */
import { postgresAdminUrl, probePostgres } from "@switchboard/testing"

export default async function setup() {
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
