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
 *   number has no active campaign left (under the lane lock, see `Campaigns.finishLaneIfIdle`).
 *
 * The runner also runs `Campaigns.sweep` periodically (activates due scheduled campaigns,
 * revives lanes whose job is gone, cancels in batches, folds counters): safe from several
 * workers at once.
 */
import {
  Campaign,
  Campaigns,
  type CampaignRepo,
  Id,
  JobQueue,
  MessageOperator,
  type MessagingRepo,
  type Store,
  StoreRepo,
  type Transactor,
  type WebhookRepo
} from "@switchboard/domain"
import { Cause, Config, type ConfigError, Duration, Effect, Exit, FiberSet, Layer, Option, Runtime, type Scope } from "effect"
import { FailureWindow, Pacer, UserGaps } from "./internal/Pacer.js"
import { Signal } from "./internal/Signal.js"

export interface Options {
  /** Messages per second of a sender number unless a campaign asks for less (default 80, at most 1000). */
  readonly messagesPerSecond?: number
  /**
   * Sends in flight at once per lane (default 32). The rate can only be reached while rate ×
   * the operator's answer time fits in it; more in flight also means more sends queued at a
   * slow operator, whose clock then sees them closer together than we started them (its
   * throughput refusals, 130429, go up).
   */
  readonly maxInFlight?: number
  /** Recipients per claim at most (default 500; never more than one second of the campaign's rate). */
  readonly batchSize?: number
  /** Lease of a lane job (default 30 s); heartbeat every third of it. */
  readonly leaseMs?: number
  /** The lane stops sending when its last heartbeat is older than lease minus this (default lease / 5, at least 500 ms). */
  readonly leaseMarginMs?: number
  /**
   * A recipient left `sending` without any status report this long after its claim is sent
   * again (default 2 min; must exceed the lease, and the couple of seconds a claimed
   * recipient waits in the lane's queue plus the operator's delay before its first status).
   */
  readonly reconcileAfterMs?: number
  /** Added to the one-second window (default 25 ms): covers the jitter between our send and the operator's clock. */
  readonly pacingMarginMs?: number
  /** At most one message per this long to one user (default 6 s). */
  readonly perUserGapMs?: number
  /** How often the runner looks for lane jobs (default 250 ms). */
  readonly pollMs?: number
  /** How often the runner sweeps (default 5 s). */
  readonly sweepMs?: number
  /** Lanes run by this process at once (default 64). */
  readonly maxLanes?: number
  /** How often outcomes are written (default 250 ms). */
  readonly flushMs?: number
  /** `campaign.progress` at most this often per campaign (default 1 s). */
  readonly progressMs?: number
  /** How often a lane re-reads its campaigns' statuses (pause and cancel take effect within this; default 100 ms). */
  readonly watchMs?: number
  /** Auto-pause when more than `ratio` of the last `window` sends (at least `minimum`) failed (default 200, 50, 0.5). */
  readonly failurePause?: { readonly window: number; readonly minimum: number; readonly ratio: number }
  readonly workerId?: string
}

/** What the lanes need: the store's ports and the operator. */
export type Requirements =
  | JobQueue.JobQueue
  | Transactor.Transactor
  | CampaignRepo.CampaignRepo
  | StoreRepo.StoreRepo
  | MessagingRepo.OptOutRepo
  | WebhookRepo.WebhookRepo
  | MessageOperator.MessageOperator

type Resolved = Required<Omit<Options, "workerId" | "leaseMarginMs">> & { readonly leaseMarginMs: number; readonly workerId: string | undefined }

export const resolve = (options: Options = {}): Resolved => {
  const leaseMs = options.leaseMs ?? 30_000
  const messagesPerSecond = Math.min(Campaign.MAX_MESSAGES_PER_SECOND, Math.max(1, Math.floor(options.messagesPerSecond ?? Campaign.DEFAULT_MESSAGES_PER_SECOND)))
  const resolved: Resolved = {
    messagesPerSecond,
    maxInFlight: options.maxInFlight ?? 32,
    batchSize: options.batchSize ?? 500,
    leaseMs,
    leaseMarginMs: options.leaseMarginMs ?? Math.max(500, leaseMs / 5),
    reconcileAfterMs: options.reconcileAfterMs ?? Campaigns.DEFAULT_RECONCILE_AFTER_MS,
    pacingMarginMs: options.pacingMarginMs ?? 25,
    perUserGapMs: options.perUserGapMs ?? 6_000,
    pollMs: options.pollMs ?? 250,
    sweepMs: options.sweepMs ?? 5_000,
    maxLanes: options.maxLanes ?? 64,
    flushMs: options.flushMs ?? 250,
    progressMs: options.progressMs ?? 1_000,
    watchMs: options.watchMs ?? 100,
    failurePause: options.failurePause ?? { window: 200, minimum: 50, ratio: 0.5 },
    workerId: options.workerId
  }
  if (resolved.reconcileAfterMs <= leaseMs) {
    throw new Error(`campaign lanes: reconcileAfterMs (${resolved.reconcileAfterMs}) must exceed the lease (${leaseMs})`)
  }
  return resolved
}

interface Outcomes {
  accepted: Array<{ readonly id: string; readonly operatorMessageId: string }>
  failed: Array<{ readonly id: string; readonly code: number; readonly reason: string; readonly retryable: boolean }>
  released: Array<{ readonly id: string; readonly seq: number }>
  optedOut: Array<string>
}

const emptyOutcomes = (): Outcomes => ({ accepted: [], failed: [], released: [], optedOut: [] })
const hasOutcomes = (o: Outcomes) => o.accepted.length + o.failed.length + o.released.length > 0

interface CampaignState {
  campaign: Campaign.Campaign
  active: boolean
  /** Its own pace when slower than the number's. */
  pacer: Pacer | undefined
  failures: FailureWindow
  /** The last claim found nothing pending. */
  exhausted: boolean
  /** An automatic pause was asked for. */
  pausing: boolean
  inFlight: number
  /** Claimed and not sent yet (in `queue` from `head`, or deferred for the per-user gap). */
  queued: number
  queue: Array<CampaignRepo.ClaimedRecipient>
  head: number
  outcomes: Outcomes
  lastProgressAt: number
}

interface Item {
  readonly state: CampaignState
  readonly recipient: CampaignRepo.ClaimedRecipient
}

const sleep = (ms: number) => Effect.sleep(Duration.millis(Math.max(0, ms)))

/**
 * The wait after the operator's per-number throughput answer (130429). The pacer already
 * keeps the rate; such an answer means the operator's clock saw a few of our sends closer
 * together than we started them, so a short pause is enough (a full second would cost a
 * second's worth of sends).
 */
const NUMBER_THROTTLE_MS = 50

/**
 * The lane's sends: a rate-limit answer comes back at once instead of being retried inside
 * the client, where the pacer would not count the retry (the recipient goes back to pending
 * and is sent again when the pacer allows).
 */
const PACED: MessageOperator.SendOptions = { retryRateLimits: false }

const accountOf = (store: Store.Store, kind: Store.AccountKind): Store.OperatorAccount | undefined =>
  kind === "live" ? (store.live ?? undefined) : store.sandbox

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
      const phoneNumberId = (job.payload as { readonly phoneNumberId?: unknown } | null)?.phoneNumberId
      const lease: JobQueue.Lease = { id: job.id, attempt: job.attempt }
      if (typeof phoneNumberId !== "string") {
        yield* Effect.logError("campaign lane job without phoneNumberId", { job: job.id })
        yield* queue.fail(lease, "payload without phoneNumberId")
        return "invalid"
      }
      const laneAttempt = `${job.id}:${job.attempt}`
      let lastBeat = claimedAt
      let lost = false
      const leaseValid = () => !lost && Date.now() - lastBeat < o.leaseMs - o.leaseMarginMs

      const routed = yield* (yield* StoreRepo.StoreRepo).findByPhoneNumberId(phoneNumberId)
      const account = Option.isSome(routed) ? accountOf(routed.value.store, routed.value.kind) : undefined

      const states = new Map<string, CampaignState>()
      /** Position in `order` of the campaign whose turn is next (round-robin, one message each). */
      let turn = 0
      const deferred: Array<{ readonly item: Item; readonly readyAt: number }> = []
      let pacer = new Pacer(o.messagesPerSecond, o.pacingMarginMs)
      // The previous holder of this number's lane (a crashed worker, or the last generation
      // that just went idle) may have sent up to a second's worth right before: start after
      // a full window, so the two never share one.
      pacer.block(Date.now() + 1000 + o.pacingMarginMs)
      let previousPacer: { readonly pacer: Pacer; readonly until: number } | undefined
      const gaps = new UserGaps(o.perUserGapMs)
      let inFlight = 0
      let unknownStreak = 0
      let roundRobin = 0

      const rateOf = (c: Campaign.Campaign) => Math.min(o.messagesPerSecond, c.messagesPerSecond ?? o.messagesPerSecond)
      /**
       * Recipients per claim of a campaign: at most one second of its rate. A claimed row is
       * `sending` from its claim on, and reconciliation counts from then, so the queue must
       * never hold more than a couple of seconds of sends (claim when under one claim's worth).
       */
      const claimSize = (st: CampaignState) => Math.min(o.batchSize, Math.max(1, Math.min(pacer.perSecond, rateOf(st.campaign))))

      /** Back to the front of its campaign's queue. */
      const putBack = (item: Item) => {
        const st = item.state
        if (st.head > 0) st.queue[--st.head] = item.recipient
        else st.queue.unshift(item.recipient)
      }
      const release = (item: Item) => {
        item.state.outcomes.released.push({ id: item.recipient.id, seq: item.recipient.seq })
      }
      /** Gives back the claimed but unsent recipients of inactive campaigns (or all). */
      const releaseQueued = (all: boolean) => {
        for (const st of states.values()) {
          if (!all && st.active) continue
          for (let i = st.head; i < st.queue.length; i++) {
            release({ state: st, recipient: st.queue[i] })
            st.queued--
          }
          st.queue = []
          st.head = 0
        }
        for (let i = deferred.length - 1; i >= 0; i--) {
          const d = deferred[i]
          if (all || !d.item.state.active) {
            release(d.item)
            d.item.state.queued--
            deferred.splice(i, 1)
          }
        }
      }

      /** Wakes the sending loop: the feeder queued recipients. */
      const workQueued = new Signal()
      /** Wakes the feeder: a queue ran low, or a campaign may have new work. */
      const claimWanted = new Signal()

      /** The campaigns in the order the sender takes turns (`states`' values, kept in step with it). */
      let order: Array<CampaignState> = []
      const reorder = () => {
        order = [...states.values()]
      }

      /** The next recipient to send: round-robin over the campaigns, one message each. */
      const takeNext = (): Item | undefined => {
        for (let k = 0; k < order.length; k++) {
          const st = order[(turn + k) % order.length]
          if (st.head < st.queue.length) {
            turn = (turn + k + 1) % order.length
            const recipient = st.queue[st.head++]
            if (st.queue.length - st.head < claimSize(st)) claimWanted.notify()
            if (st.head > 1024 && st.head * 2 > st.queue.length) {
              st.queue = st.queue.slice(st.head)
              st.head = 0
            }
            return { state: st, recipient }
          }
        }
        return undefined
      }

      const refresh = Effect.gen(function* () {
        const active = yield* Campaigns.activeOfLane(phoneNumberId)
        const ids = new Set(active.map((c) => c.id))
        let changed = false
        for (const state of states.values()) {
          if (state.active && !ids.has(state.campaign.id)) {
            state.active = false
            changed = true
          }
        }
        let rate = 0
        for (const c of active) {
          const state = states.get(c.id)
          if (state === undefined) {
            states.set(c.id, {
              campaign: c,
              active: true,
              pacer: undefined,
              failures: new FailureWindow(o.failurePause.window),
              exhausted: false,
              pausing: false,
              inFlight: 0,
              queued: 0,
              queue: [],
              head: 0,
              outcomes: emptyOutcomes(),
              lastProgressAt: 0
            })
            reorder()
            claimWanted.notify()
          } else {
            if (!state.active) {
              // active again (resumed, retried): a fresh start
              state.active = true
              state.pausing = false
              state.exhausted = false
              state.failures = new FailureWindow(o.failurePause.window)
              claimWanted.notify()
            }
            state.campaign = c
          }
          rate = Math.max(rate, rateOf(c))
        }
        if (rate > 0 && rate !== pacer.perSecond) {
          // the old window keeps binding for a second, so a change of rate never bursts
          previousPacer = { pacer, until: Date.now() + 1000 + o.pacingMarginMs }
          pacer = new Pacer(rate, o.pacingMarginMs)
        }
        for (const state of states.values()) {
          if (!state.active) continue
          const own = rateOf(state.campaign)
          if (own < pacer.perSecond && state.pacer?.perSecond !== own) state.pacer = new Pacer(own, o.pacingMarginMs)
          if (own >= pacer.perSecond) state.pacer = undefined
        }
        if (changed) releaseQueued(false)
        return active.length
      })

      const flush = Effect.gen(function* () {
        const now = Date.now()
        for (const state of [...states.values()]) {
          if (!hasOutcomes(state.outcomes) && state.outcomes.optedOut.length === 0) {
            if (!state.active && state.inFlight === 0 && state.queued === 0) {
              states.delete(state.campaign.id)
              reorder()
            }
            continue
          }
          const outcomes = state.outcomes
          state.outcomes = emptyOutcomes()
          const progress = state.active && now - state.lastProgressAt >= o.progressMs
          const recorded = yield* Effect.either(
            Campaigns.recordOutcomes(state.campaign, laneAttempt, outcomes, outcomes.optedOut, progress).pipe(
              Effect.catchAllDefect((defect) => Effect.fail(defect))
            )
          )
          if (recorded._tag === "Left") {
            // keep them for the next flush (a deadlock victim or a lost connection)
            yield* Effect.logWarning("campaign outcomes not written; retrying", { campaign: state.campaign.id, error: String(recorded.left) })
            const next = state.outcomes
            state.outcomes = {
              accepted: [...outcomes.accepted, ...next.accepted],
              failed: [...outcomes.failed, ...next.failed],
              released: [...outcomes.released, ...next.released],
              optedOut: [...outcomes.optedOut, ...next.optedOut]
            }
            continue
          }
          if (progress) state.lastProgressAt = now
          if (recorded.right.released > 0) {
            state.exhausted = false
            claimWanted.notify()
          }
        }
      })

      const autoPause = (state: CampaignState, reason: string) =>
        Effect.gen(function* () {
          if (state.pausing) return
          state.pausing = true
          state.active = false
          releaseQueued(false)
          yield* Effect.logWarning("campaign paused by the worker", { campaign: state.campaign.id, reason })
          yield* Campaigns.autoPause(state.campaign.id, reason).pipe(
            Effect.catchAllCause((cause) => Effect.logError("automatic pause failed", cause))
          )
        })

      /** Books one send's result; answers an effect only for the rare automatic pause. */
      const onResult = (
        item: Item,
        result: Campaigns.SendResult
      ): Effect.Effect<void, never, Effect.Effect.Context<ReturnType<typeof Campaigns.autoPause>>> | undefined => {
        const { state, recipient } = item
        switch (result._tag) {
          case "Accepted":
            unknownStreak = 0
            state.outcomes.accepted.push({ id: recipient.id, operatorMessageId: result.operatorMessageId })
            state.failures.record(false)
            return undefined
          case "Throttled":
            release(item)
            if (result.scope === "user") gaps.record(recipient.phone, Date.now()) // this user waits a gap; the lane goes on
            else {
              // not sent: no gap for this user (else its resend waits 6 s, and a campaign's end with it)
              gaps.forget(recipient.phone)
              pacer.block(Date.now() + (result.scope === "number" ? Math.min(result.retryAfterMs, NUMBER_THROTTLE_MS) : result.retryAfterMs))
            }
            return undefined
          case "Unknown":
            // the operator may have taken it: left `sending` for the status webhook or reconciliation
            if (++unknownStreak >= 3) pacer.block(Date.now() + 1000)
            return undefined
          case "Refused": {
            unknownStreak = 0
            switch (result.refusal) {
              case "template":
                release(item)
                return autoPause(state, `the operator refused the template (code ${result.code}): ${result.reason}`)
              case "throttled": // (sendResultOf answers Throttled for these; kept for completeness)
                release(item)
                pacer.block(Date.now() + 1000)
                return undefined
              case "optedOut":
                state.outcomes.optedOut.push(recipient.phone)
                state.outcomes.failed.push({ id: recipient.id, code: result.code, reason: result.reason, retryable: false })
                break
              case "retryable":
                state.outcomes.failed.push({ id: recipient.id, code: result.code, reason: result.reason, retryable: true })
                break
              case "permanent":
                state.outcomes.failed.push({ id: recipient.id, code: result.code, reason: result.reason, retryable: false })
                break
            }
            state.failures.record(true)
            const { minimum, ratio } = o.failurePause
            return state.failures.exceeds(minimum, ratio)
              ? autoPause(state, `${state.failures.failed} of the last ${state.failures.size} sends failed (last: code ${result.code}, ${result.reason})`)
              : undefined
          }
        }
      }

      /** Wakes the sending loop when it waits for a slot: a send in flight ended. */
      const slotFreed = new Signal()
      const finished = (item: Item) => {
        inFlight--
        item.state.inFlight--
        slotFreed.notify()
      }

      // Sends run as plain callbacks on the lane's runtime (no fiber bookkeeping per send: this
      // is the hot path); the lane waits for them through `inFlight`.
      const runtime = yield* Effect.runtime<Requirements>()
      const runCallback = Runtime.runCallback(runtime)
      const runFork = Runtime.runFork(runtime)
      const send = (item: Item): void => {
        runCallback(operator.sendMessage(account!, Campaigns.outboundFor(item.state.campaign, item.recipient), PACED), {
          onExit: (exit) => {
            finished(item)
            let next: Effect.Effect<void, never, Requirements> | undefined
            if (Exit.isSuccess(exit)) {
              next = onResult(item, { _tag: "Accepted", operatorMessageId: exit.value.messageId })
            } else {
              const failure = Cause.failureOption(exit.cause)
              if (failure._tag === "Some") next = onResult(item, Campaigns.sendResultOf(failure.value))
              else {
                // interrupted or a defect: whether the operator took it is unknown
                onResult(item, { _tag: "Unknown", reason: "interrupted" })
                if (!Cause.isInterruptedOnly(exit.cause)) next = Effect.logError("send failed unexpectedly", exit.cause)
              }
            }
            if (next !== undefined) runFork(next)
          }
        })
      }

      /** The next campaign to claim from, round-robin over active campaigns with work. */
      const nextToClaim = (): CampaignState | undefined => {
        const candidates = [...states.values()].filter((s) => s.active && !s.exhausted && !s.pausing && s.queue.length - s.head < claimSize(s))
        if (candidates.length === 0) return undefined
        return candidates[roundRobin++ % candidates.length]
      }

      const feeder = Effect.gen(function* () {
        for (;;) {
          if (!leaseValid()) {
            // the sending loop stops too; nothing more is claimed
            yield* sleep(100)
            continue
          }
          const state = nextToClaim()
          if (state === undefined) {
            yield* claimWanted.wait(250)
            continue
          }
          const started = Date.now()
          const claimed = yield* Effect.either(Campaigns.claim(state.campaign, lease, o.leaseMs, laneAttempt, claimSize(state)))
          if (claimed._tag === "Left") {
            if (claimed.left._tag === "LeaseLost") lost = true
            continue
          }
          lastBeat = Math.max(lastBeat, started)
          if (claimed.right.recipients.length === 0) {
            state.exhausted = true
            continue
          }
          for (const recipient of claimed.right.recipients) state.queue.push(recipient)
          state.queued += claimed.right.recipients.length
          workQueued.notify()
        }
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.zipRight(Effect.logError("campaign claim failed", cause), sleep(1000))
        ),
        Effect.forever
      )

      const heartbeat = Effect.gen(function* () {
        yield* sleep(o.leaseMs / 3)
        const started = Date.now()
        const ok = yield* queue.heartbeat(lease, o.leaseMs).pipe(
          Effect.catchAllDefect((defect) => Effect.as(Effect.logWarning("lane heartbeat failed", { defect: String(defect) }), undefined))
        )
        if (ok === true) lastBeat = Math.max(lastBeat, started)
        if (ok === false) lost = true
      }).pipe(Effect.forever)

      const every = <E, R>(ms: number, effect: Effect.Effect<unknown, E, R>, what: string) =>
        Effect.zipRight(
          sleep(ms),
          effect.pipe(Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(`campaign lane ${what} failed`, cause))))
        ).pipe(Effect.forever)

      /** Reconciles and completes campaigns whose claims found nothing. */
      const maintenance = Effect.gen(function* () {
        for (const state of [...states.values()]) {
          if (!state.active || state.pausing) continue
          if (!state.exhausted) continue
          state.exhausted = false // claim again at least once a second (a retry or a release may have added work)
          claimWanted.notify()
          if (state.inFlight > 0 || state.queued > 0 || hasOutcomes(state.outcomes)) continue
          if ((yield* Campaigns.reconcile(state.campaign.id, o.reconcileAfterMs)) > 0) continue
          if (yield* Campaigns.hasSending(state.campaign.id)) continue
          if (yield* Campaigns.completeIfDone(state.campaign.id)) state.active = false
        }
      })

      if (account === undefined) {
        yield* Effect.logError("campaign lane: no store owns this sender number; pausing its campaigns", { phoneNumberId })
        for (const c of yield* Campaigns.activeOfLane(phoneNumberId)) yield* Campaigns.autoPause(c.id, `no store owns the sender number ${phoneNumberId}`)
      }

      yield* Effect.forkScoped(heartbeat)
      yield* Effect.forkScoped(every(o.watchMs, refresh, "status refresh"))
      yield* Effect.forkScoped(every(o.flushMs, flush, "flush"))
      yield* Effect.forkScoped(every(1000, maintenance, "maintenance"))
      yield* Effect.forkScoped(feeder)

      /** Stops sending: waits for sends in flight, gives back the unsent, writes every outcome. */
      const drain = Effect.gen(function* () {
        while (inFlight > 0) yield* sleep(5)
        releaseQueued(true)
        for (let i = 0; i < 50; i++) {
          yield* flush
          if ([...states.values()].every((s) => !hasOutcomes(s.outcomes) && s.outcomes.optedOut.length === 0)) return
          yield* sleep(200)
        }
      })
      yield* Effect.addFinalizer(() => drain.pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore))

      while (true) {
        yield* refresh
        // the sending loop
        while (true) {
          if (!leaseValid()) break
          let item: Item | undefined
          const now = Date.now()
          if (deferred.length > 0 && deferred[0].readyAt <= now) item = deferred.shift()!.item
          else item = takeNext()
          if (item === undefined) {
            if (inFlight === 0 && ![...states.values()].some((s) => s.active)) break
            // until recipients are queued, the first deferred one is due, or the statuses need a look
            yield* workQueued.wait(deferred.length > 0 ? Math.min(o.watchMs, deferred[0].readyAt - now) : o.watchMs)
            continue
          }
          const state = item.state
          if (!state.active || state.pausing) {
            release(item)
            state.queued--
            continue
          }
          const readyAt = gaps.readyAt(item.recipient.phone)
          if (readyAt > now) {
            deferred.push({ item, readyAt })
            continue
          }
          const earliest = Math.max(
            pacer.earliest(),
            state.pacer?.earliest() ?? Number.NEGATIVE_INFINITY,
            previousPacer !== undefined && previousPacer.until > now ? previousPacer.pacer.earliest() : Number.NEGATIVE_INFINITY
          )
          if (earliest > now) {
            putBack(item) // statuses and the lease are checked again after the wait
            yield* sleep(Math.ceil(earliest - now))
            continue
          }
          if (inFlight >= o.maxInFlight) {
            // wait for a slot; statuses and the lease are checked again after the wait
            putBack(item)
            yield* slotFreed.wait(o.watchMs)
            continue
          }
          const at = Date.now()
          pacer.record(at)
          state.pacer?.record(at)
          if (previousPacer !== undefined && previousPacer.until > at) previousPacer.pacer.record(at)
          gaps.record(item.recipient.phone, at)
          inFlight++
          state.inFlight++
          state.queued--
          send(item)
        }
        yield* drain
        if (!leaseValid()) {
          yield* Effect.logWarning("campaign lane stopped: its lease can no longer be proven", { phoneNumberId, job: job.id, attempt: job.attempt })
          return "lease lost"
        }
        const finished = yield* Effect.either(Campaigns.finishLaneIfIdle(phoneNumberId, lease))
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
    const workerId = o.workerId ?? Id.make("wrk")
    const lanes = yield* FiberSet.make<unknown, never>()
    let running = 0
    let nextSweep = 0

    const lane = (job: JobQueue.Job, claimedAt: number) =>
      runLane(job, claimedAt, o).pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          return Effect.zipRight(
            Effect.logError("campaign lane failed; it will be retried", { job: job.id, attempt: job.attempt, cause: Cause.pretty(cause) }),
            queue.retry({ id: job.id, attempt: job.attempt }, new Date(Date.now() + laneBackoffMs(job.attempt)), Cause.pretty(cause).slice(0, 2000))
          )
        }),
        Effect.catchAllDefect((defect) => Effect.logError("campaign lane could not be retried", { defect: String(defect) })),
        Effect.ensuring(Effect.sync(() => running--))
      )

    yield* Effect.logInfo("campaign lane runner started", { workerId, messagesPerSecond: o.messagesPerSecond, leaseMs: o.leaseMs, reconcileAfterMs: o.reconcileAfterMs })
    while (true) {
      if (Date.now() >= nextSweep) {
        nextSweep = Date.now() + o.sweepMs
        yield* Campaigns.sweep({ reconcileAfterMs: o.reconcileAfterMs }).pipe(
          Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logWarning("campaign sweep failed", cause)))
        )
      }
      const free = o.maxLanes - running
      if (free > 0) {
        const claimedAt = Date.now()
        const jobs = yield* queue.claim({ workerId, kinds: [Campaigns.LANE_JOB], limit: free, leaseMs: o.leaseMs }).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.as(Effect.logWarning("lane claim failed", cause), [] as ReadonlyArray<JobQueue.Job>)
          )
        )
        for (const job of jobs) {
          running++
          yield* FiberSet.run(lanes, lane(job, claimedAt))
        }
      }
      yield* sleep(o.pollMs)
    }
  })

/** Runs the campaign lanes in the background of the process that includes it. */
export const layer = (options: Options = {}): Layer.Layer<never, never, Requirements> => Layer.scopedDiscard(Effect.forkScoped(run(options)))

/**
 * `layer` configured from the environment: `SWITCHBOARD_CAMPAIGN_MPS` (messages per second
 * per sender number, default 80, at most 1000), `SWITCHBOARD_CAMPAIGN_RECONCILE_MS` (default
 * 120000), `SWITCHBOARD_CAMPAIGN_LEASE_MS` (default 30000), `SWITCHBOARD_CAMPAIGN_MAX_LANES`
 * (default 64), `SWITCHBOARD_CAMPAIGN_MAX_IN_FLIGHT` (sends in flight per lane, default 32).
 */
export const layerConfig: Layer.Layer<never, ConfigError.ConfigError, Requirements> = Layer.unwrapEffect(
  Effect.map(
    Config.all({
      messagesPerSecond: Config.integer("SWITCHBOARD_CAMPAIGN_MPS").pipe(Config.withDefault(Campaign.DEFAULT_MESSAGES_PER_SECOND)),
      reconcileAfterMs: Config.integer("SWITCHBOARD_CAMPAIGN_RECONCILE_MS").pipe(Config.withDefault(Campaigns.DEFAULT_RECONCILE_AFTER_MS)),
      leaseMs: Config.integer("SWITCHBOARD_CAMPAIGN_LEASE_MS").pipe(Config.withDefault(30_000)),
      maxLanes: Config.integer("SWITCHBOARD_CAMPAIGN_MAX_LANES").pipe(Config.withDefault(64)),
      maxInFlight: Config.integer("SWITCHBOARD_CAMPAIGN_MAX_IN_FLIGHT").pipe(Config.withDefault(32))
    }),
    (options) => layer(options)
  )
)
