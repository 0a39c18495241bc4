/**
 * Recipient ingestion by COPY (issue 29, ingestion): on PostgreSQL a request's rows are first
 * copied into `campaign_recipient_staging` (by COPY, which commits on its own), then moved to
 * `campaign_recipients` by one `INSERT … SELECT` in the request's transaction, which also
 * deletes them: a refused or failed request leaves nothing in `campaign_recipients`. UNLOGGED
 * on PostgreSQL (scratch rows, written once and read back once: a crash that empties the table
 * loses no request that was answered); no index, the table only ever holds the requests in
 * flight. SQLite has the table too (the same schema on both stores) and never writes it.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely"

const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("campaign_recipient_staging")
    .addColumn("batch", "text", (c) => c.notNull())
    .addColumn("pos", "integer", (c) => c.notNull())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("input", "text")
    .addColumn("customer_id", "text")
    .addColumn("parameters", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("skip_reason", "text")
    .addColumn("zone_id", "integer")
    .addColumn("staged_at", "bigint", (c) => c.notNull())
    .execute()
  if (isPostgres(db)) await sql`alter table campaign_recipient_staging set unlogged`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("campaign_recipient_staging").execute()
}
