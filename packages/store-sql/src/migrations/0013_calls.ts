/**
 * Calls: the permission of each customer with its request budget (one row per tenant and
 * phone, changed by compare-and-set on `version`), the calls (one operator call id per
 * tenant, by a partial unique index), and the call settings of each tenant (SIP passwords
 * apart, as secrets).
 */
import { type Kysely, sql } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("call_permissions")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint")
    .addColumn("request_times", "text", (c) => c.notNull())
    .addColumn("budget_reset_at", "bigint")
    .addColumn("last_request_message_id", "text")
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("call_permissions_pk", ["store_id", "mode", "phone"])
    .execute()
  await db.schema
    .createTable("calls")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("direction", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("operator_call_id", "text")
    .addColumn("offer_sdp", "text", (c) => c.notNull())
    .addColumn("answer_sdp", "text")
    .addColumn("payload", "text")
    .addColumn("end_status", "text")
    .addColumn("started_at", "bigint")
    .addColumn("ended_at", "bigint")
    .addColumn("duration_seconds", "integer")
    .addColumn("error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("calls_store_mode_id_idx").on("calls").columns(["store_id", "mode", "id"]).execute()
  await db.schema.createIndex("calls_store_mode_created_idx").on("calls").columns(["store_id", "mode", "created_at"]).execute()
  await sql`CREATE UNIQUE INDEX calls_operator_call_id ON calls (store_id, mode, operator_call_id) WHERE operator_call_id IS NOT NULL`.execute(db)
  await db.schema
    .createTable("call_settings")
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("sip_secrets", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("call_settings_pk", ["store_id", "mode"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("call_settings").execute()
  await db.schema.dropTable("calls").execute()
  await db.schema.dropTable("call_permissions").execute()
}
