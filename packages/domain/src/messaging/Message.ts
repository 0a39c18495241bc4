/**
 * Outbound messages sent through `POST /chat/messages`.
 *
 * Status: `pending` (recorded, not yet accepted) -> `accepted` (the operator took it, we
 * have its wamid) -> `sent` -> `delivered` -> `read`; or `failed` from pending, accepted or
 * sent. Status webhooks may arrive twice or out of order: a status only ever moves forward
 * (`read` before `delivered` leaves `read`), and `failed` is final.
 */
import { Option, Schema } from "effect"
import * as Wire from "../shared/Wire.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { TemplateSend } from "../templates/TemplateSend.js"

export const MessageId = Id.kind("msg", "MessageId")
export type MessageId = Id.Of<typeof MessageId>

export const Status = Schema.Literal("pending", "accepted", "sent", "delivered", "read", "failed")
export type Status = typeof Status.Type

const RANK: Record<Status, number> = { pending: 0, accepted: 1, sent: 2, delivered: 3, read: 4, failed: 5 }

/** The status after an operator report, or undefined when the report changes nothing. */
export const advance = (current: Status, reported: string): Status | undefined => {
  if (!(reported in RANK) || reported === "pending") return undefined
  const next = reported as Status
  if (current === "failed") return undefined
  if (next === "failed") return current === "delivered" || current === "read" ? undefined : "failed"
  return RANK[next] > RANK[current] ? next : undefined
}

/** The statuses from which `advance` can reach `to` (for conditional updates in SQL). */
export const predecessors = (to: Status): ReadonlyArray<Status> =>
  to === "failed" ? ["pending", "accepted", "sent"] : (Object.keys(RANK) as Array<Status>).filter((s) => s !== "failed" && RANK[s] < RANK[to])

export const MessageError = Schema.Struct({ code: Schema.Number, title: Schema.String })
export interface MessageError extends Schema.Schema.Type<typeof MessageError> {}

export const Type = Schema.Literal("text", "template", "interactive", "flow")
export type Type = typeof Type.Type

export const Message = Schema.Struct({
  id: MessageId.schema,
  ...Owned,
  /** E.164. */
  to: Schema.String,
  type: Type,
  /** The request's content (text, template, interactive, flow) as given. */
  content: Schema.Unknown,
  status: Status,
  /** The operator's message id (wamid), once it accepted the message. */
  operatorMessageId: Schema.NullOr(Schema.String),
  error: Schema.NullOr(MessageError),
  flowToken: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}).annotations({ identifier: "MessageEntity" })
export interface Message extends Schema.Schema.Type<typeof Message> {}

const renamed = Wire.key

/** The message as the API shows it: the operator's error title as `message`, `flow_token` only on flow messages. */
export const MessageResource = Schema.Struct({
  id: Message.fields.id,
  to: Message.fields.to,
  type: Message.fields.type,
  status: Message.fields.status,
  operatorMessageId: renamed(Message.fields.operatorMessageId, "operator_message_id"),
  error: Schema.NullOr(Schema.Struct({ code: Schema.Number, title: renamed(Schema.String, "message") })),
  flowToken: Schema.optionalToRequired(Schema.String, Schema.NullOr(Schema.String), {
    decode: Option.getOrElse(() => null),
    encode: Option.liftPredicate((token) => token !== null)
  }).pipe(Schema.fromKey("flow_token")),
  createdAt: renamed(Time.IsoDateTime, "created_at"),
  updatedAt: renamed(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Message" })

/** The query of `GET /chat/messages`: `limit`, `cursor`, and the filters `status` and `to` (a phone number). */
export const ListMessages = Pagination.ListParams(MessageId.schema, {
  status: Schema.optional(Status),
  to: Schema.optional(Schema.String)
})

/** The answer of `GET /chat/messages`. */
export const MessagePage = Pagination.PageOf(MessageResource, "MessagePage")

// ---------------------------------------------------------------------------------------
// POST /chat/messages

/** The most characters a text message (and a sandbox customer's text) may hold. */
export const TEXT_LIMIT = 4096

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const To = Schema.String

export const SendMessage = Schema.Union(
  Schema.Struct({
    to: To,
    type: Schema.Literal("text"),
    text: Schema.Struct({ body: Schema.String, preview_url: Schema.optional(Schema.Boolean) }).annotations(strict)
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("template"),
    template: TemplateSend
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("interactive"),
    interactive: Schema.Struct({ type: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("flow"),
    flow: Schema.Struct({
      /** Our flow's id (`flw_…`). */
      id: Schema.String,
      /** Generated (and answered) when not given. */
      flow_token: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
      cta: Schema.String,
      body: Schema.String,
      screen: Schema.optional(Schema.String),
      data: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
      mode: Schema.optional(Schema.Literal("published", "draft"))
    }).annotations(strict)
  }).annotations(strict)
).annotations({ identifier: "SendMessage" })
export type SendMessage = typeof SendMessage.Type

/** The answer of `POST /chat/messages`: the message, named apart in the API document. */
export const SentMessage = MessageResource.annotations({ identifier: "SentMessage" })
