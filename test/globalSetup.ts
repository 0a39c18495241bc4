/**
 * Announces loudly when the PostgreSQL suites are going to be skipped.
 * `.ci/run` sets SWITCHBOARD_REQUIRE_POSTGRES=1 and then a missing server is a failure.
 */
import { Client } from "pg"

export default async function setup() {
  const url = process.env.SWITCHBOARD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  process.env.SWITCHBOARD_TEST_POSTGRES_URL = url
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.end()
    process.env.SWITCHBOARD_POSTGRES_AVAILABLE = "1"
  } catch (error) {
    if (process.env.SWITCHBOARD_REQUIRE_POSTGRES === "1") {
      throw new Error(`PostgreSQL is required (SWITCHBOARD_REQUIRE_POSTGRES=1) but ${url} is unreachable: ${String(error)}`)
    }
    process.env.SWITCHBOARD_POSTGRES_AVAILABLE = "0"
    const line = "!".repeat(78)
    console.warn(`\n${line}\n!! PostgreSQL is not reachable at ${url}\n!! The PostgreSQL suites are SKIPPED. Only SQLite was tested.\n${line}\n`)
  }
}
