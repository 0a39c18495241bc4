/**
 * The tables as Kysely sees them. One schema serves both dialects: timestamps are integer
 * epoch milliseconds (`bigint` on PostgreSQL, INTEGER affinity on SQLite), JSON is TEXT,
 * booleans are integers 0/1. Each module declares its tables (with their column maps) in
 * its folder (`templates/Tables.ts`...) and a migration for them; `Tables` joins them.
 */

export type JobStatus = "queued" | "running" | "done" | "dead"

export interface JobsTable {
  readonly id: string
  readonly kind: string
  /** JSON. */
  readonly payload: string
  readonly status: JobStatus
  readonly run_at: number
  readonly attempt: number
  readonly locked_by: string | null
  readonly lease_expires_at: number | null
  readonly dedupe_key: string | null
  readonly last_error: string | null
  readonly created_at: number
  readonly updated_at: number
  /** The store whose work the job is (migration 0017), when it names one. */
  readonly store_id: string | null
}

/** Every module's tables, joined in `Repositories.ts` (the one list a new module adds to). */
export type { Tables } from "./Repositories.js"
