/**
 * The outbox of mirrored writes (`domain/src/shared/Mirror.ts`): one row per operator call a
 * prepared local write waits on. The sweep reads a row by id; `pending` lists a tenant's
 * unfinished rows of one kind.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("mirror_outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("mirror_outbox_pending").on("mirror_outbox").columns(["store_id", "mode", "kind", "status", "created_at"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("mirror_outbox").execute()
}
