/**
 * Retention (`SqlRetention.ts`): each table's pruning reads its finished rows by time, on an
 * index of its own, so a batch is one short index range however large the table has grown.
 * Partial where the table also holds unfinished rows.
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("inbox_processed_at").on("inbox").column("processed_at").where(sql.ref("processed_at"), "is not", null).execute()
  await db.schema.createIndex("jobs_finished_at").on("jobs").column("updated_at").where(sql.ref("status"), "in", sql`('done', 'dead')`).execute()
  await db.schema.createIndex("webhook_deliveries_created_at").on("webhook_deliveries").column("created_at").execute()
  await db.schema
    .createIndex("idempotency_keys_completed_at")
    .on("idempotency_keys")
    .column("updated_at")
    .where(sql.ref("status"), "=", "completed")
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ["inbox_processed_at", "jobs_finished_at", "webhook_deliveries_created_at", "idempotency_keys_completed_at"])
    await db.schema.dropIndex(index).execute()
}
