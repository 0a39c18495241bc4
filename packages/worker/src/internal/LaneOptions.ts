/** The campaign lanes' options, their defaults, and what the lanes need. */
import type { CampaignRepo, JobQueue, MessageOperator, Medias, MessagingRepo, StoreRepo, Transactor, WebhookRepo } from "@switchboard/domain"
import { Campaign, CampaignLanes, CampaignLimits } from "@switchboard/domain"
import { Config } from "effect"
import { DEFAULT_REFUSAL_BRAKES, type RefusalBrakeOptions } from "./RefusalBrakes.js"

export interface LaneOptions {
  /** The number's messages per second unless its campaigns ask for less. */
  readonly messagesPerSecond: number
  readonly maxInFlight: number
  /** Recipients per claim at most (and never more than one second of the campaign's rate). */
  readonly batchSize: number
  readonly leaseMs: number
  readonly leaseMarginMs: number
  readonly pacingMarginMs: number
  readonly perUserGapMs: number
  /** `campaign.progress` at most this often per campaign. */
  readonly progressMs: number
  /** The longest the sending loop waits before looking at statuses and the lease again. */
  readonly watchMs: number
  readonly failurePause: { readonly window: number; readonly minimum: number; readonly ratio: number }
  /** The per-code refusal brakes (131048, 131049, 131064; `RefusalBrakes.ts`). */
  readonly refusalBrakes: RefusalBrakeOptions
}

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
  /** Added to the one-second window (default 5 ms; the window books sends by their answers, so jitter needs no margin: this covers an operator window that includes both ends). */
  readonly pacingMarginMs?: number
  /** At most one message per this long to one user (default 6 s). */
  readonly perUserGapMs?: number
  /** How often the runner looks for lane jobs (default 250 ms). */
  readonly pollMs?: number
  /**
   * The longest wait between looks while they find nothing: the interval doubles from
   * `pollMs` up to this (default 1 s, at least `pollMs`). A job queued by this process ends
   * the wait at once.
   */
  readonly idlePollMs?: number
  /** How often the runner sweeps (default 5 s). */
  readonly sweepMs?: number
  /** Lanes run by this process at once (default 64). */
  readonly maxLanes?: number
  /**
   * How often outcomes are written (default 500 ms: each write is a transaction and a
   * wake-up; with the pacer at 2 ms, 250 ms cost 155 µs of worker CPU per message on
   * PostgreSQL in `pnpm bench campaign`, 500 ms 136).
   */
  readonly flushMs?: number
  /** `campaign.progress` at most this often per campaign (default 1 s). */
  readonly progressMs?: number
  /** How often a lane re-reads its campaigns' statuses (pause and cancel take effect within this; default 100 ms). */
  readonly watchMs?: number
  /** Auto-pause when more than `ratio` of the last `window` sends (at least `minimum`) failed (default 200, 50, 0.5). */
  readonly failurePause?: { readonly window: number; readonly minimum: number; readonly ratio: number }
  /** Auto-pause (`refusal_rate`) when a quality code's refusals among the last `window` sends reach its threshold (default 200; 131048: 5, 131049: 40, 131064: 5). */
  readonly refusalBrakes?: RefusalBrakeOptions
  /** The messaging limit's rolling window (default 24 h, the operator's; shorter only to test it: `SWITCHBOARD_MESSAGING_WINDOW_MS`). */
  readonly messagingWindowMs?: number
  readonly workerId?: string
}

/** What the lanes need: the store's ports and the operator. */
export type Requirements =
  | JobQueue.JobQueue
  | Transactor.Transactor
  | CampaignRepo.CampaignRepo
  | CampaignRepo.CampaignLaneRepo
  | StoreRepo.StoreRepo
  | MessagingRepo.OptOutRepo
  | WebhookRepo.WebhookRepo
  | MessageOperator.MessageOperator
  | Medias.Requirements

export type Resolved = Required<Omit<Options, "workerId" | "leaseMarginMs">> &
  LaneOptions & { readonly leaseMarginMs: number; readonly workerId: string | undefined }

/** The options with their defaults; throws when the reconciliation window does not exceed the lease. */
export const resolve = (options: Options = {}): Resolved => {
  const leaseMs = options.leaseMs ?? 30_000
  const messagesPerSecond = Math.min(
    Campaign.MAX_MESSAGES_PER_SECOND,
    Math.max(1, Math.floor(options.messagesPerSecond ?? Campaign.DEFAULT_MESSAGES_PER_SECOND))
  )
  const resolved: Resolved = {
    messagesPerSecond,
    maxInFlight: options.maxInFlight ?? 32,
    batchSize: options.batchSize ?? 500,
    leaseMs,
    leaseMarginMs: options.leaseMarginMs ?? Math.max(500, leaseMs / 5),
    reconcileAfterMs: options.reconcileAfterMs ?? CampaignLanes.DEFAULT_RECONCILE_AFTER_MS,
    pacingMarginMs: options.pacingMarginMs ?? 5,
    perUserGapMs: options.perUserGapMs ?? 6_000,
    pollMs: options.pollMs ?? 250,
    idlePollMs: Math.max(options.pollMs ?? 250, options.idlePollMs ?? 1000),
    sweepMs: options.sweepMs ?? 5_000,
    maxLanes: options.maxLanes ?? 64,
    flushMs: options.flushMs ?? 500,
    progressMs: options.progressMs ?? 1_000,
    watchMs: options.watchMs ?? 100,
    failurePause: options.failurePause ?? { window: 200, minimum: 50, ratio: 0.5 },
    refusalBrakes: options.refusalBrakes ?? DEFAULT_REFUSAL_BRAKES,
    messagingWindowMs: options.messagingWindowMs ?? CampaignLimits.WINDOW_MS,
    workerId: options.workerId
  }
  if (resolved.reconcileAfterMs <= leaseMs) {
    throw new Error(`campaign lanes: reconcileAfterMs (${resolved.reconcileAfterMs}) must exceed the lease (${leaseMs})`)
  }
  return resolved
}

/**
 * The options from the environment: `SWITCHBOARD_CAMPAIGN_MPS` (messages per second per
 * sender number, default 80, at most 1000), `SWITCHBOARD_CAMPAIGN_RECONCILE_MS` (default
 * 120000), `SWITCHBOARD_CAMPAIGN_LEASE_MS` (default 30000), `SWITCHBOARD_CAMPAIGN_MAX_LANES`
 * (default 64), `SWITCHBOARD_CAMPAIGN_MAX_IN_FLIGHT` (sends in flight per lane, default 32),
 * `SWITCHBOARD_MESSAGING_WINDOW_MS` (the messaging limit's window, default 24 h; for tests).
 */
export const fromEnvironment: Config.Config<Options> = Config.all({
  messagesPerSecond: Config.integer("SWITCHBOARD_CAMPAIGN_MPS").pipe(Config.withDefault(Campaign.DEFAULT_MESSAGES_PER_SECOND)),
  reconcileAfterMs: Config.integer("SWITCHBOARD_CAMPAIGN_RECONCILE_MS").pipe(Config.withDefault(CampaignLanes.DEFAULT_RECONCILE_AFTER_MS)),
  leaseMs: Config.integer("SWITCHBOARD_CAMPAIGN_LEASE_MS").pipe(Config.withDefault(30_000)),
  maxLanes: Config.integer("SWITCHBOARD_CAMPAIGN_MAX_LANES").pipe(Config.withDefault(64)),
  maxInFlight: Config.integer("SWITCHBOARD_CAMPAIGN_MAX_IN_FLIGHT").pipe(Config.withDefault(32)),
  messagingWindowMs: Config.integer("SWITCHBOARD_MESSAGING_WINDOW_MS").pipe(Config.withDefault(CampaignLimits.WINDOW_MS))
})
