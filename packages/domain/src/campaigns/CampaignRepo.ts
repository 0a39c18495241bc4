/**
 * Storage of campaigns, their recipients and the sender-number lanes.
 *
 * Guarantees every adapter gives (the contract suite checks them on SQLite and PostgreSQL):
 * - Scoped reads (`findById`, `list`, `updateDraft`, `deleteDraft`) see only the scope's
 *   campaigns; another store's or the other mode's id behaves as an id that does not exist.
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
 */
import { Context, type Effect, type Option } from "effect"
import type { Tenant as Scope } from "../shared/Tenant.js"
import type { Slice } from "../shared/Pagination.js"
import type { Category, Component } from "../templates/Template.js"
import type { Campaign, Counters, Status } from "./Campaign.js"
import type { Advanced, Progress, Recipient, SkipReason, Status as RecipientStatus } from "./Recipient.js"

/** A recipient as the route adds it: pending, or skipped with its reason. */
export interface NewRecipient {
  readonly id: string
  /** E.164, or null when the entry has no valid number. */
  readonly phone: string | null
  readonly input: string
  readonly customerId: string | null
  readonly parameters: ReadonlyArray<string> | null
  readonly status: "pending" | "skipped"
  readonly skipReason: SkipReason | null
}

export interface AddedRecipients {
  /** Rows added as pending. */
  readonly added: number
  /** Rows added as skipped, by reason; `duplicate` includes entries whose number the campaign already had. */
  readonly skipped: Readonly<Record<SkipReason, number>>
  /** The campaign's recipient rows after the insert. */
  readonly total: number
}

/** Fields a draft may change (`undefined`: unchanged). */
export interface DraftPatch {
  readonly name?: string | undefined
  readonly templateName?: string | undefined
  readonly templateLanguage?: string | undefined
  readonly parameters?: ReadonlyArray<string> | undefined
  readonly scheduledAt?: Date | null | undefined
  readonly messagesPerSecond?: number | null | undefined
}

/** Fields a status change may set alongside the status. */
export interface TransitionSet {
  readonly pausedReason?: string | null | undefined
  readonly templateCategory?: Category | undefined
  readonly templateComponents?: ReadonlyArray<Component> | undefined
  readonly phoneNumberId?: string | undefined
  readonly launchedAt?: Date | undefined
  readonly completedAt?: Date | null | undefined
  readonly cancelledAt?: Date | undefined
}

/** A recipient found by id for a status report, with what identifies its campaign. */
export interface RecipientRef {
  readonly id: string
  readonly campaignId: string
  readonly storeId: string
  readonly mode: Campaign["mode"]
  readonly phone: string | null
  readonly operatorMessageId: string | null
  readonly progress: Progress
}

/** A recipient claimed for sending: marked `sending` with the lane's attempt, committed. */
export interface ClaimedRecipient {
  readonly id: string
  readonly seq: number
  readonly phone: string
  readonly parameters: ReadonlyArray<string> | null
}

/** What the lane learnt from the operator about recipients it marked `sending`. */
export interface SendOutcomes {
  /** Accepted: the operator's message id. */
  readonly accepted: ReadonlyArray<{ readonly id: string; readonly operatorMessageId: string }>
  /** Refused: final for this pass. */
  readonly failed: ReadonlyArray<{ readonly id: string; readonly code: number; readonly reason: string; readonly retryable: boolean }>
  /** Not sent (throttled, campaign paused, lease lost before the send): back to `pending`. */
  readonly released: ReadonlyArray<{ readonly id: string; readonly seq: number }>
}

export interface RecordedOutcomes {
  readonly accepted: number
  readonly failed: number
  readonly released: number
}

export interface LaneState {
  /** Increases each time a new lane job is queued for the number. */
  readonly generation: number
  /** Whether the lane's current job is queued or running. */
  readonly alive: boolean
}

export interface ListRecipientsQuery {
  readonly status?: RecipientStatus | undefined
  readonly limit: number
  /** Rows after this insertion sequence number. */
  readonly afterSeq?: number | undefined
}

export class CampaignRepo extends Context.Tag("@switchboard/domain/CampaignRepo")<
  CampaignRepo,
  {
    readonly insert: (campaign: Campaign) => Effect.Effect<void>
    readonly findById: (scope: Scope, id: string) => Effect.Effect<Option.Option<Campaign>>
    /** Unscoped, for the worker (which learnt the id from a job or a lane). */
    readonly get: (id: string) => Effect.Effect<Option.Option<Campaign>>
    /** Newest first, rows with id < `after`, optionally one status. */
    readonly list: (
      scope: Scope,
      query: { readonly status?: Status | undefined; readonly limit: number; readonly after?: string | undefined }
    ) => Effect.Effect<Slice<Campaign>>
    /** Applies `patch` while the campaign is a draft; None when it is not (or not in scope). */
    readonly updateDraft: (scope: Scope, id: string, patch: DraftPatch, now: Date) => Effect.Effect<Option.Option<Campaign>>
    /** Deletes a draft and its recipients; false when it is not a draft (or not in scope). */
    readonly deleteDraft: (scope: Scope, id: string) => Effect.Effect<boolean>
    /**
     * Moves the status from one of `from` to `to`, setting `set` alongside; None when the
     * status was none of `from` (a concurrent change won). Answers the campaign after.
     */
    readonly transition: (
      id: string,
      change: { readonly from: ReadonlyArray<Status>; readonly to: Status; readonly set?: TransitionSet; readonly now: Date }
    ) => Effect.Effect<Option.Option<Campaign>>

    /**
     * Appends recipients in order (their `seq` continues the campaign's) while the
     * campaign's status is one of `whileStatus`; None when it is not. A `phone` the
     * campaign already has (or that occurs earlier in the list) is stored as a skipped
     * `duplicate` entry with a null phone instead. Multi-row inserts, no per-row round trip.
     */
    readonly addRecipients: (
      campaignId: string,
      whileStatus: ReadonlyArray<Status>,
      recipients: ReadonlyArray<NewRecipient>,
      now: Date
    ) => Effect.Effect<Option.Option<AddedRecipients>>
    /** In insertion order. */
    readonly listRecipients: (campaignId: string, query: ListRecipientsQuery) => Effect.Effect<Slice<Recipient>>
    /** Whether some recipient is pending. */
    readonly hasPending: (campaignId: string) => Effect.Effect<boolean>
    /**
     * Marks `skipped` (opted_out) every pending recipient whose phone is on the scope's
     * opt-out list, in one statement driven by the opt-out list. Answers how many.
     */
    readonly skipOptedOut: (campaign: Pick<Campaign, "id" | "storeId" | "mode">, now: Date) => Effect.Effect<number>
    /** Failed recipients whose failure can be retried go back to pending. Answers how many. */
    readonly retryFailed: (campaignId: string, now: Date) => Effect.Effect<number>
    /**
     * Cancels up to `limit` pending recipients, and `sending` ones marked before
     * `staleSendingBefore` (no report came for them). Answers how many changed.
     */
    readonly cancelPending: (campaignId: string, input: { readonly limit: number; readonly staleSendingBefore: number; readonly now: Date }) => Effect.Effect<number>
    /** Recounts the counters from the recipient rows and stores them. */
    readonly recount: (campaignId: string) => Effect.Effect<Option.Option<Campaign>>
    /** Folds counter changes recorded by status reports into the campaign row (reads already include them). */
    readonly compactCounters: (campaignId: string) => Effect.Effect<void>

    /** A recipient by id, when its campaign belongs to `storeId` (any mode). */
    readonly findRecipient: (storeId: string, recipientId: string) => Effect.Effect<Option.Option<RecipientRef>>
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
      now: number
    ) => Effect.Effect<boolean>

    // ---- the lane (worker) ------------------------------------------------------------

    /** Active campaigns of a sender number, oldest launch first; their counters are as last folded (`compactCounters`), not current. */
    readonly activeOfLane: (phoneNumberId: string) => Effect.Effect<ReadonlyArray<Campaign>>
    /**
     * Claims up to `limit` pending recipients in insertion order: those whose phone is on
     * the opt-out list become skipped (opted_out); the others are marked `sending` with
     * `laneAttempt` and `sendingAt`, in one transaction. Answers the claimed rows.
     */
    readonly claim: (
      campaign: Pick<Campaign, "id" | "storeId" | "mode">,
      input: { readonly laneAttempt: string; readonly limit: number; readonly now: number }
    ) => Effect.Effect<{ readonly recipients: ReadonlyArray<ClaimedRecipient>; readonly skipped: number }>
    /** Records outcomes of rows this lane attempt marked `sending` (fenced), in batched statements. */
    readonly recordOutcomes: (campaignId: string, laneAttempt: string, outcomes: SendOutcomes, now: number) => Effect.Effect<RecordedOutcomes>
    /**
     * Rows left `sending` since before `sendingBefore` go to `to` (pending to resend, or
     * cancelled). Answers how many. Does nothing (answers 0) while an operator webhook
     * received before `webhooksBefore` is still waiting to be processed: the status report
     * that would show the message went out may be in it.
     */
    readonly reconcile: (
      campaignId: string,
      input: { readonly sendingBefore: number; readonly webhooksBefore: number; readonly to: "pending" | "cancelled"; readonly now: number }
    ) => Effect.Effect<number>
    /** Whether some recipient is `sending`. */
    readonly hasSending: (campaignId: string) => Effect.Effect<boolean>
    /** active -> completed when no recipient is pending or sending; None otherwise. */
    readonly completeIfDone: (campaignId: string, now: Date) => Effect.Effect<Option.Option<Campaign>>

    // ---- the sweep --------------------------------------------------------------------

    /** Scheduled campaigns whose time has come. */
    readonly dueScheduled: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<Campaign>>
    /** Cancelled campaigns that still have pending (or sending) recipients. */
    readonly cancelledWithPending: (limit: number) => Effect.Effect<ReadonlyArray<string>>
    /** Sender numbers with at least one active campaign. */
    readonly activeLanes: () => Effect.Effect<ReadonlyArray<string>>
    /** Campaigns with counter changes not yet folded into their row. */
    readonly withUncompactedCounters: (limit: number) => Effect.Effect<ReadonlyArray<string>>

    /**
     * Locks the lane row of a sender number (creating it) until the transaction ends, and
     * answers its generation and whether its job is alive. Two transactions locking the
     * same lane run one after the other: this is what prevents a lost wake-up between a
     * lane that goes idle and a launch.
     */
    readonly lockLane: (phoneNumberId: string, now: number) => Effect.Effect<LaneState>
    /** Records the job of a new lane generation. */
    readonly setLane: (phoneNumberId: string, generation: number, jobId: string, now: number) => Effect.Effect<void>
  }
>() {}
