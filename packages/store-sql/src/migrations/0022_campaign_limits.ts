/**
 * Campaigns that know the operator's limits and prices (issue 30):
 * - `messaging_limits`: the messaging limit tier of each store's operator account (business
 *   portfolio) per mode, read from the operator and kept current by its webhooks;
 * - `messaging_reach`: the unique recipients each portfolio reached per mode, with when
 *   (the rolling window counts those reached since `now - window`);
 * - `rate_cards`: the operator's price per category and recipient country (micro-units of
 *   the card's currency; `calling_code` matches phones to countries, `*` is the rest of the
 *   world), with the card's effective date and source;
 * - on recipients: `next_attempt_at` (while `waiting_for_limit` or `waiting_for_window`)
 *   and the `pricing` their status webhooks reported (`pricing_category`, `billable`);
 * - on campaigns: `limited_until` (when waiting recipients may go) and `send_window`
 *   (JSON `{"from","to"}`, recipients' local time).
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaigns").addColumn("limited_until", "bigint").execute()
  await db.schema.alterTable("campaigns").addColumn("send_window", "text").execute()
  await db.schema.alterTable("campaign_recipients").addColumn("next_attempt_at", "bigint").execute()
  await db.schema.alterTable("campaign_recipients").addColumn("pricing_category", "text").execute()
  await db.schema.alterTable("campaign_recipients").addColumn("billable", "integer").execute()
  await db.schema
    .createTable("messaging_limits")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("tier", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("messaging_limits_pkey", ["store_id", "mode"])
    .execute()
  await db.schema
    .createTable("messaging_reach")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("reached_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("messaging_reach_pkey", ["store_id", "mode", "phone"])
    .execute()
  await db.schema.createIndex("messaging_reach_at").on("messaging_reach").columns(["store_id", "mode", "reached_at"]).execute()
  await db.schema
    .createTable("rate_cards")
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("country", "text", (c) => c.notNull())
    .addColumn("calling_code", "text", (c) => c.notNull())
    .addColumn("price_micros", "bigint", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("effective_date", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("rate_cards_pkey", ["category", "country"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("rate_cards").execute()
  await db.schema.dropTable("messaging_reach").execute()
  await db.schema.dropTable("messaging_limits").execute()
  for (const column of ["billable", "pricing_category", "next_attempt_at"])
    await db.schema.alterTable("campaign_recipients").dropColumn(column).execute()
  for (const column of ["send_window", "limited_until"]) await db.schema.alterTable("campaigns").dropColumn(column).execute()
}
