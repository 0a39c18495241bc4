/** Commerce settings: one row per tenant (store, mode). */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("commerce_settings")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("is_cart_enabled", "integer", (c) => c.notNull())
    .addColumn("is_catalog_visible", "integer", (c) => c.notNull())
    .addColumn("country", "text")
    .addColumn("currency", "text")
    .addColumn("updated_at", "bigint")
    .addPrimaryKeyConstraint("commerce_settings_pk", ["store_id", "mode"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("commerce_settings").execute()
}
