/**
 * For the migration tests: the store's own migrate, to the latest schema or up to a migration
 * (a test brings a database to just before the migration it checks and fills it as it was
 * then), and plain SQL on a test database.
 */
import { Effect } from "effect"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import type { DIALECTS } from "@switchboard/testing"

/** Runs the statements in order on the database at `url`; answers the last one's rows. */
export const run = async (dialect: (typeof DIALECTS)[number], url: string, statements: ReadonlyArray<string>): Promise<Array<any>> => {
  if (dialect.id === "postgres") {
    const { Client } = await import("pg")
    const client = new Client({ connectionString: url })
    await client.connect()
    try {
      let rows: Array<any> = []
      for (const sql of statements) rows = (await client.query(sql)).rows
      return rows
    } finally {
      await client.end()
    }
  }
  const { default: Sqlite } = await import("better-sqlite3")
  const db = new Sqlite(url)
  try {
    let rows: Array<any> = []
    for (const sql of statements) {
      const statement = db.prepare(sql)
      if (statement.reader) rows = statement.all()
      else {
        statement.run()
        rows = []
      }
    }
    return rows
  } finally {
    db.close()
  }
}

/** Brings the database at `url` to the latest schema, or up to the migration `upTo`; answers the migrations applied. */
export const migrate = (dialect: (typeof DIALECTS)[number], url: string, upTo?: string) =>
  Effect.runPromise(dialect.id === "postgres" ? StorePostgres.migrate(url, upTo) : StoreSqlite.migrate(url, upTo))
