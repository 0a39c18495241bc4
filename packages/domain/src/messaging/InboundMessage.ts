/**
 * Inbound messages: what customers wrote to the store's number, recorded once per tenant by
 * the operator's message id (the operator retries its webhooks, so one message may arrive
 * several times).
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import { Owned } from "../shared/Tenant.js"

export const InboundMessageId = Id.kind("inm", "InboundMessageId")
export type InboundMessageId = Id.Of<typeof InboundMessageId>

export const InboundMessage = Schema.Struct({
  id: InboundMessageId.schema,
  ...Owned,
  /** The operator's message id (wamid): the dedupe key. */
  operatorMessageId: Schema.String,
  /** E.164. */
  from: Schema.String,
  type: Schema.String,
  text: Schema.NullOr(Schema.String),
  /** The operator's time of the message. */
  receivedAt: Schema.Number
}).annotations({ identifier: "InboundMessageEntity" })
export interface InboundMessage extends Schema.Schema.Type<typeof InboundMessage> {}

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** `POST /chat/sandbox/inbound-messages`: a sandbox customer writes to the store's sandbox number. */
export const SandboxInbound = Schema.Struct({
  from: Schema.String,
  text: Schema.String,
  profile_name: Schema.optional(Schema.String)
}).annotations(strict)

/**
 * The answer: the emulator delivered the signed webhook to our inbound route, and the message
 * was applied (`customer_id` names the customer, whose window is open; null only when it was
 * not applied in time).
 */
export const SandboxAccepted = Schema.Struct({
  accepted: Schema.Literal(true),
  operator_message_id: Schema.String,
  customer_id: Schema.NullOr(Schema.String)
})
