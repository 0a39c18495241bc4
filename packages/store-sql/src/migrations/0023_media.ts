/**
 * Media (issue 32): the `media` rows of each store (the bytes are files in the media
 * directory, one per id), the operator's copy of each on a phone number
 * (`media_operator_copies`: its media id and when it was uploaded, for sends), and the
 * media or location header a campaign sends to every recipient (`campaigns.template_header`,
 * JSON, frozen at launch with the operator's media id).
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("media")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("mime_type", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("filename", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()
  await db.schema.createIndex("media_store").on("media").columns(["store_id", "id"]).execute()
  await db.schema
    .createTable("media_operator_copies")
    .addColumn("media_id", "text", (c) => c.notNull().references("media.id").onDelete("cascade"))
    .addColumn("phone_number_id", "text", (c) => c.notNull())
    .addColumn("operator_media_id", "text", (c) => c.notNull())
    .addColumn("uploaded_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("media_operator_copies_pk", ["media_id", "phone_number_id"])
    .execute()
  await db.schema.alterTable("campaigns").addColumn("template_header", "text").execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("campaigns").dropColumn("template_header").execute()
  await db.schema.dropTable("media_operator_copies").execute()
  await db.schema.dropTable("media").execute()
}
