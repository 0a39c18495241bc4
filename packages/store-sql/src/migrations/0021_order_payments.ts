/**
 * Orders paid as WhatsApp runs it (issue 28): an order's payment request (`order_details`)
 * names our `reference_id` and the amount it asked for; payment webhooks find the order by
 * that reference. The updates sent to the customer are a JSON list on the order. A store's
 * commerce settings take its payment configuration (JSON, null for none).
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("payment_reference_id", "text").execute()
  await db.schema.alterTable("orders").addColumn("requested_amount", "bigint").execute()
  await db.schema
    .alterTable("orders")
    .addColumn("customer_updates", "text", (c) => c.notNull().defaultTo("[]"))
    .execute()
  await db.schema.createIndex("orders_payment_reference").on("orders").columns(["store_id", "mode", "payment_reference_id"]).unique().execute()
  await db.schema.alterTable("commerce_settings").addColumn("payments", "text").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("orders_payment_reference").execute()
  await db.schema.alterTable("commerce_settings").dropColumn("payments").execute()
  for (const column of ["customer_updates", "requested_amount", "payment_reference_id"])
    await db.schema.alterTable("orders").dropColumn(column).execute()
}
