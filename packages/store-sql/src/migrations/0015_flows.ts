/**
 * Flows (migration 0015): flows per tenant with their lineage of versions; flow sends (one
 * row per flow message, by flow_token); flow responses (one per operator message id, so a
 * duplicate webhook stores one); the hosted data endpoint's request log (for the stats); the
 * data endpoint's key pair per tenant (the private key stored encrypted).
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("flows")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("categories", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("previous_version_id", "text")
    .addColumn("lineage_id", "text", (c) => c.notNull())
    .addColumn("json", "text")
    .addColumn("json_version", "text")
    .addColumn("validation_errors", "text", (c) => c.notNull())
    .addColumn("endpoint_url", "text")
    .addColumn("operator_flow_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("flows_store_mode_id_idx").on("flows").columns(["store_id", "mode", "id"]).execute()
  await db.schema.createIndex("flows_lineage_idx").on("flows").columns(["store_id", "mode", "lineage_id", "version"]).execute()
  await db.schema.createIndex("flows_operator_id_idx").on("flows").columns(["operator_flow_id"]).execute()

  await db.schema
    .createTable("flow_sends")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("flow_id", "text", (c) => c.notNull())
    .addColumn("flow_token", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("to_phone", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("flow_sends_token_idx").on("flow_sends").columns(["store_id", "mode", "flow_token"]).execute()
  await db.schema.createIndex("flow_sends_flow_idx").on("flow_sends").columns(["flow_id", "created_at"]).execute()

  await db.schema
    .createTable("flow_responses")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("flow_id", "text")
    .addColumn("send_id", "text")
    .addColumn("flow_token", "text")
    .addColumn("operator_message_id", "text", (c) => c.notNull())
    .addColumn("from_phone", "text", (c) => c.notNull())
    .addColumn("response_json", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex("flow_responses_message_uq")
    .unique()
    .on("flow_responses")
    .columns(["store_id", "mode", "operator_message_id"])
    .execute()
  await db.schema.createIndex("flow_responses_flow_idx").on("flow_responses").columns(["store_id", "mode", "flow_id", "id"]).execute()
  await db.schema.createIndex("flow_responses_token_idx").on("flow_responses").columns(["store_id", "mode", "flow_token"]).execute()

  await db.schema
    .createTable("flow_endpoint_calls")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("flow_id", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("http_status", "integer", (c) => c.notNull())
    .addColumn("ok", "integer", (c) => c.notNull())
    .addColumn("latency_ms", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("flow_endpoint_calls_flow_idx").on("flow_endpoint_calls").columns(["flow_id", "at"]).execute()

  await db.schema
    .createTable("flow_keys")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone_number_id", "text", (c) => c.notNull())
    .addColumn("public_key", "text", (c) => c.notNull())
    .addColumn("private_key", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("flow_keys_pk", ["store_id", "mode"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["flow_keys", "flow_endpoint_calls", "flow_responses", "flow_sends", "flows"]) await db.schema.dropTable(table).execute()
}
