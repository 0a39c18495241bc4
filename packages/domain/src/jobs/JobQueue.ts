/**
 * The durable job queue. A job is claimed under a lease (about 30 s, renewed by heartbeat);
 * each claim increments `attempt`, and every later write about the job (heartbeat,
 * complete, retry, fail) is fenced by (id, attempt): a worker whose lease was taken over
 * changes nothing. A job whose lease expired (its worker crashed) is claimable again.
 *
 * PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so any number of workers cooperate;
 * SQLite has a single writer.
 *
 * A job may name the store whose work it is (`storeId`), so that a runner can share its
 * slots fairly between stores (`runnable` then `claimIds`), and a job that must wait (on a
 * quota, a slow peer) answers `runLater(at)` and is put back (`defer`) instead of holding
 * its slot while it waits.
 *
 * Times are the domain's `Time.Millis` (epoch ms, read from `Time.now`) throughout.
 */
import { Context, Data, type Effect } from "effect"
import type { Millis } from "../shared/Time.js"

export interface NewJob {
  readonly kind: string
  readonly payload: unknown
  /** Not before this time (default now). */
  readonly runAt?: Millis | undefined
  /** At most one job with this key ever exists: enqueueing it again is a no-op. */
  readonly dedupeKey?: string | undefined
  /** The store whose work this is (runners share their slots fairly between stores). */
  readonly storeId?: string | undefined
}

export interface Job {
  readonly id: string
  readonly kind: string
  readonly payload: unknown
  /** 1 on the first claim, incremented by each claim. */
  readonly attempt: number
  readonly createdAt: Millis
  /** The store whose work this is, when the job names one. */
  readonly storeId?: string | null | undefined
}

/** A runnable job as `runnable` lists it: enough to choose which to claim. */
export interface Candidate {
  readonly id: string
  readonly kind: string
  readonly storeId: string | null
  /** When it became runnable: its run time, or its lease's expiry. */
  readonly runAt: Millis
}

/**
 * What a handler answers to be run again at `at` instead of completing: the job
 * goes back to the queue (`defer`) without counting as an attempt, and its slot is free
 * meanwhile. For work that waits on a quota or a slow peer.
 */
export class RunLater extends Data.TaggedClass("RunLater")<{ readonly at: Millis }> {}

/** `new RunLater({ at })`. */
export const runLater = (at: Millis): RunLater => new RunLater({ at })

/** The right to write about a job: who claimed it, at which attempt. */
export interface Lease {
  readonly id: string
  readonly attempt: number
}

/** The lease was lost (expired and taken over): whatever the worker was doing must not commit. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly jobId: string; readonly attempt: number }> {}

export class JobQueue extends Context.Tag("@switchboard/domain/JobQueue")<
  JobQueue,
  {
    /** Answers the job id (the existing one for a repeated dedupe key). Joins the caller's transaction. */
    readonly enqueue: (job: NewJob) => Effect.Effect<string>
    /**
     * Enqueues many jobs at once (one statement for a few hundred): the effect of `enqueue`
     * on each in turn, ids in the list's order, each dedupe key kept (a key already taken,
     * or repeated earlier in the list, adds nothing). Joins the caller's transaction.
     */
    readonly enqueueAll: (jobs: ReadonlyArray<NewJob>) => Effect.Effect<void>
    /**
     * Claims up to `limit` runnable jobs of the given kinds (all kinds when omitted): queued
     * ones whose run time has come and running ones whose lease expired. Each claimed job
     * is leased to `workerId` for `leaseMs` with its attempt incremented. Never hands the
     * same (id, attempt) to two workers.
     */
    readonly claim: (input: {
      readonly workerId: string
      readonly kinds?: ReadonlyArray<string> | undefined
      readonly limit: number
      readonly leaseMs: number
    }) => Effect.Effect<ReadonlyArray<Job>>
    /**
     * Up to `limit` runnable jobs of each kind named (as `claim` would take them: queued and
     * due, or running with an expired lease), oldest first within a kind, leaving out jobs of
     * the stores in `excludeStores`. Reads only: one statement while few jobs of those kinds
     * are runnable, else one index range per kind.
     */
    readonly runnable: (input: {
      readonly kinds: ReadonlyArray<{ readonly kind: string; readonly limit: number }>
      readonly excludeStores?: ReadonlyArray<string> | undefined
    }) => Effect.Effect<ReadonlyArray<Candidate>>
    /**
     * Claims those of the jobs named that are still runnable (another worker may have taken
     * some meanwhile), as `claim` does; answered in the order `claim` answers (run time, id).
     * Never hands the same (id, attempt) to two workers.
     */
    readonly claimIds: (input: {
      readonly workerId: string
      readonly ids: ReadonlyArray<string>
      readonly leaseMs: number
    }) => Effect.Effect<ReadonlyArray<Job>>
    /**
     * Back to queued, runnable at `runAt`, not counted as an attempt (the next claim has the
     * attempt number this one had); false when the lease was lost. Joins the caller's
     * transaction.
     */
    readonly defer: (lease: Lease, runAt: Millis) => Effect.Effect<boolean>
    /** When the oldest runnable job became runnable, or null when none is: how far behind the runners are. */
    readonly oldestRunnable: () => Effect.Effect<Millis | null>
    /** Extends the lease; false when it was lost. */
    readonly heartbeat: (lease: Lease, leaseMs: number) => Effect.Effect<boolean>
    /** Marks done; false when the lease was lost. Joins the caller's transaction. */
    readonly complete: (lease: Lease) => Effect.Effect<boolean>
    /** Back to queued, runnable at `runAt`, with the error recorded; false when the lease was lost. */
    readonly retry: (lease: Lease, runAt: Millis, error: string) => Effect.Effect<boolean>
    /** Gives up (dead); false when the lease was lost. */
    readonly fail: (lease: Lease, error: string) => Effect.Effect<boolean>
    /** Whether the job exists and is still queued or running (neither done nor dead). */
    readonly isLive: (id: string) => Effect.Effect<boolean>
    /**
     * Whether some job of `kind` created before `createdBefore` is still queued or
     * running: work received by then and not yet done (e.g. operator webhooks in the inbox).
     */
    readonly hasUnfinished: (kind: string, createdBefore: Millis) => Effect.Effect<boolean>
    /**
     * Ends when this process queues a job of one of `kinds` (of any kind when omitted) through
     * this queue (true) or after `ms` (false), whichever comes first. An idle runner waits on
     * it between polls: work queued in its own process starts at once while it polls seldom,
     * and a runner is not woken by the jobs it does not run. Jobs queued by other processes
     * are found by the next poll, or announced where the store can (PostgreSQL's NOTIFY, which
     * wakes every wait, whatever its kinds).
     */
    readonly awaitEnqueue: (ms: number, kinds?: ReadonlyArray<string>) => Effect.Effect<boolean>
    /** Counts by state, for health and tests. */
    readonly stats: () => Effect.Effect<{ readonly queued: number; readonly running: number; readonly done: number; readonly dead: number }>
  }
>() {}
