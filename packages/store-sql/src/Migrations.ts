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

/**
 * Applies the pending migrations, or those up to and including `upTo` (a migration's name: a
 * migration's own test brings a database to just before it, fills it as it was then, and
 * migrates on); answers the names applied (empty when up to date). Rejects on failure.
 */
export const migrateToLatest = async (db: Kysely<any>, upTo?: string): Promise<ReadonlyArray<string>> => {
  const migrator = new Migrator({ db, provider })
  const { error, results } = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo)
  if (error !== undefined) throw error
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName)
}

/** `migrateToLatest` as an Effect. */
export const migrate = (db: Kysely<any>, upTo?: string): Effect.Effect<ReadonlyArray<string>, MigrationError> =>
  Effect.tryPromise({ try: () => migrateToLatest(db, upTo), catch: (cause) => new MigrationError({ cause }) })
