/** A throw-away PostgreSQL database per test run, so runs never collide. */
import { Effect, type Scope } from "effect"
import pg from "pg"

export const adminUrl = process.env.SWITCHBOARD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/** Set by the root globalSetup when the server answered. */
export const available = process.env.SWITCHBOARD_POSTGRES_AVAILABLE === "1"

const admin = async <A>(f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Creates `sb_test_<random>` for the scope and drops it afterwards; answers its URL. */
export const testDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `sb_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`
      await admin((client) => client.query(`CREATE DATABASE ${name}`))
      const url = new URL(adminUrl)
      url.pathname = `/${name}`
      return { name, url: url.toString() }
    }),
    ({ name }) => Effect.promise(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  ),
  ({ url }) => url
)
