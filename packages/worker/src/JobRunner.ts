/**
 * Runs queued jobs: claims them under a lease, renews the lease by heartbeat while a job
 * runs, and finishes each one fenced by its attempt number.
 *
 * A `transactional` handler's writes commit in the same transaction as the job's
 * completion, and that transaction rolls back if the lease was lost meanwhile: such jobs
 * take effect exactly once even when a worker crashes or stalls. Other handlers (those that
 * call the outside world) guard their own side effects and are completed afterwards.
 *
 * Failures are retried with exponential back-off up to `maxAttempts`, then the job is dead.
 * A transactional job whose transaction the database aborted as a deadlock's victim runs
 * again at once (up to three times) before that counts as a failure. Jobs of an `ordered`
 * kind run one at a time, in the order they were claimed (`run_at`, then id: the order they
 * were queued), each waiting for the one before with its lease kept by heartbeat; with
 * `runMany`, the first attempts claimed together run in one transaction.
 *
 * No kind and no store takes every slot (`internal/Fairness.ts`): at most `perKind` jobs of a
 * kind (but an ordered kind's, which run as one unit) and `perStore` jobs of a store run at once, jobs that call the outside world leave a
 * slot for those that only write to the database, and free slots go round-robin across
 * kinds. A job that must wait (a quota, a slow peer) answers `JobQueue.runLater(at)`: it is
 * put back in the queue, its slot free, and this runner polls again when it is due.
 */
import { Id, JobQueue, Transactor } from "@switchboard/domain"
import { Cause, Clock, Context, Deferred, Duration, Effect, FiberSet } from "effect"
import * as Fairness from "./internal/Fairness.js"

export interface Handler<R> {
  readonly run: (job: JobQueue.Job) => Effect.Effect<unknown, unknown, R>
  /** Writes commit with the completion, in one transaction (default true). */
  readonly transactional?: boolean
  /** Give up after this many attempts (default 10). */
  readonly maxAttempts?: number
  /** Delay before the next attempt (default `backoffMs`). */
  readonly backoffMs?: (attempt: number) => number
  /** Jobs of this kind run one at a time in this runner, in the order claimed (queued); their leases are kept meanwhile. */
  readonly ordered?: boolean
  /**
   * Runs several jobs of an ordered, transactional kind as one (their work in the order
   * given, in one transaction with their completions). Claimed first attempts are run so
   * together; if that fails, each runs alone, as if never grouped.
   */
  readonly runMany?: (jobs: ReadonlyArray<JobQueue.Job>) => Effect.Effect<unknown, unknown, R>
}

export interface RunnerOptions<R> {
  readonly handlers: Readonly<Record<string, Handler<R>>>
  /** Jobs run at once by this process (default 8). */
  readonly concurrency?: number
  /** Jobs of one kind run at once (default half of `concurrency`, rounded up, at least 2). */
  readonly perKind?: number
  /** Jobs of one store (jobs that name one) run at once (default a quarter of `concurrency`, rounded up). */
  readonly perStore?: number
  /** Lease length (default 30 s); the heartbeat renews it every third of it. */
  readonly leaseMs?: number
  /** Polling interval while polls find work (default 100 ms). */
  readonly pollMs?: number
  /**
   * The longest polling interval: while polls find nothing the interval doubles from `pollMs`
   * up to this (default 1 s). A job queued by this process ends the wait at once (and polling
   * is fast again); one queued by another process waits for the next poll.
   */
  readonly idlePollMs?: number
  readonly workerId?: string
  /**
   * When the runner's scope closes: how long the jobs in flight may take to finish before
   * they are interrupted (default `DrainGrace`, itself 0: interrupted at once). No job is
   * claimed meanwhile.
   */
  readonly drainMs?: number
}

/** The grace the runner gives its jobs in flight when it stops (`switchboard serve` sets it from SWITCHBOARD_SHUTDOWN_GRACE). */
export class DrainGrace extends Context.Reference<DrainGrace>()("@switchboard/worker/DrainGrace", { defaultValue: () => 0 }) {}

/** Back-off before attempt `attempt + 1`: 1 s, 2 s, 4 s … capped at 1 h, with jitter. */
export const backoffMs = (attempt: number): number => {
  const base = Math.min(1000 * 2 ** (attempt - 1), 3_600_000)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/** SQLSTATEs of a transaction the database aborted to break a deadlock or a serialization conflict (PostgreSQL). */
const TRANSIENT = new Set(["40P01", "40001"])

/** Whether the transaction failed only because the database chose it as a deadlock's victim: running it again is safe. */
const isTransient = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.defects(cause), ...Cause.failures(cause)].some(
    (e) => typeof e === "object" && e !== null && TRANSIENT.has(String((e as { code?: unknown }).code))
  )

/** Immediate runs of a transactional job's transaction after a deadlock, before it counts as a failed attempt. */
const TRANSIENT_RETRIES = 3

const describe = (cause: Cause.Cause<unknown>): string => {
  const text = Cause.pretty(cause)
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

/**
 * Runs until interrupted (needs a Scope: the jobs in flight live in it). When the scope
 * closes it stops claiming, lets the jobs in flight finish for up to `drainMs`, then
 * interrupts the rest; their transactions roll back and their leases expire, so another
 * worker takes them over. Each job runs in a span (`job <kind>`).
 */
export const run = <R>(options: RunnerOptions<R>) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue.JobQueue
    const tx = yield* Transactor.Transactor
    const workerId = options.workerId ?? (yield* Id.generate("wrk"))
    const concurrency = options.concurrency ?? 8
    const leaseMs = options.leaseMs ?? 30_000
    const pollMs = options.pollMs ?? 100
    const idlePollMs = Math.max(pollMs, options.idlePollMs ?? 1000)
    const limits = Fairness.limitsOf(concurrency, options)
    /** The next idle wait: `pollMs` after work, doubling while polls find nothing. */
    let idleMs = pollMs
    const kinds = Object.keys(options.handlers)
    let wake = yield* Deferred.make<void>()
    const fibers = yield* FiberSet.make()
    const drainMs = options.drainMs ?? (yield* DrainGrace)
    /** Set when the scope closes: nothing more is claimed while the jobs in flight finish. */
    let stopping = false
    // runs before the FiberSet's finalizer (added after it), which interrupts what is left
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        stopping = true
        if (load.total === 0 || drainMs <= 0) return Effect.void
        return Effect.logInfo("job runner draining", { workerId, inFlight: load.total, graceMs: drainMs }).pipe(
          Effect.zipRight(
            Effect.repeat(Effect.sleep(Duration.millis(20)), { until: () => load.total === 0 }).pipe(Effect.timeoutOption(Duration.millis(drainMs)))
          ),
          Effect.tap((finished) =>
            finished._tag === "None"
              ? Effect.logWarning("job runner: jobs still running after the grace period are stopped", { inFlight: load.total })
              : Effect.void
          )
        )
      })
    )
    // one permit, taken in the order asked (the order claimed): ordered kinds' jobs one at a time;
    // while some wait or run, no more of them are claimed, so they never hold every slot for long
    const inOrder = yield* Effect.makeSemaphore(1)
    const orderedKinds = new Set(kinds.filter((kind) => options.handlers[kind].ordered === true))
    const outboundKinds = new Set(kinds.filter((kind) => options.handlers[kind].transactional === false))
    let orderedInFlight = 0
    /** The jobs in flight, by kind and by store. */
    const load = { byKind: new Map<string, number>(), byStore: new Map<string, number>(), outbound: 0, total: 0 }
    const bump = (map: Map<string, number>, key: string, by: number) => {
      const n = (map.get(key) ?? 0) + by
      if (n === 0) map.delete(key)
      else map.set(key, n)
    }
    const track = (job: JobQueue.Job, by: 1 | -1) => {
      load.total += by
      bump(load.byKind, job.kind, by)
      if (job.storeId !== undefined && job.storeId !== null) bump(load.byStore, job.storeId, by)
      if (outboundKinds.has(job.kind)) load.outbound += by
      if (orderedKinds.has(job.kind)) orderedInFlight += by
    }
    /** The earliest time a job this runner put back is due (it polls then, however idle). */
    let deferredDue = Number.POSITIVE_INFINITY

    const completeOf = (job: JobQueue.Job) =>
      Effect.flatMap(queue.complete({ id: job.id, attempt: job.attempt }), (ok) =>
        ok ? Effect.void : Effect.fail(new JobQueue.LeaseLost({ jobId: job.id, attempt: job.attempt }))
      )
    /** Completes the job, or puts it back for later when its handler answered `RunLater`. */
    const settleOf = (job: JobQueue.Job, result: unknown) =>
      result instanceof JobQueue.RunLater
        ? Effect.flatMap(queue.defer({ id: job.id, attempt: job.attempt }, result.at), (ok) =>
            ok
              ? Effect.sync(() => {
                  deferredDue = Math.min(deferredDue, result.at)
                })
              : Effect.fail(new JobQueue.LeaseLost({ jobId: job.id, attempt: job.attempt }))
          )
        : completeOf(job)
    const heartbeatOf = (job: JobQueue.Job) =>
      Effect.flatMap(queue.heartbeat({ id: job.id, attempt: job.attempt }, leaseMs), (ok) =>
        ok ? Effect.void : Effect.fail(new JobQueue.LeaseLost({ jobId: job.id, attempt: job.attempt }))
      )
    const settled = (jobs: ReadonlyArray<JobQueue.Job>) =>
      Effect.zipRight(
        Effect.sync(() => {
          for (const job of jobs) track(job, -1)
        }),
        Effect.suspend(() => Deferred.succeed(wake, undefined))
      )

    const finish = (job: JobQueue.Job, handler: Handler<R>) => {
      const lease: JobQueue.Lease = { id: job.id, attempt: job.attempt }
      const settle = (result: unknown) => settleOf(job, result)
      // a deadlock victim runs again at once (the other transaction has committed meanwhile):
      // a retry after back-off would let later jobs overtake it (operator webhooks in order)
      const inTransaction = (left: number): Effect.Effect<void, unknown, R> =>
        tx
          .withTransaction(Effect.flatMap(handler.run(job), settle))
          .pipe(Effect.catchAllCause((cause) => (left > 0 && isTransient(cause) ? inTransaction(left - 1) : Effect.failCause(cause))))
      const work = handler.transactional === false ? Effect.flatMap(handler.run(job), settle) : inTransaction(TRANSIENT_RETRIES)
      const body = (handler.ordered === true ? inOrder.withPermits(1)(work) : work).pipe(
        Effect.withSpan(`job ${job.kind}`, {
          attributes: { "switchboard.job.id": job.id, "switchboard.job.kind": job.kind, "switchboard.job.attempt": job.attempt }
        })
      )
      const heartbeat = heartbeatOf(job).pipe(Effect.delay(Duration.millis(leaseMs / 3)), Effect.forever)
      return Effect.raceFirst(
        body,
        Effect.flatMap(heartbeat, () => Effect.never)
      ).pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.void
          const lost = Cause.failureOption(cause)
          if (lost._tag === "Some" && lost.value instanceof JobQueue.LeaseLost) {
            return Effect.logWarning("job lease lost; another worker owns it now", { job: job.id, kind: job.kind, attempt: job.attempt })
          }
          const error = describe(cause)
          const dead = job.attempt >= (handler.maxAttempts ?? 10)
          return Effect.zipRight(
            Effect.logWarning(dead ? "job failed for good" : "job failed; will retry").pipe(
              Effect.annotateLogs({ job: job.id, kind: job.kind, attempt: job.attempt, cause: error })
            ),
            dead
              ? queue.fail(lease, error)
              : Effect.flatMap(Clock.currentTimeMillis, (now) => queue.retry(lease, now + (handler.backoffMs ?? backoffMs)(job.attempt), error))
          )
        }),
        Effect.ensuring(settled([job]))
      )
    }

    /** First attempts of an ordered kind with `runMany`, claimed together: one transaction, in order; on failure each alone. */
    const finishTogether = (jobs: ReadonlyArray<JobQueue.Job>, handler: Handler<R>, runMany: NonNullable<Handler<R>["runMany"]>) => {
      const inTransaction = (left: number): Effect.Effect<void, unknown, R> =>
        tx
          .withTransaction(Effect.zipRight(runMany(jobs), Effect.forEach(jobs, completeOf, { discard: true })))
          .pipe(Effect.catchAllCause((cause) => (left > 0 && isTransient(cause) ? inTransaction(left - 1) : Effect.failCause(cause))))
      const heartbeat = Effect.forEach(jobs, heartbeatOf, { discard: true }).pipe(Effect.delay(Duration.millis(leaseMs / 3)), Effect.forever)
      return Effect.raceFirst(
        inOrder.withPermits(1)(inTransaction(TRANSIENT_RETRIES)),
        Effect.flatMap(heartbeat, () => Effect.never)
      ).pipe(
        Effect.matchCauseEffect({
          onSuccess: () => settled(jobs),
          onFailure: (cause) =>
            Cause.isInterruptedOnly(cause)
              ? settled(jobs)
              : Effect.zipRight(
                  Effect.logWarning("jobs run together failed; running each alone", {
                    kind: jobs[0].kind,
                    jobs: jobs.length,
                    error: describe(cause)
                  }),
                  // each settles itself
                  Effect.forEach(jobs, (job) => finish(job, handler), { discard: true })
                )
        })
      )
    }

    /** Reads the runnable jobs this runner has room for and claims a fair share of them; answers the claimed jobs and whether any was runnable. */
    const claimFairly = Effect.gen(function* () {
      if (stopping) return { jobs: [], found: false }
      const kindsNow = kinds.map(
        (kind): Fairness.Kind => ({
          kind,
          outbound: outboundKinds.has(kind),
          ordered: orderedKinds.has(kind),
          blocked: orderedKinds.has(kind) && orderedInFlight > 0
        })
      )
      const room = Fairness.room(kindsNow, limits, load)
      if (room.length === 0) return { jobs: [], found: true }
      const candidates = yield* queue.runnable({ kinds: room, excludeStores: Fairness.fullStores(limits, load) })
      if (candidates.length === 0) return { jobs: [], found: false }
      const chosen = Fairness.choose(candidates, kindsNow, limits, load)
      const jobs = yield* queue.claimIds({ workerId, ids: chosen.map((c) => c.id), leaseMs })
      return { jobs, found: true }
    })

    const loop = Effect.gen(function* () {
      const { found, jobs } = yield* claimFairly
      // in claim order: a run of first attempts of one kind that runs jobs together goes as one
      let together: Array<JobQueue.Job> = []
      const startTogether = Effect.suspend(() => {
        const group = together
        together = []
        if (group.length === 0) return Effect.void
        const handler = options.handlers[group[0].kind]
        return FiberSet.run(fibers, group.length === 1 ? finish(group[0], handler) : finishTogether(group, handler, handler.runMany!))
      })
      for (const job of jobs) {
        const handler = options.handlers[job.kind]
        track(job, 1)
        const joins = handler.ordered === true && handler.transactional !== false && handler.runMany !== undefined && job.attempt === 1
        if (joins && (together.length === 0 || together[0].kind === job.kind)) {
          together.push(job)
          continue
        }
        yield* startTogether
        if (joins) together.push(job)
        else yield* FiberSet.run(fibers, finish(job, handler))
      }
      yield* startTogether
      // idle (nothing runnable), or busy: wait for a job to finish, a job queued by this process,
      // the poll interval, or the time a job this runner put back is due
      const now = yield* Clock.currentTimeMillis
      const interval = found ? pollMs : idleMs
      const until = Math.max(0, Math.min(interval, deferredDue - now))
      const woken = yield* Effect.raceFirst(Effect.as(Deferred.await(wake), true), queue.awaitEnqueue(until, kinds))
      if (deferredDue <= (yield* Clock.currentTimeMillis)) deferredDue = Number.POSITIVE_INFINITY
      idleMs = woken || found ? pollMs : Math.min(idlePollMs, idleMs * 2)
      wake = yield* Deferred.make<void>()
    }).pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.zipRight(Effect.logError("job claim failed", cause), Effect.sleep(Duration.seconds(1)))
      ),
      Effect.forever
    )
    yield* Effect.logInfo("job runner started", { workerId, kinds, concurrency, perKind: limits.perKind, perStore: limits.perStore })
    return yield* loop
  })
