/**
 * Commerce: orders (one per cart message of a tenant: unique on the message's wamid) and
 * their records (payments, refunds, cancellations, shipments, returns) in one table, kind
 * apart; a record's key (idempotency key, payment transaction) is unique per order and kind.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("orders")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("catalog_id", "text")
    .addColumn("operator_catalog_id", "text", (c) => c.notNull())
    .addColumn("source_message_id", "text", (c) => c.notNull())
    .addColumn("customer_phone", "text", (c) => c.notNull())
    .addColumn("note", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("payment_status", "text", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("total", "bigint", (c) => c.notNull())
    .addColumn("captured", "bigint", (c) => c.notNull())
    .addColumn("refunded", "bigint", (c) => c.notNull())
    .addColumn("items", "text", (c) => c.notNull())
    .addColumn("cart", "text", (c) => c.notNull())
    .addColumn("acknowledged_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("orders_source_message").on("orders").columns(["store_id", "mode", "source_message_id"]).unique().execute()
  await db.schema.createIndex("orders_store_mode_id_idx").on("orders").columns(["store_id", "mode", "id"]).execute()
  await db.schema.createIndex("orders_store_mode_status_idx").on("orders").columns(["store_id", "mode", "status", "id"]).execute()
  await db.schema.createIndex("orders_store_mode_payment_idx").on("orders").columns(["store_id", "mode", "payment_status", "id"]).execute()

  await db.schema
    .createTable("order_records")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("order_id", "text", (c) => c.notNull().references("orders.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text")
    .addColumn("record_key", "text")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("order_records_key").on("order_records").columns(["order_id", "kind", "record_key"]).unique().execute()
  await db.schema.createIndex("order_records_order_idx").on("order_records").columns(["order_id", "kind", "id"]).execute()
  await db.schema.createIndex("order_records_store_kind_idx").on("order_records").columns(["store_id", "mode", "kind", "id"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("order_records").execute()
  await db.schema.dropTable("orders").execute()
}
