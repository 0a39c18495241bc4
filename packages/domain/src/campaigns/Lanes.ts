/**
 * What the pacing worker asks of the domain: a sender number's lane job (queued by routes
 * and the sweep, ended by the lane when idle), claims, the message each recipient receives,
 * what a send came to, outcomes, automatic pauses, reconciliation, completion, and the
 * periodic sweep. The worker decides when and how fast; this module decides what.
 *
 * Everything here but `ensureLane` needs `CampaignLaneRepo`, which routes never receive.
 */
import { Effect, Option, Schema } from "effect"
import * as OperatorWebhooks from "../inbox/OperatorWebhooks.js"
import { JobQueue, type Lease, LeaseLost } from "../jobs/JobQueue.js"
import { Transactor } from "../jobs/Transactor.js"
import * as OperatorErrorCode from "../operator/ErrorCode.js"
import type * as Errors from "../shared/Errors.js"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Campaign from "./Campaign.js"
import { CampaignLaneRepo, CampaignRepo, type ClaimedRecipient, type SendOutcomes } from "./CampaignRepo.js"
import * as Events from "./Events.js"
import type * as Limits from "./Limits.js"
import * as Recipient from "./Recipient.js"
import * as Telemetry from "../shared/Telemetry.js"
import * as RichSend from "../templates/RichSend.js"
import * as TemplateSend from "../templates/TemplateSend.js"
import type { OutboundMessage } from "../messaging/MessageOperator.js"

const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactor, (tx) => tx.withTransaction(effect))

/** The payload of a lane job. */
export const LanePayload = Schema.Struct({ phoneNumberId: Schema.String })
export type LanePayload = typeof LanePayload.Type

/**
 * The job of a sender number's lane. Lane jobs are long-lived and paced: the worker's
 * `CampaignLane` runner claims them by this kind and runs them itself (with its own lease
 * and heartbeat), so the generic job runner must never run this `run`.
 */
export const LaneJob = Module.jobKind({
  kind: "campaign.lane",
  payload: LanePayload,
  run: () => Effect.dieMessage("campaign.lane jobs are run by the worker's CampaignLane runner, not the job runner")
})

/** The job kind of a sender number's lane; payload `{ phoneNumberId }`. */
export const LANE_JOB = LaneJob.kind

/** The dedupe key of a lane generation: one job per number and generation, ever. */
export const laneDedupeKey = (phoneNumberId: string, generation: number): string => `${LANE_JOB}:${phoneNumberId}:${generation}`

/** Default time after which a recipient left `sending` without any status report is sent again. */
export const DEFAULT_RECONCILE_AFTER_MS = 120_000

/** Operator webhooks received longer ago than this and still unprocessed postpone reconciliation (a backlog must not look like silence). */
export const WEBHOOK_BACKLOG_MS = 1000

/**
 * Makes sure the tenant's sender number has a live lane job, queueing a new generation when
 * its last one finished. Runs under the lane's lock (joining the caller's transaction), so it
 * cannot interleave with a lane deciding to stop (`finishLaneIfIdle`). Answers whether it
 * queued one.
 */
export const ensureLane = (tenant: Tenant, phoneNumberId: string) =>
  inTransaction(
    Effect.gen(function* () {
      const repo = yield* CampaignRepo
      const queue = yield* JobQueue
      const now = yield* Time.now
      const lane = yield* repo.lockLane(tenant, phoneNumberId, now)
      if (lane.jobId !== null && (yield* queue.isLive(lane.jobId))) return false
      const generation = lane.generation + 1
      const jobId = yield* queue.enqueue(Module.job(LaneJob, { phoneNumberId }, { dedupeKey: laneDedupeKey(phoneNumberId, generation) }))
      yield* repo.setLane(tenant, phoneNumberId, generation, jobId, now)
      return true
    })
  )

/**
 * A lane with nothing to do ends its job, under the lane's lock: when no campaign of the
 * number is active it completes the job (fenced by the lease) and answers true; when one is
 * (a launch won the race) it answers false and the lane carries on.
 */
export const finishLaneIfIdle = (phoneNumberId: string, lease: Lease) =>
  inTransaction(
    Effect.gen(function* () {
      const lanes = yield* CampaignLaneRepo
      yield* lanes.lockLane(phoneNumberId, yield* Time.now)
      if ((yield* lanes.activeOfLane(phoneNumberId)).length > 0) return false
      if (!(yield* (yield* JobQueue).complete(lease))) return yield* Effect.fail(new LeaseLost({ jobId: lease.id, attempt: lease.attempt }))
      return true
    })
  )

/** The active campaigns of a sender number. */
export const activeOfLane = (phoneNumberId: string) => Effect.flatMap(CampaignLaneRepo, (lanes) => lanes.activeOfLane(phoneNumberId))

/** The lease's length and the messaging limit's window of a claim. */
export interface ClaimOptions {
  readonly leaseMs: number
  readonly messagingWindowMs: number
}

/**
 * Claims the next recipients of a campaign for the lane, after proving the lane still holds
 * its job's lease (a heartbeat in the same transaction): a stalled worker claims nothing.
 * The claim keeps the messaging limit over a rolling `messagingWindowMs` (24 h; shorter
 * only in tests), see `CampaignLaneRepo.claim`.
 */
export const claim = (campaign: Campaign.Campaign, lease: Lease, o: ClaimOptions, laneAttempt: string, limit: number) =>
  inTransaction(claimed(campaign, lease, o, laneAttempt, limit))

/** `claim` but the transaction. */
const claimed = (campaign: Campaign.Campaign, lease: Lease, o: ClaimOptions, laneAttempt: string, limit: number) =>
  Effect.gen(function* () {
    const claimed = yield* (yield* CampaignLaneRepo).claim(campaign, { laneAttempt, limit, now: yield* Time.now, windowMs: o.messagingWindowMs })
    // last, so the job's row is locked only for the commit (the lane's own heartbeat never waits long)
    if (!(yield* (yield* JobQueue).heartbeat(lease, o.leaseMs))) return yield* Effect.fail(new LeaseLost({ jobId: lease.id, attempt: lease.attempt }))
    return claimed
  })

/** A lane's outcomes to write (`recordOutcomes`' arguments). */
export interface OutcomeBatch {
  readonly outcomes: SendOutcomes
  readonly optedOutPhones: ReadonlyArray<string>
  readonly progress: boolean
}

/**
 * `recordOutcomes` of the campaign's `batch` (when given), then `claim`, in one transaction:
 * what the two give one after the other, with one commit instead of two (the lane claims a
 * campaign about twice a second and writes its outcomes as often). The outcomes go first, in
 * their own locking order (their rows, then the campaign row). Either both are written or
 * neither (a lost lease writes no outcome either: the lane writes them by `recordOutcomes`).
 */
export const claimRecording = (
  campaign: Campaign.Campaign,
  lease: Lease,
  o: ClaimOptions,
  laneAttempt: string,
  limit: number,
  batch: OutcomeBatch | undefined
) =>
  inTransaction(
    Effect.gen(function* () {
      const recorded = batch === undefined ? undefined : yield* written(campaign, laneAttempt, batch.outcomes, batch.optedOutPhones, batch.progress)
      return { recorded, claimed: yield* claimed(campaign, lease, o, laneAttempt, limit) }
    })
  ).pipe(Effect.tap(() => (batch === undefined ? Effect.void : countRecorded(batch.outcomes))))

/** The operator media id to send for a frozen one: itself, unless a lane replaced it (`LaneMessages`). */
export type CurrentOperatorId = (frozen: string | undefined) => string | undefined

const frozenIds: CurrentOperatorId = (id) => id

/**
 * The message a recipient receives: the campaign's frozen template with its own or the
 * campaign's body parameters, and the campaign's header and button parameters; a recipient
 * with rich parameters of its own (`TemplateSend.RecipientRich`) sends its own header, cards,
 * buttons (over the campaign's, by index) and offer. Callback data = recipient id. A lane
 * sends through its `LaneMessages` (the template part built once per campaign, re-uploaded
 * media ids in place of the frozen ones).
 */
export const outboundFor = (
  campaign: Campaign.Campaign,
  recipient: ClaimedRecipient,
  current: CurrentOperatorId = frozenIds,
  campaignPart: (campaign: Campaign.Campaign) => TemplatePart = (c) => templateOf(c, c.parameters, current)
): OutboundMessage => ({
  type: "template",
  to: recipient.phone,
  template: recipient.parameters === null ? campaignPart(campaign) : templateOf(campaign, recipient.parameters, current),
  callbackData: recipient.id
})

export type TemplatePart = Extract<OutboundMessage, { readonly type: "template" }>["template"]

/** The template part of a send of `campaign` with `parameters` (the campaign's own, or a recipient's). */
export const templateOf = (campaign: Campaign.Campaign, parameters: TemplateSend.FrozenParameters, current: CurrentOperatorId): TemplatePart => {
  const rich = TemplateSend.richOf(parameters)
  if (rich === undefined) {
    return {
      name: campaign.templateName,
      language: campaign.templateLanguage,
      parameters: parameters as RichSend.Parameters,
      headerParameters: campaign.headerParameters,
      header: campaign.templateHeader == null ? undefined : RichSend.sendHeaderOf(campaign.templateHeader, current),
      buttons: campaign.buttonParameters
    }
  }
  const header = rich.header ?? campaign.templateHeader
  return {
    name: campaign.templateName,
    language: campaign.templateLanguage,
    parameters: rich.parameters ?? campaign.parameters,
    headerParameters: campaign.headerParameters,
    header: header == null ? undefined : RichSend.sendHeaderOf(header, current),
    buttons: TemplateSend.mergeButtons(campaign.buttonParameters, rich.buttons),
    cards: rich.cards?.map((card) => ({
      header: RichSend.sendHeaderOf(card.header, current),
      parameters: card.parameters ?? [],
      buttons: card.buttons ?? []
    })),
    limitedTimeOffer: rich.limited_time_offer
  }
}

/** What one send attempt came to. */
export type SendResult =
  | { readonly _tag: "Accepted"; readonly operatorMessageId: string }
  /**
   * Not taken (a rate limit): back to pending. `scope` says what the limit is on
   * (`OperatorErrorCode.rateLimitScope`): the sender number's throughput (a short wait; the
   * pacer keeps the rate), one user (the pair rate: only that recipient waits), or the app or
   * business account (or an unnamed 429: the whole lane waits as long as the operator says).
   */
  | {
      readonly _tag: "Throttled"
      readonly scope: "number" | "user" | "account"
      readonly retryAfterMs: number
      /** The operator's code, when it gave one (131048, the spam rate limit, counts toward the refusal brakes). */
      readonly code?: number | undefined
    }
  /** Unknown whether the operator took it (5xx, network, timeout): left `sending` for reconciliation. */
  | { readonly _tag: "Unknown"; readonly reason: string }
  | { readonly _tag: "Refused"; readonly code: number; readonly reason: string; readonly refusal: Recipient.RefusalClass }

const throttled = (code: number | undefined, retryAfterMs: number): SendResult => ({
  _tag: "Throttled",
  scope: OperatorErrorCode.rateLimitScope(code),
  retryAfterMs,
  code
})

export const sendResultOf = (error: Errors.OperatorRejected | Errors.OperatorUnavailable): SendResult => {
  if (error._tag === "OperatorUnavailable") {
    if (error.kind !== "rate_limited") return { _tag: "Unknown", reason: error.reason }
    const retryAfterSeconds = error.retryAfterSeconds ?? OperatorErrorCode.defaultRetryAfterSeconds(error.code)
    return throttled(error.code, Math.max(100, retryAfterSeconds * 1000))
  }
  const refusal = Recipient.classifyRefusal(error.code)
  return refusal === "throttled" ? throttled(error.code, 1000) : { _tag: "Refused", code: error.code, reason: error.reason, refusal }
}

/**
 * Records a batch of outcomes (fenced by the lane attempt), adds the phones that answered
 * 131050 to the opt-out list, and, when `progress` is true, folds the counters and emits
 * `campaign.progress`; one transaction.
 */
export const recordOutcomes = (
  campaign: Campaign.Campaign,
  laneAttempt: string,
  outcomes: SendOutcomes,
  optedOutPhones: ReadonlyArray<string>,
  progress: boolean
) => inTransaction(written(campaign, laneAttempt, outcomes, optedOutPhones, progress)).pipe(Effect.tap(() => countRecorded(outcomes)))

/** `recordOutcomes` but the transaction and the count. */
const written = (
  campaign: Campaign.Campaign,
  laneAttempt: string,
  outcomes: SendOutcomes,
  optedOutPhones: ReadonlyArray<string>,
  progress: boolean
) =>
  Effect.gen(function* () {
    const lanes = yield* CampaignLaneRepo
    const recorded = yield* lanes.recordOutcomes(campaign.id, laneAttempt, outcomes, yield* Time.now)
    for (const phone of optedOutPhones) yield* Events.optOut(Campaign.tenantOf(campaign), phone)
    if (progress) {
      yield* lanes.compactCounters(campaign.id)
      const now = yield* lanes.get(campaign.id)
      if (Option.isSome(now) && now.value.status === "active") yield* Events.emit(now.value, "campaign.progress")
    }
    return recorded
  })

/** What the operator answered, once written (a row a status webhook moved on first is not `recorded`, but was sent). */
const countRecorded = (outcomes: SendOutcomes) =>
  Effect.sync(() =>
    Telemetry.campaignSendsRecorded({
      accepted: outcomes.accepted.length,
      failed: outcomes.failed.length,
      released: outcomes.released.length
    })
  )

/**
 * The worker (or an operator event) pauses a campaign by itself, with the reason `paused_reason`
 * shows and a detail the caller event `campaign.paused` carries besides.
 */
export const autoPause = (campaign: Pick<Campaign.Campaign, "id" | "storeId" | "mode">, reason: Limits.PausedReason | null, detail: string) =>
  inTransaction(
    Effect.gen(function* () {
      const now = yield* Time.now
      const paused = yield* (yield* CampaignRepo).transition(Campaign.tenantOf(campaign), campaign.id, {
        from: Campaign.sources("auto-pause"),
        to: "paused",
        now,
        set: { pausedReason: reason }
      })
      if (Option.isSome(paused)) yield* Events.emit(paused.value, "campaign.paused", { reason, detail })
      return Option.isSome(paused)
    })
  )

/**
 * Rows left `sending` longer than `reconcileAfterMs` (no status report came) go back to
 * pending, to be sent again; postponed while operator webhooks received more than
 * `WEBHOOK_BACKLOG_MS` ago still wait to be processed (the status report that would show the
 * message went out may be among them). Answers how many went back.
 */
export const reconcile = (campaignId: Campaign.CampaignId, reconcileAfterMs: number) =>
  inTransaction(
    Effect.gen(function* () {
      const lanes = yield* CampaignLaneRepo
      const now = yield* Time.now
      const sendingBefore = now - reconcileAfterMs
      if (!(yield* lanes.hasStaleSending(campaignId, sendingBefore))) return 0
      if (yield* (yield* JobQueue).hasUnfinished(OperatorWebhooks.PROCESS_JOB, now - WEBHOOK_BACKLOG_MS)) return 0
      return yield* lanes.reconcile(campaignId, { sendingBefore, to: "pending", now })
    })
  )

/** active -> completed once nothing is pending or sending, with `campaign.completed`. */
export const completeIfDone = (campaignId: Campaign.CampaignId) =>
  inTransaction(
    Effect.gen(function* () {
      const lanes = yield* CampaignLaneRepo
      const completed = yield* lanes.completeIfDone(campaignId, yield* Time.now)
      if (Option.isNone(completed)) return false
      yield* lanes.compactCounters(campaignId)
      yield* Events.emit(
        Option.getOrElse(yield* lanes.get(campaignId), () => completed.value),
        "campaign.completed"
      )
      return true
    })
  )

/** Whether the campaign still has rows in `sending` (awaiting an outcome or reconciliation). */
export const hasSending = (campaignId: Campaign.CampaignId) => Effect.flatMap(CampaignLaneRepo, (lanes) => lanes.hasSending(campaignId))

/** Rows one cancel turns from pending to cancelled at most (the route's first batch, each step of the sweep). */
export const CANCEL_BATCH = 10_000

export interface SweepOptions {
  readonly reconcileAfterMs: number
  /** Cancelled recipients per sweep at most (bounded work). */
  readonly cancelBudget?: number
}

/**
 * The periodic safety net, safe to run from several workers at once (every step is a
 * compare-and-set or runs under a lane's lock): activates scheduled campaigns whose time
 * came, makes sure every sender number with an active campaign has a live lane, cancels
 * the remaining recipients of cancelled campaigns in bounded batches, and folds counters.
 */
export const sweep = (options: SweepOptions) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    const lanes = yield* CampaignLaneRepo
    const now = yield* Time.now
    let activated = 0
    for (const due of yield* lanes.dueScheduled(now, 100)) {
      const ok = yield* inTransaction(
        Effect.gen(function* () {
          const active = yield* repo.transition(Campaign.tenantOf(due), due.id, { from: Campaign.sources("activate"), to: "active", now })
          if (Option.isNone(active)) return false
          if (active.value.phoneNumberId !== null) yield* ensureLane(Campaign.tenantOf(due), active.value.phoneNumberId)
          return true
        })
      )
      if (ok) activated++
    }
    let revived = 0
    for (const lane of yield* lanes.activeLanes()) if (yield* ensureLane(lane.tenant, lane.phoneNumberId)) revived++
    let cancelled = 0
    const budget = options.cancelBudget ?? 100_000
    for (const c of yield* lanes.cancelledWithPending(20)) {
      while (cancelled < budget) {
        const at = yield* Time.now
        const n = yield* inTransaction(
          repo.cancelPending(Campaign.tenantOf(c), c.id, { limit: CANCEL_BATCH, staleSendingBefore: at - options.reconcileAfterMs, now: at })
        )
        cancelled += n
        if (n < CANCEL_BATCH) break
      }
    }
    for (const campaignId of yield* lanes.withUncompactedCounters(100)) yield* inTransaction(lanes.compactCounters(campaignId))
    return { activated, lanes: revived, cancelled }
  })
