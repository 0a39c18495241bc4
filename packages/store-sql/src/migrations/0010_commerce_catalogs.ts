/** Commerce: catalogs, per tenant; one operator catalog is at most one catalog of a tenant. */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("catalogs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("operator_catalog_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("connected", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("catalogs_store_mode_id_idx").on("catalogs").columns(["store_id", "mode", "id"]).execute()
  await db.schema.createIndex("catalogs_operator_catalog_uq").unique().on("catalogs").columns(["store_id", "mode", "operator_catalog_id"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("catalogs").execute()
}
