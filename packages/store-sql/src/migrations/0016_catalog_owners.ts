/**
 * Catalog owners (migration 0016): one row per operator catalog, naming the one store that
 * may hold it (created it, or connected it first). Its primary key is what keeps two stores
 * from connecting the same operator catalog, even when both try at once. A store keeps its
 * claim after it deletes the catalog: the operator catalog never becomes another store's.
 *
 * Existing catalogs: each operator catalog goes to the store whose catalog row is the oldest.
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("catalog_owners")
    .addColumn("operator_catalog_id", "text", (c) => c.primaryKey())
    .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute()
  await sql`
    INSERT INTO catalog_owners (operator_catalog_id, store_id, created_at)
    SELECT c.operator_catalog_id, c.store_id, c.created_at FROM catalogs c
    WHERE NOT EXISTS (
      SELECT 1 FROM catalogs e
      WHERE e.operator_catalog_id = c.operator_catalog_id
        AND (e.created_at < c.created_at OR (e.created_at = c.created_at AND e.id < c.id))
    )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("catalog_owners").execute()
}
