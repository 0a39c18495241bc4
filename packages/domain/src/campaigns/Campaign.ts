/**
 * Campaigns: one approved template sent to many recipients, paced per sender number.
 * A campaign belongs to exactly one store and mode; another store's id answers as an id
 * that does not exist.
 *
 * State machine (DESIGN.md "State machines"):
 *
 *   draft ──launch──► active                  (no scheduled_at, or one already past)
 *   draft ──launch──► scheduled ──(due)──► active
 *   active ──pause──► paused ──resume──► active
 *   active ──(worker: template paused or disabled, failures above threshold)──► paused
 *   active ──(worker: no pending or sending recipient left)──► completed
 *   draft | scheduled | active | paused ──cancel──► cancelled
 *   completed | paused ──retry (some failed recipient can be retried)──► active
 *
 * Edits (`update`, `delete`) are for drafts only; recipients may be added to a draft or a
 * scheduled campaign. Anything else is refused with `InvalidState` naming the current
 * status. `completed` and `cancelled` are final except for `retry` of a completed one.
 *
 * What each recipient receives is fixed at launch: the template's category and components
 * and the campaign's parameters are frozen on the campaign row, and per-recipient
 * parameters never change once added. A resume or a retry sends exactly what the first
 * pass would have.
 */
import { Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import type { Mode } from "../shared/Tenant.js"
import * as Template from "../templates/Template.js"

export const Status = Schema.Literal("draft", "scheduled", "active", "paused", "completed", "cancelled")
export type Status = typeof Status.Type

/** What a caller (or the worker) asks of a campaign. */
export type Operation =
  | "update"
  | "delete"
  | "add recipients to"
  | "launch"
  | "pause"
  | "resume"
  | "cancel"
  | "retry"
  /** The worker: a scheduled campaign whose time has come. */
  | "activate"
  /** The worker: every recipient reached a final state. */
  | "complete"
  /** The worker pauses by itself (template paused, too many failures). */
  | "auto-pause"

export interface TransitionContext {
  /** `launch`: whether scheduled_at lies in the future. */
  readonly scheduledInFuture?: boolean
  /** `retry`: whether some failed recipient can be retried. */
  readonly retryableFailures?: boolean
}

const refuse = (status: Status, operation: string) =>
  Either.left(new InvalidState({ resource: "campaign", status, operation }))

/**
 * The status after `operation`, or `InvalidState` when the state machine refuses it. The
 * one place that knows which operation is allowed in which status.
 */
export const transition = (status: Status, operation: Operation, context: TransitionContext = {}): Either.Either<Status, InvalidState> => {
  switch (operation) {
    case "update":
    case "delete":
      return status === "draft" ? Either.right(status) : refuse(status, operation)
    case "add recipients to":
      return status === "draft" || status === "scheduled" ? Either.right(status) : refuse(status, operation)
    case "launch":
      return status === "draft" ? Either.right(context.scheduledInFuture ? "scheduled" : "active") : refuse(status, operation)
    case "activate":
      return status === "scheduled" ? Either.right("active") : refuse(status, operation)
    case "pause":
    case "auto-pause":
      return status === "active" ? Either.right("paused") : refuse(status, "pause")
    case "resume":
      return status === "paused" ? Either.right("active") : refuse(status, operation)
    case "complete":
      return status === "active" ? Either.right("completed") : refuse(status, operation)
    case "cancel":
      return status === "draft" || status === "scheduled" || status === "active" || status === "paused"
        ? Either.right("cancelled")
        : refuse(status, operation)
    case "retry":
      if (status !== "completed" && status !== "paused") return refuse(status, operation)
      return context.retryableFailures ? Either.right("active") : refuse(status, "retry (no failed recipient can be retried)")
  }
}

/** The statuses from which `operation` is allowed (for conditional updates). */
export const sources = (operation: Operation): ReadonlyArray<Status> =>
  Status.literals.filter((s) => Either.isRight(transition(s, operation, { scheduledInFuture: true, retryableFailures: true })))

/**
 * Cumulative counters. `sent`, `delivered`, `read` count recipients whose message reached
 * that point (a read message counts in all three); `failed` counts recipients in status
 * `failed`; `pending` counts those still to be sent (`pending` or `sending`); `total`
 * counts every recipient row, `skipped` and `cancelled` included.
 */
export interface Counters {
  readonly total: number
  readonly pending: number
  readonly skipped: number
  readonly cancelled: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly failed: number
}

export const zeroCounters: Counters = { total: 0, pending: 0, skipped: 0, cancelled: 0, sent: 0, delivered: 0, read: 0, failed: 0 }

export const addCounters = (a: Counters, b: Partial<Counters>): Counters => ({
  total: a.total + (b.total ?? 0),
  pending: a.pending + (b.pending ?? 0),
  skipped: a.skipped + (b.skipped ?? 0),
  cancelled: a.cancelled + (b.cancelled ?? 0),
  sent: a.sent + (b.sent ?? 0),
  delivered: a.delivered + (b.delivered ?? 0),
  read: a.read + (b.read ?? 0),
  failed: a.failed + (b.failed ?? 0)
})

export interface Campaign {
  readonly id: string
  readonly storeId: string
  readonly mode: Mode
  readonly name: string
  readonly templateName: string
  readonly templateLanguage: string
  /** The campaign-level template parameters (defaults for recipients without their own). */
  readonly parameters: ReadonlyArray<string>
  /** Frozen at launch; null before. */
  readonly templateCategory: Template.Category | null
  /** Frozen at launch; null before. */
  readonly templateComponents: ReadonlyArray<Template.Component> | null
  /** Caller's pace for this campaign (1..1000); null: the worker's default. */
  readonly messagesPerSecond: number | null
  readonly status: Status
  readonly scheduledAt: Date | null
  /** The sender number (operator phone number id), frozen at launch; null before. */
  readonly phoneNumberId: string | null
  readonly pausedReason: string | null
  readonly counters: Counters
  readonly launchedAt: Date | null
  readonly completedAt: Date | null
  readonly cancelledAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Largest `messages_per_second` a campaign may ask for (the operator's highest tier). */
export const MAX_MESSAGES_PER_SECOND = 1000
/** The operator's default throughput per number. */
export const DEFAULT_MESSAGES_PER_SECOND = 80

const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Name = Schema.String.pipe(
  Schema.filter((s) => (s.trim().length > 0 && s.length <= 200) || "must be 1 to 200 characters")
)
const Parameters = Schema.Array(Schema.String)
const MessagesPerSecond = Schema.Int.pipe(
  Schema.filter((n) => (n >= 1 && n <= MAX_MESSAGES_PER_SECOND) || `must be an integer from 1 to ${MAX_MESSAGES_PER_SECOND}`)
)
const DateTime = Schema.String.pipe(
  Schema.filter((s) => (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s))) || "must be an ISO 8601 date-time, e.g. 2030-01-31T09:00:00Z")
)

export const TemplateInput = Schema.Struct({
  name: Schema.String,
  language: Schema.String,
  parameters: Schema.optionalWith(Parameters, { default: () => [] })
}).annotations({ ...strict, identifier: "CampaignTemplateInput" })

/** `POST /chat/campaigns`. */
export const CreateCampaign = Schema.Struct({
  name: Name,
  template: TemplateInput,
  scheduled_at: Schema.optional(Schema.NullOr(DateTime)),
  messages_per_second: Schema.optional(Schema.NullOr(MessagesPerSecond))
}).annotations({ ...strict, identifier: "CreateCampaign" })
export type CreateCampaign = typeof CreateCampaign.Type

/** `PATCH /chat/campaigns/{id}` (drafts only): every field optional; `null` clears the schedule or the pace. */
export const UpdateCampaign = Schema.Struct({
  name: Schema.optional(Name),
  template: Schema.optional(TemplateInput),
  scheduled_at: Schema.optional(Schema.NullOr(DateTime)),
  messages_per_second: Schema.optional(Schema.NullOr(MessagesPerSecond))
}).annotations({ ...strict, identifier: "UpdateCampaign" })
export type UpdateCampaign = typeof UpdateCampaign.Type

/** The campaign as the API shows it. Counters are integers and cumulative. */
export const CampaignResource = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  status: Status,
  template: Schema.Struct({
    name: Schema.String,
    language: Schema.String,
    parameters: Schema.Array(Schema.String),
    category: Schema.NullOr(Template.Category)
  }),
  messages_per_second: Schema.NullOr(Schema.Int),
  scheduled_at: Schema.NullOr(Schema.String),
  paused_reason: Schema.NullOr(Schema.String),
  total: Schema.Int,
  pending: Schema.Int,
  skipped: Schema.Int,
  cancelled: Schema.Int,
  sent: Schema.Int,
  delivered: Schema.Int,
  read: Schema.Int,
  failed: Schema.Int,
  launched_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String),
  cancelled_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "Campaign" })
export type CampaignResource = typeof CampaignResource.Type

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString())

export const toResource = (c: Campaign): CampaignResource => ({
  id: c.id,
  name: c.name,
  status: c.status,
  template: { name: c.templateName, language: c.templateLanguage, parameters: c.parameters, category: c.templateCategory },
  messages_per_second: c.messagesPerSecond,
  scheduled_at: iso(c.scheduledAt),
  paused_reason: c.pausedReason,
  ...c.counters,
  launched_at: iso(c.launchedAt),
  completed_at: iso(c.completedAt),
  cancelled_at: iso(c.cancelledAt),
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString()
})
