/**
 * Campaign recipients: one row per phone number (or stored customer) of a campaign, with its
 * own status and, when it failed, the operator's reason.
 *
 * State machine:
 *
 *   pending ──claim──► sending ──operator accepted──► accepted ──► sent ──► delivered ──► read
 *   sending ──operator refused──► failed (code, reason, retryable)
 *   sending ──throttled / campaign paused before the send──► pending
 *   sending ──(no status report within the reconciliation window)──► pending
 *   pending ──opted out at launch or at claim──► skipped
 *   pending ──campaign cancelled──► cancelled
 *   failed (retryable) ──campaign retry──► pending
 *   added as skipped: opted_out | duplicate | invalid_number | unknown_customer
 *
 * Status reports (the operator's webhooks, matched by our callback data) move a recipient
 * forward from pending, sending, accepted, sent, delivered or cancelled (a message that
 * went out before a crash or a cancel still counts), never backwards: `read` before
 * `delivered` leaves `read` and sets the delivered and sent times too. `failed` is final
 * for reports, and a report never fails a delivered or read message. `skipped` never
 * changes.
 *
 * The entity is declared once, as the `Recipient` schema; `RecipientResource` is derived.
 */
import { Schema } from "effect"
import * as TemplateSend from "../templates/TemplateSend.js"
import * as Wire from "../shared/Wire.js"
import * as OperatorErrorCode from "../operator/ErrorCode.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import * as Time from "../shared/Time.js"
import { CampaignId, type Counters } from "./Campaign.js"

/** `rcp_…`: also the callback data of the recipient's send. */
export const RecipientId = Id.kind("rcp", "RecipientId")
export type RecipientId = Id.Of<typeof RecipientId>

/** `waiting_for_limit` / `waiting_for_window`: pending, held until `next_attempt_at` by the messaging limit or the campaign's send window. */
export const Status = Schema.Literal(
  "pending",
  "sending",
  "accepted",
  "sent",
  "delivered",
  "read",
  "failed",
  "skipped",
  "cancelled",
  "waiting_for_limit",
  "waiting_for_window"
)
export type Status = typeof Status.Type

export const SkipReason = Schema.Literal("opted_out", "duplicate", "invalid_number", "unknown_customer")
export type SkipReason = typeof SkipReason.Type

/** The part of a recipient row that status reports change. Times are `Time.Millis`. */
export interface Progress {
  readonly status: Status
  readonly sentAt: Time.Millis | null
  readonly deliveredAt: Time.Millis | null
  readonly readAt: Time.Millis | null
}

export const Failure = Schema.Struct({ code: Schema.Int, reason: Schema.String, retryable: Schema.Boolean })
export interface Failure extends Schema.Schema.Type<typeof Failure> {}

export const Recipient = Schema.Struct({
  id: RecipientId.schema,
  campaignId: CampaignId.schema,
  /** Insertion order within the campaign. */
  seq: Schema.Int,
  /** E.164; null for a skipped entry that has no valid number (invalid, unknown customer, duplicate). */
  phone: Schema.NullOr(Schema.String),
  /** What the caller sent for this entry: the phone as given, or the customer id. */
  input: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  /**
   * Own template parameters (override the campaign's); fixed once added: positional, named, or
   * rich (own header, cards, buttons, offer; our media with the operator's media id).
   */
  parameters: Schema.NullOr(TemplateSend.FrozenParameters),
  status: Status,
  skipReason: Schema.NullOr(SkipReason),
  /** The operator's refusal, in status `failed` only. */
  failure: Schema.NullOr(Failure),
  operatorMessageId: Schema.NullOr(Schema.String),
  sentAt: Schema.NullOr(Schema.Number),
  deliveredAt: Schema.NullOr(Schema.Number),
  readAt: Schema.NullOr(Schema.Number),
  /** While waiting (`waiting_for_limit`, `waiting_for_window`): when it may go. */
  nextAttemptAt: Schema.NullOr(Schema.Number),
  updatedAt: Schema.Number
})
export interface Recipient extends Schema.Schema.Type<typeof Recipient> {}

const RANK: Partial<Record<Status, number>> = { pending: 0, sending: 0, cancelled: 0, accepted: 1, sent: 2, delivered: 3, read: 4 }

/** A status the operator reported: `sent`, `delivered`, `read` or `failed` (anything else changes nothing). */
export interface Report {
  readonly status: string
  readonly at: Time.Millis
  readonly error?: { readonly code: number; readonly title: string } | null | undefined
}

export interface Advanced extends Progress {
  readonly failure: Failure | null
}

/**
 * The recipient's progress after a report, or undefined when it changes nothing (a
 * duplicate, an older report, a report for a final recipient). Timestamps are set only
 * when still unset, so counters derived from them never go back.
 */
export const advance = (current: Progress, report: Report): Advanced | undefined => {
  const rank = RANK[current.status]
  if (rank === undefined) return undefined // failed, skipped: final for reports
  switch (report.status) {
    case "sent":
    case "delivered":
    case "read": {
      const to = report.status
      const sentAt = current.sentAt ?? report.at
      const deliveredAt = to === "delivered" || to === "read" ? (current.deliveredAt ?? report.at) : current.deliveredAt
      const readAt = to === "read" ? (current.readAt ?? report.at) : current.readAt
      const status = RANK[to]! > rank ? to : current.status
      if (status === current.status && sentAt === current.sentAt && deliveredAt === current.deliveredAt && readAt === current.readAt) {
        return undefined
      }
      return { status, sentAt, deliveredAt, readAt, failure: null }
    }
    case "failed": {
      if (current.status === "delivered" || current.status === "read") return undefined
      const code = report.error?.code ?? 0
      return {
        status: "failed",
        sentAt: current.sentAt,
        deliveredAt: current.deliveredAt,
        readAt: current.readAt,
        failure: { code, reason: report.error?.title ?? "failed", retryable: OperatorErrorCode.isRetryable(code) }
      }
    }
    default:
      return undefined
  }
}

const statusCounter = (status: Status): keyof Counters | undefined => {
  switch (status) {
    case "pending":
    case "sending":
    case "waiting_for_limit":
    case "waiting_for_window":
      return "pending"
    case "skipped":
      return "skipped"
    case "cancelled":
      return "cancelled"
    case "failed":
      return "failed"
    default:
      return undefined
  }
}

/** What a change of one recipient adds to its campaign's counters. */
export const counterDelta = (from: Progress, to: Progress): Partial<Counters> => {
  const delta: { -readonly [K in keyof Counters]?: number } = {}
  const a = statusCounter(from.status)
  const b = statusCounter(to.status)
  if (a !== b) {
    if (a !== undefined) delta[a] = (delta[a] ?? 0) - 1
    if (b !== undefined) delta[b] = (delta[b] ?? 0) + 1
  }
  if (from.sentAt === null && to.sentAt !== null) delta.sent = 1
  if (from.deliveredAt === null && to.deliveredAt !== null) delta.delivered = 1
  if (from.readAt === null && to.readAt !== null) delta.read = 1
  return delta
}

/** The counters of a set of recipients, recounted from scratch (what `recount` computes in SQL). */
export const countAll = (rows: Iterable<Progress>): Counters => {
  const c = { total: 0, pending: 0, skipped: 0, cancelled: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
  for (const row of rows) {
    c.total++
    const key = statusCounter(row.status)
    if (key !== undefined) c[key]++
    if (row.sentAt !== null) c.sent++
    if (row.deliveredAt !== null) c.delivered++
    if (row.readAt !== null) c.read++
  }
  return c
}

/** How the worker treats an operator refusal of one send. */
export type RefusalClass =
  /** Throttled: back to pending, the lane waits. */
  | "throttled"
  /** The template can no longer be sent (paused, disabled, gone): back to pending and the campaign pauses. */
  | "template"
  /** The user stopped marketing messages: failed for good and added to the opt-out list. */
  | "optedOut"
  /** Failed; a campaign retry sends it again. */
  | "retryable"
  /** Failed for good. */
  | "permanent"

export const classifyRefusal = (code: number): RefusalClass => {
  if (OperatorErrorCode.TEMPLATE_BLOCKED_CODES.has(code)) return "template"
  switch (OperatorErrorCode.classify(code)) {
    case "throttled":
      return "throttled"
    case "optedOut":
      return "optedOut"
    case "transient":
      return "retryable"
    case "permanent":
      return "permanent"
  }
}

// ---------------------------------------------------------------------------------------
// the resource and the requests

const snake = Wire.key
const time = <const K extends string>(key: K) => snake(Schema.NullOr(Time.IsoDateTime), key)

/** A recipient's own parameters as the API shows them: as the caller gave them (no operator media id). */
const ShownParameters = Schema.transform(TemplateSend.RecipientParameters, Schema.typeSchema(TemplateSend.FrozenParameters), {
  strict: false,
  decode: (p) => p,
  encode: (p) => {
    const rich = TemplateSend.richOf(p)
    return rich === undefined ? p : TemplateSend.callerRich(rich)
  }
})

/**
 * A recipient as the API shows it: the entity without its campaign id and position, keys in
 * snake_case, times as ISO text. Handlers return `Recipient`s.
 */
export const RecipientResource = Schema.Struct({
  id: RecipientId.schema,
  phone: Recipient.fields.phone,
  input: Recipient.fields.input,
  customerId: snake(Recipient.fields.customerId, "customer_id"),
  status: Recipient.fields.status,
  skipReason: snake(Recipient.fields.skipReason, "skip_reason"),
  failure: Recipient.fields.failure,
  operatorMessageId: snake(Recipient.fields.operatorMessageId, "operator_message_id"),
  parameters: Schema.NullOr(ShownParameters),
  sentAt: time("sent_at"),
  deliveredAt: time("delivered_at"),
  readAt: time("read_at"),
  nextAttemptAt: time("next_attempt_at"),
  updatedAt: snake(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "CampaignRecipient" })

/**
 * The position of a recipient in its campaign's list (its `seq`), as a cursor carries it:
 * `seq:<n>` (then base64url, see `Pagination.Cursor`).
 */
export const Position = Pagination.Sequence("recipient")

/** Most entries (phones plus customer ids) one `POST .../recipients` may carry. */
export const MAX_PER_REQUEST = 10_000

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * `POST /chat/campaigns/{id}/recipients`. `parameters` maps an entry (the phone exactly as
 * given in `phones`, or a customer id from `customerIds`) to that recipient's own template
 * parameters, which replace the campaign's and must be as many; or to its rich parameters
 * (`TemplateSend.RecipientRich`: own header, carousel cards, buttons, offer), checked
 * against the template like a single send's.
 */
export const AddRecipients = Schema.Struct({
  phones: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  customerIds: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  parameters: Schema.optional(Schema.Record({ key: Schema.String, value: TemplateSend.RecipientParameters }))
}).annotations({ ...strict, identifier: "AddCampaignRecipients" })
export type AddRecipients = typeof AddRecipients.Type

const SkippedByReason = Schema.Struct({
  opted_out: Schema.Int,
  duplicate: Schema.Int,
  invalid_number: Schema.Int,
  unknown_customer: Schema.Int
})

/** What adding recipients came to: rows added as pending, rows added as skipped by reason, and the campaign's rows after. */
export const Added = Schema.Struct({
  added: Schema.Int,
  /** `duplicate` includes entries whose number the campaign already had. */
  skipped: SkippedByReason,
  total: Schema.Int
})
export interface Added extends Schema.Schema.Type<typeof Added> {}

export const noneSkipped = (): { -readonly [K in SkipReason]: number } => ({ opted_out: 0, duplicate: 0, invalid_number: 0, unknown_customer: 0 })

const AddedJson = Schema.Struct({
  added: Schema.Int,
  skipped: Schema.Int,
  total: Schema.Int,
  skipped_by_reason: SkippedByReason
}).annotations({ identifier: "AddedCampaignRecipients" })

/** The answer of `POST .../recipients`, derived from `Added`: `skipped` is the sum of the reasons. */
export const AddRecipientsResult: Schema.Schema<Added, typeof AddedJson.Encoded> = Schema.transform(AddedJson, Schema.typeSchema(Added), {
  strict: true,
  decode: (j) => ({ added: j.added, skipped: j.skipped_by_reason, total: j.total }),
  encode: (a) => ({
    added: a.added,
    skipped: a.skipped.opted_out + a.skipped.duplicate + a.skipped.invalid_number + a.skipped.unknown_customer,
    total: a.total,
    skipped_by_reason: a.skipped
  })
})
