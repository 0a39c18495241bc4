/**
 * Feed uploads (issue 29 item 6): the checked rows of an upload wait in `product_staging`
 * (by upload, in file order) until the whole file is known good, then go to `products` in
 * one statement per group; a malformed file leaves `products` untouched and its rows are
 * dropped. No index but the key: rows are written and read back in order, once.
 */
import type { Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("product_staging")
    .addColumn("upload_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("retailer_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("price", "bigint", (c) => c.notNull())
    .addColumn("sale_price", "bigint")
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("availability", "text", (c) => c.notNull())
    .addColumn("condition", "text", (c) => c.notNull())
    .addColumn("image_url", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("brand", "text")
    .addColumn("category", "text")
    .addColumn("inventory", "bigint")
    .addColumn("visibility", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("product_staging_pk", ["upload_id", "seq"])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("product_staging").execute()
}
