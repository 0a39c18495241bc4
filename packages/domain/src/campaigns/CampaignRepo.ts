/**
 * Storage of campaigns, their recipients and the sender-number lanes, as two ports:
 * `CampaignRepo`, what the routes reach (every method takes the caller's `Tenant` first and
 * sees only that tenant's campaigns), and `CampaignLaneRepo`, what only the worker uses (the
 * lanes, the sweep, status reports), which routes never receive.
 *
 * Guarantees every adapter gives (the contract suite checks them on SQLite and PostgreSQL):
 * - Tenant reads and writes see only the tenant's campaigns; another store's or the other
 *   mode's id behaves as an id that does not exist.
 * - Counters are exact under concurrency: every method that changes recipient rows adds to
 *   the campaign's counters exactly what it changed, in the same transaction (joining the
 *   caller's), and counters read back always equal a recount from the rows once the
 *   writers have committed (`recount` proves it).
 * - Conditional writes: `transition`, `advanceRecipient`, `claim` and `recordOutcomes`
 *   change a row only from the state the caller names (compare-and-set), so of many
 *   concurrent identical calls exactly one changes it.
 * - The lane's writes are fenced: `recordOutcomes` changes only rows in `sending` marked
 *   with the caller's `laneAttempt` (unique per lane job and attempt), so a stalled worker
 *   whose lease was taken over changes nothing another lane owns.
 * - No method's cost grows with the campaign's size except `recount`, `deleteDraft` and
 *   the bounded `cancelPending`: launch-time opt-out skipping costs in proportion to the
 *   opt-out list, claims and listing walk an index from a cursor.
 *
 * Times are `Time.Millis`.
 */
import { Context, type Effect, type Option } from "effect"
import type { Slice } from "../shared/Pagination.js"
import type { StoreId, Tenant } from "../shared/Tenant.js"
import type { Millis } from "../shared/Time.js"
import type { Category, Component } from "../templates/Template.js"
import type { ButtonParameter, FrozenParameters } from "../templates/TemplateSend.js"
import type * as RichSend from "../templates/RichSend.js"
import type { Campaign, CampaignId, Counters, SendWindow, Status } from "./Campaign.js"
import type { Tier } from "./Tier.js"
import type { Rate } from "./Rates.js"

export interface Audience {
  readonly total: number
  readonly skipped: Readonly<Record<SkipReason, number>>
  readonly groups: ReadonlyArray<{
    readonly prefix: string
    readonly optedOut: boolean
    readonly windowOpen: boolean
    /** The recipients' time zones (`&`-separated IANA names, from the phone number; null: unknown), for the send window. */
    readonly timeZone: string | null
    readonly count: number
  }>
}

export interface BillingGroup {
  readonly prefix: string
  /** The reported `pricing.category` (null: no report yet). */
  readonly category: string | null
  /** The reported `pricing.billable` (null: no report yet). */
  readonly billable: boolean | null
  readonly count: number
}
import type { Added, Advanced, Progress, Recipient, RecipientId, SkipReason, Status as RecipientStatus } from "./Recipient.js"

/** A recipient as the route adds it: pending, or skipped with its reason. */
export interface NewRecipient {
  readonly id: RecipientId
  /** E.164, or null when the entry has no valid number. */
  readonly phone: string | null
  readonly input: string
  readonly customerId: string | null
  readonly parameters: FrozenParameters | null
  readonly status: "pending" | "skipped"
  readonly skipReason: SkipReason | null
}

/** Fields a draft may change (`undefined`: unchanged). */
export interface DraftPatch {
  readonly name?: string | undefined
  readonly templateName?: string | undefined
  readonly templateLanguage?: string | undefined
  readonly parameters?: RichSend.Parameters | undefined
  readonly templateHeader?: RichSend.StoredHeader | null | undefined
  readonly headerParameters?: ReadonlyArray<string> | undefined
  readonly buttonParameters?: ReadonlyArray<ButtonParameter> | undefined
  readonly scheduledAt?: Millis | null | undefined
  readonly messagesPerSecond?: number | null | undefined
  readonly sendWindow?: SendWindow | null | undefined
}

/** Fields a status change may set alongside the status. */
export interface TransitionSet {
  readonly pausedReason?: string | null | undefined
  readonly templateCategory?: Category | undefined
  readonly templateComponents?: ReadonlyArray<Component> | undefined
  readonly templateHeader?: RichSend.StoredHeader | null | undefined
  readonly phoneNumberId?: string | undefined
  readonly launchedAt?: Millis | undefined
  readonly completedAt?: Millis | null | undefined
  readonly cancelledAt?: Millis | undefined
}

export interface StatusChange {
  readonly from: ReadonlyArray<Status>
  readonly to: Status
  readonly set?: TransitionSet | undefined
  readonly now: Millis
}

/** A recipient found by id for a status report, with what identifies its campaign. */
export interface RecipientRef {
  readonly id: RecipientId
  readonly campaignId: CampaignId
  readonly storeId: StoreId
  readonly mode: Campaign["mode"]
  readonly phone: string | null
  readonly operatorMessageId: string | null
  readonly progress: Progress
}

/** A recipient claimed for sending: marked `sending` with the lane's attempt, committed. */
export interface ClaimedRecipient {
  readonly id: RecipientId
  readonly seq: number
  readonly phone: string
  readonly parameters: FrozenParameters | null
}

/** What the lane learnt from the operator about recipients it marked `sending`. */
export interface SendOutcomes {
  /** Accepted: the operator's message id. */
  readonly accepted: ReadonlyArray<{ readonly id: RecipientId; readonly operatorMessageId: string }>
  /** Refused: final for this pass. */
  readonly failed: ReadonlyArray<{ readonly id: RecipientId; readonly code: number; readonly reason: string; readonly retryable: boolean }>
  /** Not sent (throttled, campaign paused, lease lost before the send): back to `pending`. */
  readonly released: ReadonlyArray<{ readonly id: RecipientId; readonly seq: number }>
}

export interface RecordedOutcomes {
  readonly accepted: number
  readonly failed: number
  readonly released: number
}

/** A sender number's lane row, locked. */
export interface LaneState {
  /** Increases each time a new lane job is queued for the number. */
  readonly generation: number
  /** The job of the current generation (null before the first). Whether it is alive is the job queue's to say. */
  readonly jobId: string | null
}

export interface ListRecipientsQuery {
  readonly status?: RecipientStatus | undefined
  readonly limit: number
  /** Rows after this insertion sequence number. */
  readonly afterSeq?: number | undefined
}

/** What the routes reach: every method sees only the tenant's campaigns. */
export class CampaignRepo extends Context.Tag("@switchboard/domain/CampaignRepo")<
  CampaignRepo,
  {
    /** Stores a new campaign of the tenant. */
    readonly insert: (tenant: Tenant, campaign: Campaign) => Effect.Effect<void>
    readonly findById: (tenant: Tenant, id: CampaignId) => Effect.Effect<Option.Option<Campaign>>
    /** Newest first, rows with id < `after`, optionally one status. */
    readonly list: (
      tenant: Tenant,
      query: { readonly status?: Status | undefined; readonly limit: number; readonly after?: CampaignId | undefined }
    ) => Effect.Effect<Slice<Campaign>>
    /** Applies `patch` while the campaign is a draft; None when it is not (or not the tenant's). */
    readonly updateDraft: (tenant: Tenant, id: CampaignId, patch: DraftPatch, now: Millis) => Effect.Effect<Option.Option<Campaign>>
    /** Deletes a draft and its recipients; false when it is not a draft (or not the tenant's). */
    readonly deleteDraft: (tenant: Tenant, id: CampaignId) => Effect.Effect<boolean>
    /**
     * Moves the status from one of `from` to `to`, setting `set` alongside; None when the
     * status was none of `from` (a concurrent change won). Answers the campaign after.
     */
    readonly transition: (tenant: Tenant, id: CampaignId, change: StatusChange) => Effect.Effect<Option.Option<Campaign>>
    /**
     * Appends recipients in order (their `seq` continues the campaign's) while the
     * campaign's status is one of `whileStatus`; None when it is not. A `phone` the
     * campaign already has (or that occurs earlier in the list) is stored as a skipped
     * `duplicate` entry with a null phone instead. Multi-row inserts, no per-row round trip.
     */
    readonly addRecipients: (
      tenant: Tenant,
      id: CampaignId,
      whileStatus: ReadonlyArray<Status>,
      recipients: ReadonlyArray<NewRecipient>,
      now: Millis
    ) => Effect.Effect<Option.Option<Added>>
    /**
     * Deletes the recipient `recipientId` of the campaign while the campaign's status is one
     * of `whileStatus`, and takes it off the counters in the same transaction: `"removed"`;
     * `"not_found"` when the tenant's campaign has no such recipient (checked first);
     * `"refused"` when the status is none of `whileStatus` (nothing changes).
     */
    readonly removeRecipient: (
      tenant: Tenant,
      id: CampaignId,
      recipientId: RecipientId,
      whileStatus: ReadonlyArray<Status>
    ) => Effect.Effect<"removed" | "not_found" | "refused">
    /** In insertion order. */
    readonly listRecipients: (tenant: Tenant, id: CampaignId, query: ListRecipientsQuery) => Effect.Effect<Slice<Recipient>>
    /** Whether some recipient is pending. */
    readonly hasPending: (tenant: Tenant, id: CampaignId) => Effect.Effect<boolean>
    /**
     * Marks `skipped` (opted_out) every pending recipient whose phone is on the tenant's
     * opt-out list, in one statement driven by the opt-out list. Answers how many.
     */
    readonly skipOptedOut: (tenant: Tenant, id: CampaignId, now: Millis) => Effect.Effect<number>
    /** Failed recipients whose failure can be retried go back to pending. Answers how many. */
    readonly retryFailed: (tenant: Tenant, id: CampaignId, now: Millis) => Effect.Effect<number>
    /**
     * Cancels up to `limit` pending recipients, and `sending` ones marked before
     * `staleSendingBefore` (no report came for them). Answers how many changed.
     */
    readonly cancelPending: (
      tenant: Tenant,
      id: CampaignId,
      input: { readonly limit: number; readonly staleSendingBefore: Millis; readonly now: Millis }
    ) => Effect.Effect<number>
    /** Recounts the counters from the recipient rows and stores them. */
    readonly recount: (tenant: Tenant, id: CampaignId) => Effect.Effect<Option.Option<Campaign>>
    /** The messaging limit (per store operator account and mode): the tier the operator last told for the tenant's account, if any. */
    readonly messagingTier: (tenant: Tenant) => Effect.Effect<Option.Option<Tier>>
    readonly setMessagingTier: (tenant: Tenant, tier: Tier, now: Millis) => Effect.Effect<void>
    /** Unique recipients the tenant reached since `since`, and the time of the oldest of them (null: none). */
    readonly reachedSince: (tenant: Tenant, since: Millis) => Effect.Effect<{ readonly count: number; readonly oldest: Millis | null }>
    /**
     * The campaign's audience for a dry run: every row, the skipped by reason, and the
     * recipients still to send (pending or waiting) grouped by the first digits of their
     * phone (`+` and up to 4 digits: enough for a calling code), whether they opted out
     * meanwhile, whether their customer window is open at `now`, and their time zones.
     */
    readonly audience: (tenant: Tenant, id: CampaignId, now: Millis) => Effect.Effect<Audience>
    /** The campaign's recipients that were or are to be sent, grouped by phone prefix, the `pricing` their status webhooks reported and whether any was sent. */
    readonly billing: (tenant: Tenant, id: CampaignId) => Effect.Effect<ReadonlyArray<BillingGroup>>
    /** The rate card (every row). */
    readonly rateCard: () => Effect.Effect<ReadonlyArray<Rate>>
    /** Replaces the rate card with `rates` (one transaction); answers how many rows it holds. */
    readonly importRates: (rates: ReadonlyArray<Rate>) => Effect.Effect<number>

    /**
     * Locks the lane row of the tenant's sender number (creating it) until the transaction
     * ends. Lanes are keyed by the number alone (a store's live and test campaigns may share
     * its sandbox number); the tenant says whose number the route wakes. Two transactions
     * locking the same lane run one after the other: this is what prevents a lost wake-up
     * between a lane that goes idle and a launch.
     */
    readonly lockLane: (tenant: Tenant, phoneNumberId: string, now: Millis) => Effect.Effect<LaneState>
    /** Records the job of a new lane generation (under the lane's lock). */
    readonly setLane: (tenant: Tenant, phoneNumberId: string, generation: number, jobId: string, now: Millis) => Effect.Effect<void>
  }
>() {}

/** One recipient's change in `CampaignLaneRepo.advanceRecipients`: from the progress it was read in (`ref`) to `next`. */
export interface RecipientChange {
  readonly ref: RecipientRef
  readonly next: Advanced
  readonly operatorMessageId: string | null
}

/** What only the worker uses: the lanes, the sweep and status reports. Never given to routes. */
export class CampaignLaneRepo extends Context.Tag("@switchboard/domain/CampaignLaneRepo")<
  CampaignLaneRepo,
  {
    /** Any tenant's campaign (the worker learnt the id from a job, a lane or its own row). */
    readonly get: (id: CampaignId) => Effect.Effect<Option.Option<Campaign>>

    // ---- status reports ---------------------------------------------------------------

    /** A recipient by id, when its campaign belongs to `storeId` (any mode). */
    readonly findRecipient: (storeId: StoreId, id: RecipientId) => Effect.Effect<Option.Option<RecipientRef>>
    /**
     * The recipients of these ids whose campaign is in the store, in any order. Inside a
     * transaction their rows stay locked until it ends, taken in the order of their ids
     * (PostgreSQL; SQLite has one writer), so batches of reports wait for each other instead
     * of deadlocking, and read what the other wrote.
     */
    readonly findRecipients: (storeId: StoreId, ids: ReadonlyArray<RecipientId>) => Effect.Effect<ReadonlyArray<RecipientRef>>
    /** Adds `delta` to the campaign's counters (exact under concurrency, as `advanceRecipient`'s). */
    readonly addCounterDelta: (campaignId: CampaignId, delta: Partial<Counters>) => Effect.Effect<void>
    /**
     * Writes `next` only if the row still has `ref.progress` (compare-and-set), sets the
     * operator's message id when unknown, and adds `delta` to the campaign's counters in the
     * same transaction. Answers whether the row changed.
     */
    readonly advanceRecipient: (
      ref: RecipientRef,
      next: Advanced,
      operatorMessageId: string | null,
      delta: Partial<Counters>,
      now: Millis
    ) => Effect.Effect<boolean>
    /**
     * `advanceRecipient` for many recipients at once (one statement for a few hundred), each
     * row's own compare-and-set, without counter deltas (the caller adds them per campaign).
     * Answers the ids of the rows that changed.
     */
    readonly advanceRecipients: (changes: ReadonlyArray<RecipientChange>, now: Millis) => Effect.Effect<ReadonlySet<RecipientId>>
    /** Records the `pricing` status reports carried on their recipients, unless one already has it. */
    readonly recordPricing: (
      priced: ReadonlyArray<{ readonly id: RecipientId; readonly category: string; readonly billable: boolean }>
    ) => Effect.Effect<void>

    // ---- the lane ---------------------------------------------------------------------

    /** Active campaigns of a sender number, oldest launch first; their counters are as last folded (`compactCounters`), not current. */
    readonly activeOfLane: (phoneNumberId: string) => Effect.Effect<ReadonlyArray<Campaign>>
    /**
     * Claims up to `limit` pending recipients in insertion order: those whose phone is on
     * the opt-out list become skipped (opted_out); the others are marked `sending` with
     * `laneAttempt` and `sendingAt`, in one transaction. Answers the claimed rows.
     *
     * With `windowMs` (the messaging limit's rolling window) it also keeps the tenant's
     * messaging limit (`CampaignLimits`): recipients waiting whose `next_attempt_at` came go
     * back to pending first; it claims no more than the unique recipients the window has
     * left (counting the claimed as reached); when none is left, every pending recipient
     * becomes `waiting_for_limit` until the oldest reach leaves the window (`limited_until`).
     *
     * With a `sendWindow`, candidates outside their window in their time zone
     * (`CampaignSendWindow`) are not claimed: every pending recipient of their zone becomes
     * `waiting_for_window` until it next opens there (`limited_until` as above), by the same
     * release.
     */
    readonly claim: (
      campaign: Pick<Campaign, "id" | "storeId" | "mode"> & { readonly sendWindow?: SendWindow | null },
      input: { readonly laneAttempt: string; readonly limit: number; readonly now: Millis; readonly windowMs?: number | undefined }
    ) => Effect.Effect<{ readonly recipients: ReadonlyArray<ClaimedRecipient>; readonly skipped: number }>
    /** Records outcomes of rows this lane attempt marked `sending` (fenced), in batched statements. */
    readonly recordOutcomes: (id: CampaignId, laneAttempt: string, outcomes: SendOutcomes, now: Millis) => Effect.Effect<RecordedOutcomes>
    /** Whether some row has been `sending` since before `sendingBefore`. */
    readonly hasStaleSending: (id: CampaignId, sendingBefore: Millis) => Effect.Effect<boolean>
    /** Rows left `sending` since before `sendingBefore` go to `to` (pending to resend, or cancelled). Answers how many. */
    readonly reconcile: (
      id: CampaignId,
      input: { readonly sendingBefore: Millis; readonly to: "pending" | "cancelled"; readonly now: Millis }
    ) => Effect.Effect<number>
    /** Whether some recipient is `sending`. */
    readonly hasSending: (id: CampaignId) => Effect.Effect<boolean>
    /** active -> completed when no recipient is pending or sending; None otherwise. */
    readonly completeIfDone: (id: CampaignId, now: Millis) => Effect.Effect<Option.Option<Campaign>>
    /** Folds counter changes recorded by status reports into the campaign row (reads already include them). */
    readonly compactCounters: (id: CampaignId) => Effect.Effect<void>
    /** Locks the lane row of a sender number (creating it) until the transaction ends; see `CampaignRepo.lockLane`. */
    readonly lockLane: (phoneNumberId: string, now: Millis) => Effect.Effect<LaneState>

    // ---- the sweep --------------------------------------------------------------------

    /** Scheduled campaigns whose time has come. */
    readonly dueScheduled: (now: Millis, limit: number) => Effect.Effect<ReadonlyArray<Campaign>>
    /** Cancelled campaigns that still have pending (or sending) recipients. */
    readonly cancelledWithPending: (limit: number) => Effect.Effect<ReadonlyArray<Pick<Campaign, "id" | "storeId" | "mode">>>
    /** Sender numbers with at least one active campaign, with a tenant whose campaign it is. */
    readonly activeLanes: () => Effect.Effect<ReadonlyArray<{ readonly tenant: Tenant; readonly phoneNumberId: string }>>
    /** Campaigns with counter changes not yet folded into their row. */
    readonly withUncompactedCounters: (limit: number) => Effect.Effect<ReadonlyArray<CampaignId>>
  }
>() {}
