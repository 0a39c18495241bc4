/**
 * The foundation: stores and their API keys, templates, the job queue, the inbox of operator
 * webhooks and idempotency keys. Dialect-neutral: timestamps are `bigint` epoch milliseconds
 * (INTEGER affinity on SQLite), JSON is text.
 */
import type { Kysely } from "kysely"

export const up = async (db: Kysely<any>): Promise<void> => {
  await db.schema
    .createTable("stores")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("sandbox_waba_id", "text", (c) => c.notNull())
    .addColumn("sandbox_phone_number_id", "text", (c) => c.notNull())
    .addColumn("sandbox_display_phone", "text", (c) => c.notNull())
    .addColumn("live_waba_id", "text")
    .addColumn("live_phone_number_id", "text")
    .addColumn("live_display_phone", "text")
    .execute()
  for (const column of ["sandbox_waba_id", "sandbox_phone_number_id", "live_waba_id", "live_phone_number_id"]) {
    await db.schema.createIndex(`stores_${column}_key`).unique().on("stores").column(column).execute()
  }

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull().unique())
    .addColumn("hint", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("api_keys_store_id_idx").on("api_keys").column("store_id").execute()

  await db.schema
    .createTable("templates")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("components", "text", (c) => c.notNull())
    .addColumn("rejected_reason", "text")
    .addColumn("operator_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("templates_store_name_language_key").unique().on("templates").columns(["store_id", "name", "language"]).execute()
  await db.schema.createIndex("templates_store_id_idx").on("templates").columns(["store_id", "id"]).execute()
  await db.schema.createIndex("templates_store_status_id_idx").on("templates").columns(["store_id", "status", "id"]).execute()

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("run_at", "bigint", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("locked_by", "text")
    .addColumn("lease_expires_at", "bigint")
    .addColumn("dedupe_key", "text", (c) => c.unique())
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("jobs_status_run_at_idx").on("jobs").columns(["status", "run_at"]).execute()

  await db.schema
    .createTable("inbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("processed_at", "bigint")
    .addColumn("outcome", "text")
    .execute()

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pkey", ["scope", "key"])
    .execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  for (const table of ["idempotency_keys", "inbox", "jobs", "templates", "api_keys", "stores"]) {
    await db.schema.dropTable(table).execute()
  }
}
