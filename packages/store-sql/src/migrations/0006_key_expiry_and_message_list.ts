/**
 * API keys may expire (`expires_at`, epoch ms; null: never): a rotated key keeps working
 * until the grace period its rotation set. Messages are listed newest first per tenant, on
 * an index of (store, mode, id).
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("expires_at", "bigint").execute()
  await db.schema.createIndex("messages_store_mode_id_idx").on("messages").columns(["store_id", "mode", "id"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("messages_store_mode_id_idx").execute()
  await db.schema.alterTable("api_keys").dropColumn("expires_at").execute()
}
