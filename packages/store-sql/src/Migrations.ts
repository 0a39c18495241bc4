/**
 * Brings a database to the latest schema with Kysely's Migrator. On PostgreSQL the Migrator
 * holds an advisory lock while it runs, so concurrent starts apply each migration once.
 */
import { Data, Effect } from "effect"
import { type Kysely, type Migration, Migrator } from "kysely"
import { migrations } from "./Repositories.js"

export { migrations }

/** A migration failed (or the database could not be reached to run them). */
export class MigrationError extends Data.TaggedError("MigrationError")<{ readonly cause: unknown }> {
  override get message(): string {
    return `Database migration failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

const provider = { getMigrations: async (): Promise<Record<string, Migration>> => ({ ...migrations }) }

/** Applies the pending migrations; answers the names applied (empty when up to date). Rejects on failure. */
export const migrateToLatest = async (db: Kysely<any>): Promise<ReadonlyArray<string>> => {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error !== undefined) throw error
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName)
}

/** `migrateToLatest` as an Effect. */
export const migrate = (db: Kysely<any>): Effect.Effect<ReadonlyArray<string>, MigrationError> =>
  Effect.tryPromise({ try: () => migrateToLatest(db), catch: (cause) => new MigrationError({ cause }) })
