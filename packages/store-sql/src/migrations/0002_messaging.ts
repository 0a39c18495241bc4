/**
 * The messaging backbone: customers (who wrote to the store), the opt-out list, outbound
 * messages and their status, inbound messages (deduplicated by wamid), and caller webhooks
 * (endpoints, events, delivery attempts). Every row belongs to a store and, except
 * deliveries (which belong to an endpoint), to a mode. Same conventions as 0001.
 */
import type { Kysely } from "kysely"

export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema
    .createTable("customers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("wa_id", "text", (c) => c.notNull())
    .addColumn("profile_name", "text")
    .addColumn("last_inbound_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("customers_store_mode_phone_key").unique().on("customers").columns(["store_id", "mode", "phone"]).execute()
  await db.schema.createIndex("customers_store_mode_id_idx").on("customers").columns(["store_id", "mode", "id"]).execute()

  await db.schema
    .createTable("opt_outs")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("opt_outs_pkey", ["store_id", "mode", "phone"])
    .execute()

  await db.schema
    .createTable("messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("to_phone", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("operator_message_id", "text")
    .addColumn("error_code", "integer")
    .addColumn("error_title", "text")
    .addColumn("flow_token", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("messages_store_operator_message_id_idx").on("messages").columns(["store_id", "operator_message_id"]).execute()

  await db.schema
    .createTable("inbound_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("operator_message_id", "text", (c) => c.notNull())
    .addColumn("from_phone", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("text", "text")
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex("inbound_messages_store_mode_operator_message_id_key")
    .unique()
    .on("inbound_messages")
    .columns(["store_id", "mode", "operator_message_id"])
    .execute()

  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("webhook_endpoints_store_mode_id_idx").on("webhook_endpoints").columns(["store_id", "mode", "id"]).execute()

  await db.schema
    .createTable("webhook_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
    .addColumn("event_id", "text", (c) => c.notNull().references("webhook_events.id").onDelete("cascade"))
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("webhook_deliveries_endpoint_id_idx").on("webhook_deliveries").columns(["endpoint_id", "id"]).execute()
  await db.schema.createIndex("webhook_deliveries_event_id_idx").on("webhook_deliveries").column("event_id").execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  for (const table of ["webhook_deliveries", "webhook_events", "webhook_endpoints", "inbound_messages", "messages", "opt_outs", "customers"]) {
    await db.schema.dropTable(table).execute()
  }
}
