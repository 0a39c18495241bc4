/**
 * Claiming reads one index range: runnable jobs are those queued or running whose `run_at`
 * has come, where a running job's `run_at` is its lease expiry (claim and heartbeat keep the
 * two equal). The partial index holds only unfinished jobs, so it stays small as done jobs
 * accumulate.
 */
import { sql, type Kysely } from "kysely"

export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable("jobs").set({ run_at: sql`lease_expires_at` }).where("status", "=", "running").execute()
  await db.schema
    .createIndex("jobs_runnable")
    .on("jobs")
    .columns(["run_at", "id"])
    .where(sql.ref("status"), "in", sql`('queued', 'running')`)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("jobs_runnable").execute()
}
