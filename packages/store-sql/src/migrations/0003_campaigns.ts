/**
 * Campaigns: the campaign row (with its frozen template, sender number, cursor and
 * counters), one row per recipient, the counter changes recorded by status reports (folded
 * into the campaign row from time to time, so status reports never contend on it), and one
 * lane row per sender number (its job and generation; the lock that orders a lane going
 * idle against a launch). Same conventions as 0001.
 */
import type { Kysely } from "kysely"

export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema
    .createTable("campaigns")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("template_name", "text", (c) => c.notNull())
    .addColumn("template_language", "text", (c) => c.notNull())
    .addColumn("template_category", "text")
    .addColumn("template_components", "text")
    .addColumn("parameters", "text", (c) => c.notNull())
    .addColumn("messages_per_second", "integer")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("scheduled_at", "bigint")
    .addColumn("phone_number_id", "text")
    .addColumn("paused_reason", "text")
    .addColumn("total", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pending", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("skipped", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("cancelled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("read", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_seq", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("cursor_seq", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("launched_at", "bigint")
    .addColumn("completed_at", "bigint")
    .addColumn("cancelled_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("campaigns_store_mode_id_idx").on("campaigns").columns(["store_id", "mode", "id"]).execute()
  await db.schema.createIndex("campaigns_store_mode_status_id_idx").on("campaigns").columns(["store_id", "mode", "status", "id"]).execute()
  await db.schema.createIndex("campaigns_status_phone_number_id_idx").on("campaigns").columns(["status", "phone_number_id"]).execute()
  await db.schema.createIndex("campaigns_status_scheduled_at_idx").on("campaigns").columns(["status", "scheduled_at"]).execute()

  await db.schema
    .createTable("campaign_recipients")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("campaign_id", "text", (c) => c.notNull().references("campaigns.id").onDelete("cascade"))
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("phone", "text")
    .addColumn("input", "text") // what the caller sent, when it differs from the phone
    .addColumn("customer_id", "text")
    .addColumn("parameters", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("skip_reason", "text")
    .addColumn("failure_code", "integer")
    .addColumn("failure_reason", "text")
    .addColumn("retryable", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("operator_message_id", "text")
    .addColumn("lane_attempt", "text")
    .addColumn("sending_at", "bigint")
    .addColumn("sent_at", "bigint")
    .addColumn("delivered_at", "bigint")
    .addColumn("read_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  // one row per phone and campaign; entries without a valid phone (skipped) have NULL, which never conflicts
  await db.schema.createIndex("campaign_recipients_campaign_phone_key").unique().on("campaign_recipients").columns(["campaign_id", "phone"]).execute()
  await db.schema.createIndex("campaign_recipients_campaign_seq_idx").on("campaign_recipients").columns(["campaign_id", "seq"]).execute()
  await db.schema
    .createIndex("campaign_recipients_campaign_status_seq_idx")
    .on("campaign_recipients")
    .columns(["campaign_id", "status", "seq"])
    .execute()

  await db.schema
    .createTable("campaign_counter_deltas")
    .addColumn("campaign_id", "text", (c) => c.notNull().references("campaigns.id").onDelete("cascade"))
    .addColumn("pending", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("cancelled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("read", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex("campaign_counter_deltas_campaign_idx").on("campaign_counter_deltas").column("campaign_id").execute()

  await db.schema
    .createTable("campaign_lanes")
    .addColumn("phone_number_id", "text", (c) => c.primaryKey())
    .addColumn("generation", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("job_id", "text")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  for (const table of ["campaign_lanes", "campaign_counter_deltas", "campaign_recipients", "campaigns"]) {
    await db.schema.dropTable(table).execute()
  }
}
