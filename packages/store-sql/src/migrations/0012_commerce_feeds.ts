/** Commerce: product feeds, their uploads, and each upload's errors by row. */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("feeds")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("delimiter", "text", (c) => c.notNull())
    .addColumn("default_currency", "text")
    .addColumn("deletion_enabled", "integer", (c) => c.notNull())
    .addColumn("schedule", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("feeds_tenant_catalog_id_idx").on("feeds").columns(["store_id", "mode", "catalog_id", "id"]).execute()

  await db.schema
    .createTable("feed_uploads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("feed_id", "text", (c) => c.notNull())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("input_method", "text", (c) => c.notNull())
    .addColumn("filename", "text")
    .addColumn("url", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("num_detected_items", "integer", (c) => c.notNull())
    .addColumn("num_persisted_items", "integer", (c) => c.notNull())
    .addColumn("num_invalid_items", "integer", (c) => c.notNull())
    .addColumn("num_deleted_items", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("batch_handle", "text")
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("ended_at", "bigint")
    .execute()
  await db.schema.createIndex("feed_uploads_feed_id_idx").on("feed_uploads").columns(["feed_id", "id"]).execute()

  await db.schema
    .createTable("feed_upload_errors")
    .addColumn("upload_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("row_number", "integer", (c) => c.notNull())
    .addColumn("retailer_id", "text")
    .addColumn("field", "text")
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("severity", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("feed_upload_errors_pk", ["upload_id", "position"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["feed_upload_errors", "feed_uploads", "feeds"]) await db.schema.dropTable(table).execute()
}
