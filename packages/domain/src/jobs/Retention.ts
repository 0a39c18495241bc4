/**
 * Operational records get a lifetime (README, "Retention"): processed operator webhooks (the
 * inbox), finished and dead jobs, caller webhook delivery attempts and completed idempotency
 * keys are deleted once older than their period. Business records (messages, orders,
 * campaigns and their recipients, flows and their responses, caller events) are kept until
 * the store deletes them.
 *
 * `prune` deletes a small batch per statement and yields between batches, so no delete holds
 * the database (SQLite's one writer included) for long; it never touches an inbox entry not
 * yet processed, a queued or running job, or a key whose request is still in progress.
 */
import { Context, Effect } from "effect"
import * as Time from "../shared/Time.js"

/** The tables with a lifetime, by the name `/metrics` and the settings use. */
export const TABLES = ["inbox", "jobs", "webhook_deliveries", "idempotency_keys"] as const
export type Table = (typeof TABLES)[number]

/** How long each table's finished rows are kept, in milliseconds. */
export type Policy = Readonly<Record<Table, Time.Millis>>

/** The defaults: a week of operator webhooks, a day of jobs, a month of delivery attempts, a day of keys. */
export const DEFAULT_POLICY: Policy = {
  inbox: 7 * Time.DAY,
  jobs: Time.DAY,
  webhook_deliveries: 30 * Time.DAY,
  idempotency_keys: Time.DAY
}

/** Rows deleted per statement. */
export const BATCH = 500

export class RetentionStore extends Context.Tag("@switchboard/domain/RetentionStore")<
  RetentionStore,
  {
    /**
     * Deletes at most `limit` finished rows of `table` whose time (an inbox entry's
     * processing, a job's or a key's last update, a delivery attempt's) is before `before`;
     * answers how many. Unfinished rows are never deleted.
     */
    readonly prune: (table: Table, before: Time.Millis, limit: number) => Effect.Effect<number>
    /** The rows of `table`, finished or not. */
    readonly count: (table: Table) => Effect.Effect<number>
  }
>() {}

/** One pass over every table: batches until a batch comes back short; answers the rows deleted per table. */
export const prune = (policy: Policy): Effect.Effect<Record<Table, number>, never, RetentionStore> =>
  Effect.gen(function* () {
    const store = yield* RetentionStore
    const now = yield* Time.now
    const deleted = { inbox: 0, jobs: 0, webhook_deliveries: 0, idempotency_keys: 0 }
    for (const table of TABLES) {
      for (;;) {
        const n = yield* store.prune(table, now - policy[table], BATCH)
        deleted[table] += n
        if (n < BATCH) break
        // let other writers in between batches
        yield* Effect.sleep(1)
      }
    }
    return deleted
  })
