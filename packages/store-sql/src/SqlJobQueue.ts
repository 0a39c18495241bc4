/**
 * The JobQueue port over the `jobs` table.
 *
 * Claiming is one statement: an UPDATE of the rows picked by a sub-select (queued and due, or
 * running with an expired lease), which increments `attempt` and sets the lease. On
 * PostgreSQL the sub-select locks with `FOR UPDATE SKIP LOCKED` (see `SqlDialect`), so
 * concurrent claimers skip each other's rows instead of waiting or double-claiming; SQLite
 * runs one write statement at a time. Every later write is fenced by (id, attempt, running).
 * Jobs in `done` are kept.
 *
 * Fair claiming reads first (`runnable`: per kind, the oldest runnable jobs, one range of
 * the `jobs_runnable_by_kind` index each, in one statement), then claims the jobs the runner
 * chose (`claimIds`), re-checking that each is still runnable (on PostgreSQL under
 * `FOR UPDATE SKIP LOCKED`): a job another worker took meanwhile is left out, never
 * claimed twice.
 */
import { Id, JobQueue } from "@switchboard/domain"
import { Clock, Effect, Layer, Option, type Scope } from "effect"
import { type CompiledQuery, type ExpressionBuilder, type SelectQueryBuilder, type UpdateResult, sql } from "kysely"
import type { Tables } from "./Tables.js"
import { Database } from "./Database.js"
import { JobWakeups } from "./JobWakeups.js"
import * as Chunks from "./internal/Chunks.js"
import { multiRow, prepare } from "./internal/Prepared.js"
import { preparedLists } from "./internal/PreparedLists.js"
import { SqlDialect } from "./SqlDialect.js"

const changed = (result: UpdateResult): boolean => result.numUpdatedRows > 0n

/** Unfinished jobs, as the partial indexes `jobs_runnable` and `jobs_runnable_by_kind` hold them (a literal list, so SQLite's planner matches the indexes' condition). */
const RUNNABLE = sql<boolean>`status in ('queued', 'running')`

/** What a claim answers of each job. */
const RETURNED = ["id", "kind", "payload", "attempt", "run_at", "created_at", "store_id"] as const

/** Claimed rows as jobs, in claim order (run time, then id). */
const jobsOf = (rows: ReadonlyArray<Returned>): ReadonlyArray<JobQueue.Job> =>
  [...rows]
    .sort((a, b) => Number(a.run_at) - Number(b.run_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(
      (row): JobQueue.Job => ({
        id: row.id,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        attempt: Number(row.attempt),
        createdAt: Number(row.created_at),
        storeId: row.store_id ?? null
      })
    )

/** `leased` with parameters (`workerId`, `now`, `expires`), for a statement compiled once. */
const leasedBy = (p: { workerId: string; now: number; expires: number }) => (eb: ExpressionBuilder<Tables, "jobs">) => ({
  status: "running" as const,
  attempt: eb("attempt", "+", 1),
  locked_by: p.workerId,
  lease_expires_at: p.expires,
  run_at: p.expires,
  updated_at: p.now
})

/** Compiled statements kept per shape (number of ids; kinds and limits). */
const STATEMENTS = 64

/** What a fenced write sets. */
type FencedSet = {
  status?: "queued" | "done" | "dead"
  run_at?: number
  lease_expires_at?: number | null
  locked_by?: null
  last_error?: string
}

/** The fence of a lease, and the time of the write. */
type Fence = { id: string; attempt: number; now: number }

type Returned = {
  id: string
  kind: string
  payload: string
  attempt: number
  run_at: number
  created_at: number
  store_id: string | null
}

type RunnableRow = { id: string; kind: string; store_id: string | null; run_at: number }

/** What a claim writes: the job running under `workerId`'s lease, one more attempt; a running job's `run_at` is its lease expiry. */
const leased = (workerId: string, now: number, leaseMs: number) => (eb: ExpressionBuilder<Tables, "jobs">) => ({
  status: "running" as const,
  attempt: eb("attempt", "+", 1),
  locked_by: workerId,
  lease_expires_at: now + leaseMs,
  run_at: now + leaseMs,
  updated_at: now
})

export const make: Effect.Effect<JobQueue.JobQueue["Type"], never, Database | SqlDialect | Scope.Scope> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  /**
   * Leases the jobs `pick` selects to `workerId` (on PostgreSQL locking them, skipping those
   * another claim holds): the claimed jobs, in claim order.
   */
  const lease = (
    workerId: string,
    now: number,
    leaseMs: number,
    pick: (jobs: SelectQueryBuilder<Tables, "jobs", { id: string }>) => SelectQueryBuilder<Tables, "jobs", { id: string }>
  ) =>
    db
      .query((k) =>
        k
          .updateTable("jobs")
          .set(leased(workerId, now, leaseMs))
          .where("id", "in", (eb) => pick(eb.selectFrom("jobs").select("id")).$if(dialect.lockForClaim, (q) => q.forUpdate().skipLocked()))
          .returning(RETURNED)
          .execute()
      )
      .pipe(Effect.map(jobsOf))

  /** The row of a queued job. */
  const queued = (id: string, kind: string, payload: string, runAt: number, dedupeKey: string | null, now: number, storeId: string | null) => ({
    id,
    kind,
    payload,
    status: "queued" as const,
    run_at: runAt,
    attempt: 0,
    locked_by: null,
    lease_expires_at: null,
    dedupe_key: dedupeKey,
    last_error: null,
    created_at: now,
    updated_at: now,
    store_id: storeId
  })

  /**
   * An UPDATE fenced by the lease: only the holder of (id, attempt) of a running job changes
   * it. Compiled once per kind of write (`set` names the parameters it takes besides the fence).
   */
  const fencedUpdate = <P extends Record<string, unknown>>(set: (p: P) => FencedSet) => {
    const statement = prepare((p: P & Fence) =>
      db.kysely
        .updateTable("jobs")
        .set({ ...set(p), updated_at: p.now })
        .where("id", "=", p.id)
        .where("attempt", "=", p.attempt)
        .where("status", "=", "running")
    )
    return (lease: JobQueue.Lease, params: P) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.execute(statement({ ...params, id: lease.id, attempt: lease.attempt, now }))
        return (result.numAffectedRows ?? 0n) > 0n
      })
  }
  const heartbeatJob = fencedUpdate((p: { expires: number }) => ({ lease_expires_at: p.expires, run_at: p.expires }))
  const completeJob = fencedUpdate(() => ({ status: "done", locked_by: null, lease_expires_at: null }))
  const retryJob = fencedUpdate((p: { runAt: number; error: string }) => ({
    status: "queued",
    run_at: p.runAt,
    locked_by: null,
    lease_expires_at: null,
    last_error: p.error
  }))
  const failJob = fencedUpdate((p: { error: string }) => ({ status: "dead", locked_by: null, lease_expires_at: null, last_error: p.error }))

  /**
   * The lease of `claimIds`, compiled once per number of ids: the jobs named that are still
   * runnable (on PostgreSQL locked, skipping those another claim holds), leased to the worker.
   */
  const claimIdsStatement = preparedLists((p: { workerId: string; now: number; expires: number }, [ids]) =>
    db.kysely
      .updateTable("jobs")
      .set(leasedBy(p))
      .where("id", "in", (eb) =>
        eb
          .selectFrom("jobs")
          .select("id")
          .where("id", "in", ids)
          // still runnable: not taken by another worker since it was read
          .where(RUNNABLE)
          .where("run_at", "<=", p.now)
          .$if(dialect.lockForClaim, (q) => q.forUpdate().skipLocked())
      )
      .returning(RETURNED)
  )

  /**
   * The read of `runnable`, compiled once per list of kinds and limits (and number of stores
   * left out): one branch per kind, the oldest runnable jobs of that kind, one index range each.
   */
  const runnableStatements = new Map<string, (p: Record<string, unknown>) => CompiledQuery<RunnableRow>>()
  const runnableStatement = (wanted: ReadonlyArray<{ readonly kind: string; readonly limit: number }>, excluded: number) => {
    const key = `${excluded}|${wanted.map((w) => `${w.kind}:${w.limit}`).join(",")}`
    let statement = runnableStatements.get(key)
    if (statement === undefined) {
      statement = prepare((p: Record<string, unknown>) => {
        const stores = Array.from({ length: excluded }, (_, i) => p[`store${i}`] as string)
        const branch = (kind: string, limit: number) =>
          db.kysely
            .selectFrom((eb) =>
              eb
                .selectFrom("jobs")
                .select(["id", "kind", "store_id", "run_at"])
                .where(RUNNABLE)
                .where("kind", "=", kind)
                .where("run_at", "<=", p.now as number)
                .$if(excluded > 0, (q) => q.where((w) => w.or([w("store_id", "is", null), w("store_id", "not in", stores)])))
                .orderBy("run_at")
                .orderBy("id")
                .limit(limit)
                .as("c")
            )
            .selectAll()
        const [first, ...rest] = wanted.map((w) => branch(w.kind, w.limit))
        return rest.reduce((all, next) => all.unionAll(next), first)
      })
      if (runnableStatements.size >= STATEMENTS) runnableStatements.delete(runnableStatements.keys().next().value!)
      runnableStatements.set(key, statement)
    }
    return statement
  }

  /** `enqueue`'s insert of one job (a taken dedupe key adds nothing), answering its id when inserted. */
  const insertOne = prepare((p: Record<string, unknown>) =>
    db.kysely
      .insertInto("jobs")
      .values(
        queued(
          p.id as string,
          p.kind as string,
          p.payload as string,
          p.runAt as number,
          p.dedupeKey as string | null,
          p.now as number,
          p.storeId as string | null
        )
      )
      .onConflict((oc) => oc.column("dedupe_key").doNothing())
      .returning("id")
  )

  /** Queued jobs, one row per (id, kind, payload, run_at, dedupe_key, now, store_id); a taken dedupe key adds nothing. */
  const insertQueued = multiRow(7, (rows) =>
    db.kysely
      .insertInto("jobs")
      .values(rows.map(([id, kind, payload, runAt, dedupeKey, now, storeId]) => queued(id, kind, payload, runAt, dedupeKey, now, storeId)))
      .onConflict((oc) => oc.column("dedupe_key").doNothing())
  )

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
        const params: Record<string, unknown> = { now }
        for (let i = 0; i < excluded.length; i++) params[`store${i}`] = excluded[i]
        const { rows } = yield* db.execute(runnableStatement(wanted, excluded.length)(params))
        return rows.map((row): JobQueue.Candidate => ({ id: row.id, kind: row.kind, storeId: row.store_id ?? null, runAt: Number(row.run_at) }))
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
