/**
 * Waking job runners in other processes. A job queued on PostgreSQL is announced with
 * `NOTIFY switchboard_jobs` by a trigger on its insert (migration 0024_jobs_notify; delivered
 * at commit, so a runner never wakes before the row is visible); a store that can LISTEN provides
 * `JobWakeups`, and every queue of the process ends its runners' idle wait when a
 * notification arrives. Polling stays the fallback: a lost connection or a missed
 * notification costs at most one idle interval. SQLite has no such channel: one process
 * writes, and its own enqueues already wake its runners.
 */
import { Context, type Effect, type Scope } from "effect"

export const CHANNEL = "switchboard_jobs"

export class JobWakeups extends Context.Tag("@switchboard/store-sql/JobWakeups")<
  JobWakeups,
  {
    /** Calls `onWake` for every notification on `CHANNEL` until the scope closes. */
    readonly listen: (onWake: () => void) => Effect.Effect<void, never, Scope.Scope>
  }
>() {}
