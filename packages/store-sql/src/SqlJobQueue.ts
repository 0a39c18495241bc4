/**
 * The JobQueue port over the `jobs` table.
 *
 * Claiming is one statement: an UPDATE of the rows picked by a sub-select (queued and due, or
 * running with an expired lease), which increments `attempt` and sets the lease. On
 * PostgreSQL the sub-select locks with `FOR UPDATE SKIP LOCKED` (see `SqlDialect`), so
 * concurrent claimers skip each other's rows instead of waiting or double-claiming; SQLite
 * runs one write statement at a time. Every later write is fenced by (id, attempt, running).
 * Jobs in `done` are kept. The statements are in `JobStatements.ts`.
 *
 * Fair claiming reads first (`runnable`: per kind, the oldest runnable jobs; while at most
 * `FEW_RUNNABLE` of those kinds' jobs are runnable, all of them in one range of the
 * `jobs_runnable` index, else one range of the `jobs_runnable_by_kind` index per kind, in one
 * statement), then claims the jobs the runner chose (`claimIds`), re-checking that each is still runnable (on PostgreSQL under
 * `FOR UPDATE SKIP LOCKED`): a job another worker took meanwhile is left out, never
 * claimed twice.
 */
import { Id, JobQueue } from "@switchboard/domain"
import { Clock, Effect, Layer, Option, type Scope } from "effect"
import type { UpdateResult } from "kysely"
import { Database } from "./Database.js"
import * as Chunks from "./internal/Chunks.js"
import * as JobStatements from "./JobStatements.js"
import { jobsOf, RUNNABLE } from "./JobStatements.js"
import { JobWakeups } from "./JobWakeups.js"
import { SqlDialect } from "./SqlDialect.js"

const changed = (result: UpdateResult): boolean => result.numUpdatedRows > 0n

/** How many runnable jobs `runnable` reads in one statement before it reads a range per kind. */
const FEW_RUNNABLE = 256

const candidateOf = (row: JobStatements.RunnableRow): JobQueue.Candidate => ({
  id: row.id,
  kind: row.kind,
  storeId: row.store_id ?? null,
  runAt: Number(row.run_at)
})

/** The first `limit` of each kind's rows (rows oldest first, as a kind's branch of the read answers them). */
const firstOfEachKind = (
  rows: ReadonlyArray<JobStatements.RunnableRow>,
  wanted: ReadonlyArray<{ readonly kind: string; readonly limit: number }>
) => {
  const room = new Map(wanted.map((w) => [w.kind, w.limit]))
  const out: Array<JobQueue.Candidate> = []
  for (const row of rows) {
    const left = room.get(row.kind) ?? 0
    if (left <= 0) continue
    room.set(row.kind, left - 1)
    out.push(candidateOf(row))
  }
  return out
}

export const make: Effect.Effect<JobQueue.JobQueue["Type"], never, Database | SqlDialect | Scope.Scope> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect
  const { lease, heartbeatJob, completeJob, retryJob, failJob, claimIdsStatement, fewRunnableStatement, runnableStatement, insertOne, insertQueued } =
    JobStatements.make(db, dialect)

  /** Runners of this process waiting in `awaitEnqueue`, each with the kinds it waits for (undefined: any). */
  const waiters = new Map<(enqueued: boolean) => void, ReadonlySet<string> | undefined>()
  /** Ends the waits of this process's runners for `kind` (every wait when undefined). */
  const wake = (kind?: string) => {
    if (waiters.size === 0) return
    const woken = [...waiters].filter(([, kinds]) => kind === undefined || kinds === undefined || kinds.has(kind))
    for (const [resume] of woken) resume(true)
  }
  // another process's jobs, announced by NOTIFY where the store can LISTEN (of a kind not said)
  const wakeups = yield* Effect.serviceOption(JobWakeups)
  if (Option.isSome(wakeups)) yield* wakeups.value.listen(() => wake())
  /**
   * A job of `kind` was queued: end this process's waits for it once the row is committed (a
   * runner woken before would find nothing, and a second wake would follow). Other processes
   * hear of it from the insert's NOTIFY (migration 0024_jobs_notify, PostgreSQL); this process
   * ignores its own (`JobWakeups`).
   */
  const enqueued = (kind: string) => db.afterCommit(() => wake(kind))

  return JobQueue.JobQueue.of({
    awaitEnqueue: (ms, kinds) =>
      Effect.async<boolean>((resume) => {
        const end = (enqueued: boolean) => {
          clearTimeout(timer)
          waiters.delete(end)
          resume(Effect.succeed(enqueued))
        }
        const timer = setTimeout(end, Math.max(0, ms), false)
        waiters.set(end, kinds === undefined ? undefined : new Set(kinds))
        return Effect.sync(() => {
          clearTimeout(timer)
          waiters.delete(end)
        })
      }),

    enqueue: (job) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const id = Id.unsafeMake("job", now)
        const dedupeKey = job.dedupeKey ?? null
        const { rows } = yield* db.execute(
          insertOne({
            id,
            kind: job.kind,
            payload: JSON.stringify(job.payload ?? null),
            runAt: job.runAt ?? now,
            dedupeKey,
            now,
            storeId: job.storeId ?? null
          })
        )
        yield* enqueued(job.kind)
        if (rows.length > 0 || dedupeKey === null) return id
        const existing = yield* db.query((k) => k.selectFrom("jobs").select("id").where("dedupe_key", "=", dedupeKey).executeTakeFirstOrThrow())
        return existing.id
      }),

    enqueueAll: (jobs) =>
      Effect.gen(function* () {
        if (jobs.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const rows = jobs.map((job) => [
          Id.unsafeMake("job", now),
          job.kind,
          JSON.stringify(job.payload ?? null),
          job.runAt ?? now,
          job.dedupeKey ?? null,
          now,
          job.storeId ?? null
        ])
        yield* Chunks.forEach(rows, 500, (group) => db.execute(insertQueued(group)))
        for (const kind of new Set(jobs.map((job) => job.kind))) yield* enqueued(kind)
      }),

    claim: ({ kinds, leaseMs, limit, workerId }) =>
      Effect.gen(function* () {
        if (limit <= 0 || (kinds !== undefined && kinds.length === 0)) return []
        const now = yield* Clock.currentTimeMillis
        // A read first: an idle worker polls several times a second, and on SQLite every
        // UPDATE takes the database's write lock, even one that matches nothing.
        const due = yield* db.query((k) =>
          k
            .selectFrom("jobs")
            .select("id")
            .where(RUNNABLE)
            .where("run_at", "<=", now)
            .$if(kinds !== undefined, (q) => q.where("kind", "in", kinds!))
            .limit(1)
            .executeTakeFirst()
        )
        if (due === undefined) return []
        return yield* lease(workerId, now, leaseMs, (jobs) =>
          jobs
            // a running job's run_at is its lease expiry: one range of the jobs_runnable index
            .where(RUNNABLE)
            .where("run_at", "<=", now)
            .$if(kinds !== undefined, (q) => q.where("kind", "in", kinds!))
            .orderBy("run_at")
            .orderBy("id")
            .limit(limit)
        )
      }),

    runnable: ({ excludeStores, kinds }) =>
      Effect.gen(function* () {
        const wanted = kinds.filter((k) => k.limit > 0)
        if (wanted.length === 0) return []
        const now = yield* Clock.currentTimeMillis
        const excluded = excludeStores ?? []
        // every runnable job of these kinds when they are few (one statement); else a branch per kind
        const few = yield* db.execute(fewRunnableStatement({ now, limit: FEW_RUNNABLE + 1 }, [wanted.map((w) => w.kind), excluded]))
        if (few.rows.length <= FEW_RUNNABLE) return firstOfEachKind(few.rows, wanted)
        const params: Record<string, unknown> = { now }
        for (let i = 0; i < excluded.length; i++) params[`store${i}`] = excluded[i]
        const { rows } = yield* db.execute(runnableStatement(wanted, excluded.length)(params))
        return rows.map(candidateOf)
      }),

    claimIds: ({ ids, leaseMs, workerId }) =>
      Effect.gen(function* () {
        if (ids.length === 0) return []
        const now = yield* Clock.currentTimeMillis
        const { rows } = yield* db.execute(claimIdsStatement({ workerId, now, expires: now + leaseMs }, [ids]))
        return jobsOf(rows)
      }),

    defer: (lease, runAt) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.query((k) =>
          k
            .updateTable("jobs")
            .set((eb) => ({
              status: "queued",
              // not an attempt: the next claim hands out this attempt's number again
              attempt: eb("attempt", "-", 1),
              run_at: runAt,
              locked_by: null,
              lease_expires_at: null,
              updated_at: now
            }))
            .where("id", "=", lease.id)
            .where("attempt", "=", lease.attempt)
            .where("status", "=", "running")
            .executeTakeFirst()
        )
        return changed(result)
      }),

    oldestRunnable: () =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // the first of the jobs_runnable index's range (a running job's run_at is its lease's expiry)
        const row = yield* db.query((k) =>
          k.selectFrom("jobs").select("run_at").where(RUNNABLE).where("run_at", "<=", now).orderBy("run_at").orderBy("id").limit(1).executeTakeFirst()
        )
        return row === undefined ? null : Number(row.run_at)
      }),

    heartbeat: (lease, leaseMs) => Effect.flatMap(Clock.currentTimeMillis, (now) => heartbeatJob(lease, { expires: now + leaseMs })),

    complete: (lease) => completeJob(lease, {}),

    retry: (lease, runAt, error) => retryJob(lease, { runAt, error }),

    fail: (lease, error) => failJob(lease, { error }),

    isLive: (id) =>
      db
        .query((k) => k.selectFrom("jobs").select("status").where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((job) => job !== undefined && (job.status === "queued" || job.status === "running"))),

    hasUnfinished: (kind, createdBefore) =>
      db
        .query((k) =>
          k
            .selectFrom("jobs")
            .select("id")
            .where("status", "in", ["queued", "running"])
            .where("kind", "=", kind)
            .where("created_at", "<", createdBefore)
            .limit(1)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => row !== undefined)),

    stats: () =>
      db
        .query((k) =>
          k
            .selectFrom("jobs")
            .select((eb) => ["status", eb.fn.countAll<number>().as("n")])
            .groupBy("status")
            .execute()
        )
        .pipe(
          Effect.map((rows) => {
            const counts = { queued: 0, running: 0, done: 0, dead: 0 }
            for (const row of rows) counts[row.status] = Number(row.n)
            return counts
          })
        )
  })
})

export const layer: Layer.Layer<JobQueue.JobQueue, never, Database | SqlDialect> = Layer.scoped(JobQueue.JobQueue, make)
