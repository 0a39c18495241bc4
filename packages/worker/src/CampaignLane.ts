/**
 * The campaign pacing worker: one lane per sender number (operator phone number id), run
 * as the job `campaign.lane` (payload `{ phoneNumberId }`). The job's lease is what gives
 * one worker a number's lane at a time, also with several workers on one PostgreSQL: the
 * runner claims lane jobs (`FOR UPDATE SKIP LOCKED` there), renews the lease by heartbeat,
 * and the lane stops sending the moment it cannot prove, locally, that its lease is still
 * valid (time since the last successful heartbeat below the lease minus a margin).
 *
 * A lane, round-robin over the number's active campaigns:
 * - claims recipients in batches, in insertion order (the claim marks them `sending` with
 *   the lane's attempt in one committed write before any send, after a heartbeat in the
 *   same transaction, and skips contacts that opted out meanwhile);
 * - sends each through the `MessageOperator` with the recipient id as callback data, several at
 *   once, each start gated by the pacer: never more than the number's messages per second
 *   in any sliding second (a ring of start times), about one message per 6 s to one user,
 *   and a wait after a rate-limit answer;
 * - records outcomes in batched writes fenced by its attempt: accepted (with the operator's
 *   message id), failed by class (retryable or not; 131050 also opts the contact out),
 *   released back to pending (throttled, or not sent because the campaign was paused);
 *   an answer that leaves it unknown whether the operator took the message (5xx, network)
 *   leaves the row `sending`, for the status webhook (our callback data) or, after the
 *   reconciliation window, a resend;
 * - pauses a campaign by itself when the operator says its template is paused or disabled,
 *   or when more than half of its last sends failed;
 * - completes a campaign when nothing is pending or sending, and ends its job when the
 *   number has no active campaign left (under the lane lock, see `CampaignLanes.finishLaneIfIdle`).
 *
 * What the lane keeps and decides is the pure `internal/Lane.ts`; this module is its Effect
 * shell: it reads the clock (`Clock`, so tests drive it), runs the loops (sending, claiming,
 * heartbeat, status refresh, outcome writes, maintenance; the sending loop itself is
 * `internal/SendingLoop.ts`) and waits where the lane says.
 * The runner also runs `CampaignLanes.sweep` periodically (activates due scheduled
 * campaigns, revives lanes whose job is gone, cancels in batches, folds counters): safe
 * from several workers at once.
 */
import {
  CampaignLaneMessages,
  CampaignLanes,
  CampaignMediaResend,
  type Errors,
  Id,
  JobQueue,
  MessageOperator,
  type Store,
  StoreRepo
} from "@switchboard/domain"
import { Cause, type ConfigError, Duration, Effect, Exit, Fiber, FiberSet, Layer, Option, Runtime, Schema, type Scope } from "effect"
import { type Item, Lane } from "./internal/Lane.js"
import { fromEnvironment, type Options, type Requirements, type Resolved, resolve } from "./internal/LaneOptions.js"
import { sendingLoop } from "./internal/SendingLoop.js"
import { Signal } from "./internal/Signal.js"

export type { Options, Requirements, Resolved } from "./internal/LaneOptions.js"
export { resolve } from "./internal/LaneOptions.js"

const sleep = (ms: number) => Effect.sleep(Duration.millis(Math.max(0, ms)))

/**
 * The lane's sends: a rate-limit answer comes back at once instead of being retried inside
 * the client, where the pacer would not count the retry (the recipient goes back to pending
 * and is sent again when the pacer allows).
 */
const PACED: MessageOperator.SendOptions = { retryRateLimits: false }

const accountOf = (store: Store.Store, kind: Store.AccountKind): Store.OperatorAccount | undefined =>
  kind === "live" ? (store.live ?? undefined) : store.sandbox

const decodePayload = Schema.decodeUnknownOption(CampaignLanes.LanePayload)

/** Logs and swallows a failure of a periodic step (interruption goes through). */
const logged = (what: string) =>
  Effect.catchAllCause((cause: Cause.Cause<unknown>) =>
    Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(`campaign lane ${what} failed`, cause)
  )

/**
 * One lane job: sends for the number until it has no active campaign (then the job is
 * completed) or the lease cannot be proven (then it stops and writes nothing more but its
 * fenced outcomes). `claimedAt` is when the claim that leased the job started.
 */
export const runLane = (job: JobQueue.Job, claimedAt: number, o: Resolved): Effect.Effect<string, never, Requirements> =>
  Effect.scoped(
    Effect.gen(function* () {
      const queue = yield* JobQueue.JobQueue
      const operator = yield* MessageOperator.MessageOperator
      const clock = yield* Effect.clock
      const now = () => clock.unsafeCurrentTimeMillis()
      const lease: JobQueue.Lease = { id: job.id, attempt: job.attempt }
      const payload = decodePayload(job.payload)
      if (Option.isNone(payload)) {
        yield* Effect.logError("campaign lane job without phoneNumberId", { job: job.id })
        yield* queue.fail(lease, "payload without phoneNumberId")
        return "invalid"
      }
      const { phoneNumberId } = payload.value
      const laneAttempt = `${job.id}:${job.attempt}`

      const routed = yield* (yield* StoreRepo.StoreRepo).findByPhoneNumberId(phoneNumberId)
      const account = Option.isSome(routed) ? accountOf(routed.value.store, routed.value.kind) : undefined

      /** Wakes the sending loop: the feeder queued recipients. */
      const workQueued = new Signal()
      /** Wakes the feeder: a queue ran low, or a campaign may have new work. */
      const claimWanted = new Signal()
      /** Wakes the sending loop when it waits for a slot: a send in flight ended. */
      const slotFreed = new Signal()
      const lane = new Lane(o, claimedAt, () => claimWanted.notify())
      /** The lane's template parts and re-uploaded media ids (kept by this run only). */
      const messages = new CampaignLaneMessages.LaneMessages()

      const refresh = Effect.map(CampaignLanes.activeOfLane(phoneNumberId), (active) => lane.refresh(active, now()))

      /** Writes the campaigns' outcomes: all of them, or (`afterMs`) those no claim took for that long. */
      const flushAfter = (afterMs: number) =>
        Effect.gen(function* () {
          for (const book of lane.campaigns()) {
            const at = now()
            const batch = lane.take(book, at, afterMs)
            if (batch === undefined) continue
            const { outcomes } = batch
            const recorded = yield* Effect.either(
              CampaignLanes.recordOutcomes(book.campaign, laneAttempt, outcomes, outcomes.optedOut, batch.progress).pipe(
                Effect.catchAllDefect(Effect.fail)
              )
            )
            if (recorded._tag === "Left") {
              // kept for the next flush (a deadlock victim or a lost connection)
              yield* Effect.logWarning("campaign outcomes not written; retrying", { campaign: book.campaign.id, error: String(recorded.left) })
              lane.notWritten(batch)
            } else lane.written(batch, recorded.right.released, at)
          }
        })
      const flush = flushAfter(0)

      // Sends run as plain callbacks (the operator's `sendPaced`, else on the lane's runtime: no
      // fiber bookkeeping per send, this is the hot path); the lane waits for them through `inFlight`.
      const runtime = yield* Effect.runtime<Requirements>()
      const runCallback = Runtime.runCallback(runtime)
      const runFork = Runtime.runFork(runtime)
      const booked = (item: Item, result: CampaignLanes.SendResult): void => {
        const pause = lane.onResult(item, result, now())
        if (pause === undefined) return
        runFork(
          Effect.zipRight(
            Effect.logWarning("campaign paused by the worker", { campaign: pause.campaign.id, reason: pause.reason, detail: pause.detail }),
            CampaignLanes.autoPause(pause.campaign, pause.reason, pause.detail).pipe(
              Effect.catchAllCause((cause) => Effect.logError("automatic pause failed", cause))
            )
          )
        )
      }
      const ended = (item: Item, exit: Exit.Exit<{ readonly messageId: string }, Errors.OperatorRejected | Errors.OperatorUnavailable>) => {
        if (retryMedia(item, exit)) return
        lane.finished(item, now())
        slotFreed.notify()
        if (Exit.isSuccess(exit)) return booked(item, { _tag: "Accepted", operatorMessageId: exit.value.messageId })
        const failure = Cause.failureOption(exit.cause)
        if (failure._tag === "Some") return booked(item, CampaignLanes.sendResultOf(failure.value))
        // interrupted or a defect: whether the operator took it is unknown
        booked(item, { _tag: "Unknown", reason: "interrupted" })
        if (!Cause.isInterruptedOnly(exit.cause)) runFork(Effect.logError("send failed unexpectedly", exit.cause))
      }
      // the operator refused our media (expired, or unknown on the number): upload it again and send again, once
      const retried = new WeakSet<Item>()
      const retryMedia = (item: Item, exit: Exit.Exit<unknown, Errors.OperatorRejected | Errors.OperatorUnavailable>): boolean => {
        if (Exit.isSuccess(exit) || retried.has(item)) return false
        const failure = Cause.failureOption(exit.cause)
        if (failure._tag === "None" || !CampaignMediaResend.mediaRefused(item.book.campaign, item.recipient, failure.value)) return false
        retried.add(item)
        runCallback(
          CampaignMediaResend.resendWithFreshMedia(messages, account!, item.book.campaign, item.recipient, PACED).pipe(
            Effect.catchTag("ValidationFailed", () => Effect.failCause(exit.cause as Cause.Cause<Errors.OperatorRejected>))
          ),
          { onExit: (again) => ended(item, again) }
        )
        return true
      }
      // the operator's fiberless send when it has one (no fiber, no runtime per message)
      const sendPaced = operator.sendPaced
      const send = (item: Item): void => {
        const message = messages.outboundFor(item.book.campaign, item.recipient)
        if (sendPaced !== undefined) sendPaced(account!, message, (exit) => ended(item, exit))
        else runCallback(operator.sendMessage(account!, message, PACED), { onExit: (exit) => ended(item, exit) })
      }

      const feeder = Effect.gen(function* () {
        for (;;) {
          if (!lane.leaseValid(now())) {
            // the sending loop stops too; nothing more is claimed
            yield* sleep(100)
            continue
          }
          const book = lane.nextToClaim()
          if (book === undefined) {
            yield* claimWanted.wait(250)
            continue
          }
          const started = now()
          // the campaign's outcomes so far go in the claim's transaction (one commit for both)
          const batch = lane.take(book, started)
          const outcomes: CampaignLanes.OutcomeBatch | undefined =
            batch === undefined ? undefined : { outcomes: batch.outcomes, optedOutPhones: batch.outcomes.optedOut, progress: batch.progress }
          // a claim and its recipients' place in the lane are one step: stopping the feeder
          // (the drain) never leaves claimed rows that no queue holds to give back
          yield* Effect.uninterruptible(
            Effect.flatMap(
              Effect.exit(CampaignLanes.claimRecording(book.campaign, lease, o, laneAttempt, lane.claimSize(book), outcomes)),
              (exit) => {
                if (Exit.isFailure(exit)) {
                  // nothing was written: the outcomes wait for the next claim or flush
                  if (batch !== undefined) lane.notWritten(batch)
                  const failure = Cause.failureOption(exit.cause)
                  if (Option.isNone(failure)) return Effect.failCause(exit.cause)
                  if (failure.value._tag === "LeaseLost") lane.lose()
                  return Effect.void
                }
                if (batch !== undefined) lane.written(batch, exit.value.recorded?.released ?? 0, started)
                lane.beat(started)
                if (lane.claimed(book, exit.value.claimed.recipients)) workQueued.notify()
                return Effect.void
              }
            )
          )
        }
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.zipRight(Effect.logError("campaign claim failed", cause), sleep(1000))
        ),
        Effect.forever
      )

      const heartbeat = Effect.gen(function* () {
        yield* sleep(o.leaseMs / 3)
        const started = now()
        const ok = yield* queue
          .heartbeat(lease, o.leaseMs)
          .pipe(Effect.catchAllDefect((defect) => Effect.as(Effect.logWarning("lane heartbeat failed", { defect: String(defect) }), undefined)))
        if (ok === true) lane.beat(started)
        if (ok === false) lane.lose()
      }).pipe(Effect.forever)

      const every = <E, R>(ms: number, effect: Effect.Effect<unknown, E, R>, what: string) =>
        Effect.zipRight(sleep(ms), effect.pipe(logged(what))).pipe(Effect.forever)

      /** Reconciles and completes campaigns whose claims found nothing. */
      const maintenance = Effect.gen(function* () {
        for (const book of lane.campaigns()) {
          if (!lane.exhaustedAndIdle(book)) continue
          if ((yield* CampaignLanes.reconcile(book.campaign.id, o.reconcileAfterMs)) > 0) continue
          if (yield* CampaignLanes.hasSending(book.campaign.id)) continue
          if (yield* CampaignLanes.completeIfDone(book.campaign.id)) lane.completed(book)
        }
      })

      if (account === undefined) {
        yield* Effect.logError("campaign lane: no store owns this sender number; pausing its campaigns", { phoneNumberId })
        for (const c of yield* CampaignLanes.activeOfLane(phoneNumberId))
          yield* CampaignLanes.autoPause(c, null, `no store owns the sender number ${phoneNumberId}`)
      }

      yield* Effect.forkScoped(heartbeat)
      yield* Effect.forkScoped(every(o.watchMs, refresh, "status refresh"))
      yield* Effect.forkScoped(every(o.flushMs, flushAfter(o.flushMs), "flush"))
      yield* Effect.forkScoped(every(1000, maintenance, "maintenance"))
      const feeding = yield* Effect.forkScoped(feeder)

      const sending = sendingLoop(lane, now, send, workQueued, slotFreed)

      /** Stops sending: waits for sends in flight, gives back the unsent, writes every outcome. */
      const drain = Effect.gen(function* () {
        while (lane.inFlight > 0) yield* sleep(5)
        lane.releaseQueued(true)
        for (let i = 0; i < 50; i++) {
          yield* flush
          if (!lane.hasUnwritten()) return
          yield* sleep(200)
        }
      })
      // stopped (a shutdown): once every outcome is written, the lane job is handed back, runnable
      // at once, so a restarted or other worker resumes the lane now rather than after the lease;
      // as a new attempt, so the next run's claims are told apart from this one's
      yield* Effect.addFinalizer((exit) =>
        // the feeder stops first: nothing is claimed after the queue is given back
        Effect.zipRight(Fiber.interrupt(feeding), drain).pipe(
          Effect.timeout(Duration.seconds(5)),
          Effect.zipRight(
            Exit.isInterrupted(exit) && !lane.hasUnwritten() && lane.leaseValid(now())
              ? Effect.flatMap(queue.retry(lease, now(), "handed back on shutdown"), (handed) =>
                  handed ? Effect.logInfo("campaign lane handed back on shutdown", { phoneNumberId, job: job.id }) : Effect.void
                )
              : Effect.void
          ),
          Effect.ignore
        )
      )

      while (true) {
        yield* refresh
        yield* sending
        yield* drain
        if (!lane.leaseValid(now())) {
          yield* Effect.logWarning("campaign lane stopped: its lease can no longer be proven", { phoneNumberId, job: job.id, attempt: job.attempt })
          return "lease lost"
        }
        const finished = yield* Effect.either(CampaignLanes.finishLaneIfIdle(phoneNumberId, lease))
        if (finished._tag === "Left") return "lease lost"
        if (finished.right) return "idle"
        // a campaign became active meanwhile: carry on
      }
    })
  )

/** Back-off of a lane job that failed unexpectedly: 1 s, 2 s, 4 s … at most 30 s. */
const laneBackoffMs = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.min(5, attempt - 1))

/**
 * Runs lane jobs (up to `maxLanes` at once) and the periodic sweep until interrupted (needs
 * a Scope for the lanes in flight). Interrupting gives back the unsent recipients of each
 * lane; sends in flight stay `sending` for reconciliation.
 */
export const run = (options: Options = {}): Effect.Effect<never, never, Requirements | Scope.Scope> =>
  Effect.gen(function* () {
    const o = resolve(options)
    const queue = yield* JobQueue.JobQueue
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const workerId = o.workerId ?? (yield* Id.generate("wrk"))
    const lanes = yield* FiberSet.make<unknown, never>()
    let running = 0
    let nextSweep = 0
    /** The next wait: `pollMs` after a look that found a lane, doubling up to `idlePollMs` while none do. */
    let idleMs = o.pollMs

    const lane = (job: JobQueue.Job, claimedAt: number) =>
      runLane(job, claimedAt, o).pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          return Effect.zipRight(
            Effect.logError("campaign lane failed; it will be retried", { job: job.id, attempt: job.attempt, cause: Cause.pretty(cause) }),
            queue.retry({ id: job.id, attempt: job.attempt }, now() + laneBackoffMs(job.attempt), Cause.pretty(cause).slice(0, 2000))
          )
        }),
        Effect.catchAllDefect((defect) => Effect.logError("campaign lane could not be retried", { defect: String(defect) })),
        Effect.ensuring(Effect.sync(() => running--))
      )

    yield* Effect.logInfo("campaign lane runner started", {
      workerId,
      messagesPerSecond: o.messagesPerSecond,
      leaseMs: o.leaseMs,
      reconcileAfterMs: o.reconcileAfterMs
    })
    while (true) {
      if (now() >= nextSweep) {
        nextSweep = now() + o.sweepMs
        yield* CampaignLanes.sweep({ reconcileAfterMs: o.reconcileAfterMs }).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logWarning("campaign sweep failed", cause)
          )
        )
      }
      const free = o.maxLanes - running
      let found = false
      if (free > 0) {
        const claimedAt = now()
        const jobs = yield* queue
          .claim({ workerId, kinds: [CampaignLanes.LANE_JOB], limit: free, leaseMs: o.leaseMs })
          .pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.failCause(cause)
                : Effect.as(Effect.logWarning("lane claim failed", cause), [] as ReadonlyArray<JobQueue.Job>)
            )
          )
        found = jobs.length > 0
        for (const job of jobs) {
          running++
          yield* FiberSet.run(lanes, lane(job, claimedAt))
        }
      }
      // a lane job queued by this process (a launch in `serve`) ends the wait at once
      const woken = yield* queue.awaitEnqueue(idleMs, [CampaignLanes.LANE_JOB])
      idleMs = found || woken ? o.pollMs : Math.min(o.idlePollMs, idleMs * 2)
    }
  })

/** Runs the campaign lanes in the background of the process that includes it. */
export const layer = (options: Options = {}): Layer.Layer<never, never, Requirements> => Layer.scopedDiscard(Effect.forkScoped(run(options)))

/** `layer` configured from the environment (`LaneOptions.fromEnvironment`: the `SWITCHBOARD_CAMPAIGN_*` settings). */
export const layerConfig: Layer.Layer<never, ConfigError.ConfigError, Requirements> = Layer.unwrapEffect(Effect.map(fromEnvironment, layer))
