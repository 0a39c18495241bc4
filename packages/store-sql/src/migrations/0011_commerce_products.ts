/**
 * Commerce: products (unique by retailer id within their catalog) with their errors, one
 * row each; product batches with their chunks (the checked requests as JSON, at most 5,000
 * each, and the operator's handle once it took one) and their errors.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("products")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("retailer_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("price", "bigint", (c) => c.notNull())
    .addColumn("sale_price", "bigint")
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("availability", "text", (c) => c.notNull())
    .addColumn("condition", "text", (c) => c.notNull())
    .addColumn("image_url", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("brand", "text")
    .addColumn("category", "text")
    .addColumn("inventory", "bigint")
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("review_status", "text", (c) => c.notNull())
    .addColumn("errors", "text", (c) => c.notNull())
    .addColumn("error_count", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("products_catalog_retailer_uq").unique().on("products").columns(["catalog_id", "retailer_id"]).execute()
  await db.schema.createIndex("products_tenant_catalog_id_idx").on("products").columns(["store_id", "mode", "catalog_id", "id"]).execute()

  await db.schema
    .createTable("product_errors")
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("retailer_id", "text", (c) => c.notNull())
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("store_id", "text", (c) => c.notNull())
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("product_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("product_errors_pk", ["catalog_id", "retailer_id", "n"])
    .execute()

  await db.schema
    .createTable("product_batches")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("allow_upsert", "integer", (c) => c.notNull())
    .addColumn("total", "integer", (c) => c.notNull())
    .addColumn("processed", "integer", (c) => c.notNull())
    .addColumn("succeeded", "integer", (c) => c.notNull())
    .addColumn("failed", "integer", (c) => c.notNull())
    .addColumn("error_count", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint")
    .execute()
  await db.schema
    .createIndex("product_batches_tenant_catalog_id_idx")
    .on("product_batches")
    .columns(["store_id", "mode", "catalog_id", "id"])
    .execute()

  await db.schema
    .createTable("product_batch_chunks")
    .addColumn("batch_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("catalog_id", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("requests", "text", (c) => c.notNull())
    .addColumn("handle", "text")
    .addColumn("sent_at", "bigint")
    .addColumn("next_poll_at", "bigint")
    .addColumn("finished", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("product_batch_chunks_pk", ["batch_id", "seq"])
    .execute()
  await db.schema.createIndex("product_batch_chunks_catalog_sent_idx").on("product_batch_chunks").columns(["catalog_id", "sent_at"]).execute()

  await db.schema
    .createTable("product_batch_errors")
    .addColumn("batch_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("idx", "integer", (c) => c.notNull())
    .addColumn("retailer_id", "text")
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("field", "text")
    .addPrimaryKeyConstraint("product_batch_errors_pk", ["batch_id", "position"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["product_batch_errors", "product_batch_chunks", "product_batches", "product_errors", "products"])
    await db.schema.dropTable(table).execute()
}
