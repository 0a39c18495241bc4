/**
 * The statements of the job queue (`SqlJobQueue`), built and compiled once each where their
 * shape allows: the claims (`lease`, `claimIds`, the fair read `runnable`), the fenced writes
 * of a lease's holder (heartbeat, complete, retry, fail) and the inserts of queued jobs.
 */
import type { JobQueue } from "@switchboard/domain"
import { Clock, Effect } from "effect"
import { type CompiledQuery, type ExpressionBuilder, type SelectQueryBuilder, sql } from "kysely"
import type { DatabaseShape } from "./Database.js"
import { multiRow, prepare } from "./internal/Prepared.js"
import { preparedLists } from "./internal/PreparedLists.js"
import type { SqlDialectShape } from "./SqlDialect.js"
import type { Tables } from "./Tables.js"

/** Unfinished jobs, as the partial indexes `jobs_runnable` and `jobs_runnable_by_kind` hold them (a literal list, so SQLite's planner matches the indexes' condition). */
export const RUNNABLE = sql<boolean>`status in ('queued', 'running')`

/** What a claim answers of each job. */
const RETURNED = ["id", "kind", "payload", "attempt", "run_at", "created_at", "store_id"] as const

/** Claimed rows as jobs, in claim order (run time, then id). */
export const jobsOf = (rows: ReadonlyArray<Returned>): ReadonlyArray<JobQueue.Job> =>
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

export type RunnableRow = { id: string; kind: string; store_id: string | null; run_at: number }

/** What a claim writes: the job running under `workerId`'s lease, one more attempt; a running job's `run_at` is its lease expiry. */
const leased = (workerId: string, now: number, leaseMs: number) => (eb: ExpressionBuilder<Tables, "jobs">) => ({
  status: "running" as const,
  attempt: eb("attempt", "+", 1),
  locked_by: workerId,
  lease_expires_at: now + leaseMs,
  run_at: now + leaseMs,
  updated_at: now
})

/** The job queue's statements over `db`. */
export const make = (db: DatabaseShape, dialect: SqlDialectShape) => {
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
   * The first read of `runnable`, compiled once per number of kinds and of stores left out:
   * the runnable jobs of the kinds named, oldest first, at most `limit` (one range of the
   * `jobs_runnable` index). When it answers fewer than its limit, these are all of them, and
   * each kind's first rows are what its branch of `runnableStatement` would answer: one
   * statement instead of one branch per kind (a branch costs as much on an empty queue, and
   * a runner has some thirty kinds).
   */
  const fewRunnableStatement = preparedLists((p: { now: number; limit: number }, [kinds, stores]) =>
    db.kysely
      .selectFrom("jobs")
      .select(["id", "kind", "store_id", "run_at"])
      .where(RUNNABLE)
      .where("run_at", "<=", p.now)
      .where("kind", "in", kinds)
      .$if(stores.length > 0, (q) => q.where((w) => w.or([w("store_id", "is", null), w("store_id", "not in", stores)])))
      .orderBy("run_at")
      .orderBy("id")
      .limit(p.limit)
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

  return {
    lease,
    queued,
    heartbeatJob,
    completeJob,
    retryJob,
    failJob,
    claimIdsStatement,
    fewRunnableStatement,
    runnableStatement,
    insertOne,
    insertQueued
  }
}
