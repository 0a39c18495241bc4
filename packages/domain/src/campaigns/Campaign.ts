/**
 * Campaigns: one approved template sent to many recipients, paced per sender number.
 * A campaign belongs to exactly one tenant (store and mode); another tenant's id answers as
 * an id that does not exist.
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
 * Edits (`update`, `delete`, `remove recipients from`) are for drafts only; recipients may
 * be added to a draft or a scheduled campaign. Anything else is refused with `InvalidState` naming the current
 * status. `completed` and `cancelled` are final except for `retry` of a completed one.
 *
 * What each recipient receives is fixed at launch: the template's category and components
 * and the campaign's parameters are frozen on the campaign row, and per-recipient
 * parameters never change once added. A resume or a retry sends exactly what the first
 * pass would have.
 *
 * The entity is declared once, as the `Campaign` schema; the API's `CampaignResource` is
 * derived from it (its Type is the entity's public part, its Encoded side the JSON).
 */
import { Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { Owned, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Template from "../templates/Template.js"
import { ButtonParameter } from "../templates/TemplateSend.js"
import * as RichSend from "../templates/RichSend.js"

/** `cmp_…` */
export const CampaignId = Id.kind("cmp", "CampaignId")
export type CampaignId = Id.Of<typeof CampaignId>

export const Status = Schema.Literal("draft", "scheduled", "active", "paused", "completed", "cancelled")
export type Status = typeof Status.Type

/** What a caller (or the worker) asks of a campaign. */
export type Operation =
  | "update"
  | "delete"
  | "add recipients to"
  | "remove recipients from"
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

const refuse = (status: Status, operation: string) => Either.left(new InvalidState({ resource: "campaign", status, operation }))

/**
 * The status after `operation`, or `InvalidState` when the state machine refuses it. The
 * one place that knows which operation is allowed in which status.
 */
export const transition = (status: Status, operation: Operation, context: TransitionContext = {}): Either.Either<Status, InvalidState> => {
  switch (operation) {
    case "update":
    case "delete":
    case "remove recipients from":
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

/** Whether a launch at `now` schedules the campaign rather than activating it. */
export const scheduledInFuture = (campaign: Pick<Campaign, "scheduledAt">, now: Time.Millis): boolean =>
  campaign.scheduledAt !== null && campaign.scheduledAt > now

/**
 * Cumulative counters. `sent`, `delivered`, `read` count recipients whose message reached
 * that point (a read message counts in all three); `failed` counts recipients in status
 * `failed`; `pending` counts those still to be sent (`pending` or `sending`); `total`
 * counts every recipient row, `skipped` and `cancelled` included.
 */
export const Counters = Schema.Struct({
  total: Schema.Int,
  pending: Schema.Int,
  skipped: Schema.Int,
  cancelled: Schema.Int,
  sent: Schema.Int,
  delivered: Schema.Int,
  read: Schema.Int,
  failed: Schema.Int
})
export interface Counters extends Schema.Schema.Type<typeof Counters> {}

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

/** A campaign's counters alone. */
export const countersOf = (c: Counters): Counters => ({
  total: c.total,
  pending: c.pending,
  skipped: c.skipped,
  cancelled: c.cancelled,
  sent: c.sent,
  delivered: c.delivered,
  read: c.read,
  failed: c.failed
})

/** Largest `messages_per_second` a campaign may ask for (the operator's highest tier). */
export const MAX_MESSAGES_PER_SECOND = 1000
/** The operator's default throughput per number. */
export const DEFAULT_MESSAGES_PER_SECOND = 80

/** `send_window`: recipients are sent to only between `from` and `to` (HH:MM, 24 h) of their own local time; `to` before `from` spans midnight. */
const Clock = Schema.String.pipe(Schema.filter((s) => /^([01]\d|2[0-3]):[0-5]\d$/.test(s) || "must be a time of day HH:MM (00:00 to 23:59)"))
export const SendWindow = Schema.Struct({ from: Clock, to: Clock }).annotations({
  parseOptions: { onExcessProperty: "error" },
  identifier: "CampaignSendWindow"
})
export interface SendWindow extends Schema.Schema.Type<typeof SendWindow> {}

/** What a campaign costs in the rate card's currency: estimated before launch, actual from the billable messages the operator reported. */
const Amounts = Schema.Struct({ estimated: Schema.Number, actual: Schema.Number })
export const Cost = Schema.Struct({
  currency: Schema.String,
  estimated: Schema.Number,
  actual: Schema.Number,
  by_category: Schema.Record({ key: Schema.String, value: Amounts })
}).annotations({ identifier: "CampaignCost" })
export interface Cost extends Schema.Schema.Type<typeof Cost> {}

/** The campaign. Times are `Time.Millis`; the counters (see `Counters`) are its own fields. */
export const Campaign = Schema.Struct({
  id: CampaignId.schema,
  ...Owned,
  name: Schema.String,
  templateName: Schema.String,
  templateLanguage: Schema.String,
  /** The campaign-level template parameters (defaults for recipients without their own): an array, or an object by name (NAMED templates). */
  parameters: RichSend.Parameters,
  /** A media or location header, the same for every recipient; at launch, with the operator's media id. */
  templateHeader: Schema.NullOr(RichSend.StoredHeader),
  /** The TEXT header's parameter, the same for every recipient. */
  headerParameters: Schema.Array(Schema.String),
  /** The buttons' parameters by index and sub-type (Appendix B.2), the same for every recipient. */
  buttonParameters: Schema.Array(ButtonParameter),
  /** Frozen at launch; null before. */
  templateCategory: Schema.NullOr(Template.Category),
  /** Frozen at launch; null before. */
  templateComponents: Schema.NullOr(Schema.Array(Template.Component)),
  /** Caller's pace for this campaign (1..1000); null: the worker's default. */
  messagesPerSecond: Schema.NullOr(Schema.Int),
  status: Status,
  scheduledAt: Schema.NullOr(Schema.Number),
  /** The sender number (operator phone number id), frozen at launch; null before. */
  phoneNumberId: Schema.NullOr(Schema.String),
  pausedReason: Schema.NullOr(Schema.String),
  /** Recipients wait for the messaging limit or their send window until then; null: none waits. */
  limitedUntil: Schema.NullOr(Schema.Number),
  sendWindow: Schema.NullOr(SendWindow),
  ...Counters.fields,
  launchedAt: Schema.NullOr(Schema.Number),
  completedAt: Schema.NullOr(Schema.Number),
  cancelledAt: Schema.NullOr(Schema.Number),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Campaign extends Schema.Schema.Type<typeof Campaign> {}

/** The tenant that owns a campaign. */
export const tenantOf = (c: Pick<Campaign, "storeId" | "mode">): Tenant => ({ storeId: c.storeId, mode: c.mode })

// ---------------------------------------------------------------------------------------
// requests

const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Name = Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 200) || "must be 1 to 200 characters"))
const Parameters = Schema.Array(Schema.String)
const BodyParameters = RichSend.Parameters
const MessagesPerSecond = Schema.Int.pipe(
  Schema.filter((n) => (n >= 1 && n <= MAX_MESSAGES_PER_SECOND) || `must be an integer from 1 to ${MAX_MESSAGES_PER_SECOND}`)
)

/** The campaign's template: `parameters` fill the body, `header_parameters` the header, `buttons` the buttons (see `TemplateSend`). */
export const TemplateInput = Schema.Struct({
  name: Schema.String,
  language: Schema.String,
  parameters: Schema.optionalWith(BodyParameters, { default: () => [] }),
  header_parameters: Schema.optionalWith(Parameters, { default: () => [] }),
  /** A media or location header (see `TemplateSend`). */
  header: Schema.optional(RichSend.HeaderParameter),
  buttons: Schema.optionalWith(Schema.Array(ButtonParameter), { default: () => [] })
}).annotations({ ...strict, identifier: "CampaignTemplateInput" })

/** `POST /chat/campaigns`. `scheduled_at` is ISO text on the wire, `Time.Millis` inside. */
export const CreateCampaign = Schema.Struct({
  name: Name,
  template: TemplateInput,
  scheduled_at: Schema.optional(Schema.NullOr(Time.IsoDateTime)),
  messages_per_second: Schema.optional(Schema.NullOr(MessagesPerSecond)),
  send_window: Schema.optional(Schema.NullOr(SendWindow))
}).annotations({ ...strict, identifier: "CreateCampaign" })
export type CreateCampaign = typeof CreateCampaign.Type

/** `PATCH /chat/campaigns/{id}` (drafts only): every field optional; `null` clears the schedule or the pace. */
export const UpdateCampaign = Schema.Struct({
  name: Schema.optional(Name),
  template: Schema.optional(TemplateInput),
  scheduled_at: Schema.optional(Schema.NullOr(Time.IsoDateTime)),
  messages_per_second: Schema.optional(Schema.NullOr(MessagesPerSecond)),
  send_window: Schema.optional(Schema.NullOr(SendWindow))
}).annotations({ ...strict, identifier: "UpdateCampaign" })
export type UpdateCampaign = typeof UpdateCampaign.Type

// ---------------------------------------------------------------------------------------
// the resource

/** What the API shows of a campaign (the entity without its tenant and send settings, with its cost when a read asked for it). */
const Shown = Schema.extend(
  Campaign.pipe(Schema.omit("storeId", "mode", "templateComponents", "phoneNumberId")),
  Schema.Struct({ cost: Schema.optional(Cost) })
)
type Shown = typeof Shown.Type

const CampaignJson = Schema.Struct({
  id: CampaignId.schema,
  name: Schema.String,
  status: Status,
  template: Schema.Struct({
    name: Schema.String,
    language: Schema.String,
    parameters: BodyParameters,
    header_parameters: Schema.Array(Schema.String),
    header: Schema.optional(RichSend.HeaderParameter),
    buttons: Schema.Array(ButtonParameter),
    category: Schema.NullOr(Template.Category)
  }),
  messages_per_second: Schema.NullOr(Schema.Int),
  scheduled_at: Schema.NullOr(Time.IsoDateTime),
  paused_reason: Schema.NullOr(Schema.String),
  limited_until: Schema.NullOr(Time.IsoDateTime),
  send_window: Schema.NullOr(SendWindow),
  cost: Schema.optional(Cost),
  ...Counters.fields,
  launched_at: Schema.NullOr(Time.IsoDateTime),
  completed_at: Schema.NullOr(Time.IsoDateTime),
  cancelled_at: Schema.NullOr(Time.IsoDateTime),
  created_at: Time.IsoDateTime,
  updated_at: Time.IsoDateTime
}).annotations({ identifier: "Campaign" })

/**
 * The campaign as the API shows it: encodes a `Campaign` (handlers return the entity) to
 * its JSON, with the template's fields nested and times as ISO text. Counters are integers
 * and cumulative.
 */
export const CampaignResource: Schema.Schema<Shown, typeof CampaignJson.Encoded> = Schema.transform(CampaignJson, Schema.typeSchema(Shown), {
  strict: true,
  decode: (j) => ({
    id: j.id,
    name: j.name,
    templateName: j.template.name,
    templateLanguage: j.template.language,
    parameters: j.template.parameters,
    templateHeader: j.template.header ?? null,
    headerParameters: j.template.header_parameters,
    buttonParameters: j.template.buttons,
    templateCategory: j.template.category,
    messagesPerSecond: j.messages_per_second,
    status: j.status,
    scheduledAt: j.scheduled_at,
    pausedReason: j.paused_reason,
    limitedUntil: j.limited_until,
    sendWindow: j.send_window,
    ...(j.cost === undefined ? {} : { cost: j.cost }),
    ...countersOf(j),
    launchedAt: j.launched_at,
    completedAt: j.completed_at,
    cancelledAt: j.cancelled_at,
    createdAt: j.created_at,
    updatedAt: j.updated_at
  }),
  encode: (c) => ({
    id: c.id,
    name: c.name,
    status: c.status,
    template: {
      name: c.templateName,
      language: c.templateLanguage,
      parameters: c.parameters,
      header_parameters: c.headerParameters,
      ...(c.templateHeader === null ? {} : { header: RichSend.callerHeader(c.templateHeader) }),
      buttons: c.buttonParameters,
      category: c.templateCategory
    },
    messages_per_second: c.messagesPerSecond,
    scheduled_at: c.scheduledAt,
    paused_reason: c.pausedReason,
    limited_until: c.limitedUntil,
    send_window: c.sendWindow,
    ...(c.cost === undefined ? {} : { cost: c.cost }),
    ...countersOf(c),
    launched_at: c.launchedAt,
    completed_at: c.completedAt,
    cancelled_at: c.cancelledAt,
    created_at: c.createdAt,
    updated_at: c.updatedAt
  })
})

/** The JSON of a campaign, as caller events carry it. */
export const toJson: (c: Campaign) => typeof CampaignJson.Encoded = Schema.encodeSync(CampaignResource)

/** `DELETE /chat/campaigns/{id}`. */
export const Deleted = Schema.Struct({ id: CampaignId.schema, deleted: Schema.Literal(true) })
