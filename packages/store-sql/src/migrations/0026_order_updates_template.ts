/**
 * Order updates outside the customer window (issue 28 item 3): the commerce settings name the
 * template (`{"name", "language"}` as JSON, null for none) that tells a customer about an order
 * without a payment request once the 24-hour window has closed.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("commerce_settings").addColumn("order_updates_template", "text").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("commerce_settings").dropColumn("order_updates_template").execute()
}
