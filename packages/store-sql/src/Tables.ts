/**
 * The tables as Kysely sees them. One schema serves both dialects: timestamps are integer
 * epoch milliseconds (`bigint` on PostgreSQL, INTEGER affinity on SQLite), JSON is TEXT,
 * booleans are integers 0/1. Each module declares its tables (with their column maps) in
 * its folder (`templates/Tables.ts`...) and a migration for them; `Tables` joins them (a new
 * module adds its tables here, its migration and repositories in `Repositories.ts`).
 */
import type { CallTables } from "./calls/Tables.js"
import type { OrderTables } from "./orders/OrderTables.js"
import type { CommerceTables } from "./commerce/Tables.js"
import type { FlowTables } from "./flows/Tables.js"
import type { IdempotencyTables } from "./idempotency/Tables.js"
import type { InboxTables } from "./inbox/Tables.js"
import type { MediaTables } from "./media/Tables.js"
import type { MessagingTables } from "./messaging/Tables.js"
import type { MirrorTables } from "./mirror/Tables.js"
import type { StoreTables } from "./stores/Tables.js"
import type { TemplateTables } from "./templates/Tables.js"
import type { WebhookTables } from "./webhooks/Tables.js"

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

/** Every table, as Kysely sees them. */
export interface Tables
  extends StoreTables,
    TemplateTables,
    InboxTables,
    IdempotencyTables,
    MessagingTables,
    WebhookTables,
    CommerceTables,
    OrderTables,
    CallTables,
    FlowTables,
    MirrorTables,
    MediaTables {
  readonly jobs: JobsTable
}
