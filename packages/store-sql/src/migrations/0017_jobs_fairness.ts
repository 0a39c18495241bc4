/**
 * Fair claiming (migration 0017): a job may name the store whose work it is (`store_id`),
 * and runnable jobs are indexed by kind, so that a runner reads the oldest runnable jobs of
 * each kind as one short index range each (`JobQueue.runnable`) however many jobs of
 * another kind wait. Partial, like `jobs_runnable`: only unfinished jobs.
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("store_id", "text").execute()
  await db.schema
    .createIndex("jobs_runnable_by_kind")
    .on("jobs")
    .columns(["kind", "run_at", "id"])
    .where(sql.ref("status"), "in", sql`('queued', 'running')`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("jobs_runnable_by_kind").execute()
  await db.schema.alterTable("jobs").dropColumn("store_id").execute()
}
