/**
 * On PostgreSQL, `product_staging` is UNLOGGED: its rows are a feed upload's scratch (written
 * once, read back once, dropped), so they skip the write-ahead log, about as many bytes again
 * as the rows themselves. A crash empties the table, which loses nothing: an upload a crash
 * interrupts is never finished from its staged rows. SQLite: nothing (its staging table is a
 * TEMP table of the connection's, `StoreSqlite.ts`).
 */
import { type Kysely, PostgresAdapter, sql } from "kysely"

const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table product_staging set unlogged`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`alter table product_staging set logged`.execute(db)
}
