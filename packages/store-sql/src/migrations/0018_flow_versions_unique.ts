/**
 * Unique flow versions (migration 0018): a lineage's version numbers are unique, by a unique
 * index on (store_id, mode, lineage_id, version) that replaces the plain one of 0015 (same
 * columns, so the lineage's reads keep their index). Two concurrent new versions of one
 * flow could take the same number before it.
 *
 * Existing duplicates: of the versions sharing a number, the oldest (created_at, then id)
 * keeps it; each other one, oldest first, is renumbered one past its lineage's highest
 * number at that moment. Nothing else changes (a predecessor is named by id, not number).
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  const twins = await sql<{ id: string; store_id: string; mode: string; lineage_id: string }>`
    SELECT f.id, f.store_id, f.mode, f.lineage_id FROM flows f
    WHERE EXISTS (
      SELECT 1 FROM flows e
      WHERE e.store_id = f.store_id AND e.mode = f.mode AND e.lineage_id = f.lineage_id AND e.version = f.version
        AND (e.created_at < f.created_at OR (e.created_at = f.created_at AND e.id < f.id))
    )
    ORDER BY f.created_at, f.id`.execute(db)
  for (const twin of twins.rows) {
    await sql`
      UPDATE flows SET version = (
        SELECT max(l.version) + 1 FROM flows l WHERE l.store_id = ${twin.store_id} AND l.mode = ${twin.mode} AND l.lineage_id = ${twin.lineage_id}
      )
      WHERE id = ${twin.id}`.execute(db)
  }
  await db.schema.dropIndex("flows_lineage_idx").execute()
  await db.schema.createIndex("flows_lineage_version_uq").unique().on("flows").columns(["store_id", "mode", "lineage_id", "version"]).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("flows_lineage_version_uq").execute()
  await db.schema.createIndex("flows_lineage_idx").on("flows").columns(["store_id", "mode", "lineage_id", "version"]).execute()
}
