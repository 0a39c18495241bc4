/**
 * Commerce: shipping profiles, per tenant. At most one default per (store, mode): a partial
 * unique index (both SQLite and PostgreSQL have them) backs the transaction that switches it.
 */
import { type Kysely, sql } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("shipping_profiles")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("destinations", "text", (c) => c.notNull())
    .addColumn("handling_time", "text", (c) => c.notNull())
    .addColumn("is_default", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("shipping_profiles_store_mode_id_idx").on("shipping_profiles").columns(["store_id", "mode", "id"]).execute()
  await sql`CREATE UNIQUE INDEX shipping_profiles_one_default ON shipping_profiles (store_id, mode) WHERE is_default = 1`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("shipping_profiles").execute()
}
