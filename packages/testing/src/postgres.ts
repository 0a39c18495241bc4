/**
 * The one helper that creates throw-away PostgreSQL databases, for tests and benchmarks
 * alike: a fresh `sb_test_<random>` database per run (so runs never collide), dropped with
 * `WITH (FORCE)` when the run ends.
 */
import { Effect, type Scope } from "effect"
import pg from "pg"

/** The server's maintenance database, where databases are created and dropped. */
export const postgresAdminUrl = process.env.SWITCHBOARD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

/**
 * Whether the PostgreSQL suites run: set by the root `test/globalSetup.ts`, which fails the
 * run when SWITCHBOARD_REQUIRE_POSTGRES=1 and the server is unreachable, and otherwise
 * announces loudly that they are skipped.
 */
export const postgresAvailable = process.env.SWITCHBOARD_POSTGRES_AVAILABLE === "1"

/** Answers whether a PostgreSQL server answers at `url` within two seconds; the error otherwise. */
export const probePostgres = async (
  url: string = postgresAdminUrl
): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: unknown }> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.end()
    return { ok: true }
  } catch (error) {
    return { ok: false, error }
  }
}

const admin = async (sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: postgresAdminUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A database of one run: its URL, and how to drop it (idempotent; closes its connections). */
export interface TestDatabase {
  readonly url: string
  readonly drop: () => Promise<void>
}

/** Creates a fresh `<prefix>_<random>` database (`sb_test` unless told, e.g. `sb_bench`). */
export const createPostgresDatabase = async (options: { readonly prefix?: string } = {}): Promise<TestDatabase> => {
  const name = `${options.prefix ?? "sb_test"}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(postgresAdminUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

/** `createPostgresDatabase` for the enclosing Scope: answers the URL, drops the database on release. */
export const testDatabase: Effect.Effect<string, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.promise(() => createPostgresDatabase()),
    (database) => Effect.promise(database.drop)
  ),
  (database) => database.url
)
