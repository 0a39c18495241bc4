/**
 * Flow sends and responses (spec §6): each flow message sent through `POST /chat/messages`
 * is recorded with its `flow_token`; each customer submission arrives as an `nfm_reply`
 * message (GRAPH_API.md §2.6, A.3) whose `response_json` is kept as the response, tied to
 * the flow and the send by its `flow_token`. A token that matches no send is kept too
 * (`flow_id: null`), and listed with `GET /chat/flow-responses?unmatched=true`. One response
 * per operator message id: a duplicate webhook makes none.
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { Mode, StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { FlowId } from "./Flow.js"

/** `frs_…` */
export const FlowResponseId = Id.kind("frs", "FlowResponseId")
export type FlowResponseId = Id.Of<typeof FlowResponseId>

/** `fsn_…` */
export const FlowSendId = Id.kind("fsn", "FlowSendId")
export type FlowSendId = Id.Of<typeof FlowSendId>

/** One flow message sent. */
export interface FlowSend {
  readonly id: FlowSendId
  readonly flowId: FlowId
  readonly flowToken: string
  /** Our message id (`msg_…`). */
  readonly messageId: string
  readonly to: string
  readonly createdAt: Time.Millis
}

export const FlowResponse = Schema.Struct({
  id: FlowResponseId.schema,
  storeId: StoreId.schema,
  mode: Mode,
  /** The flow its token names; null when the token matches no send. */
  flowId: Schema.NullOr(FlowId.schema),
  sendId: Schema.NullOr(FlowSendId.schema),
  flowToken: Schema.NullOr(Schema.String),
  operatorMessageId: Schema.String,
  /** The customer (E.164). */
  from: Schema.String,
  /** `response_json`, parsed. */
  response: Schema.Unknown,
  receivedAt: Schema.Number
})
export interface FlowResponse extends Schema.Schema.Type<typeof FlowResponse> {}

export const FlowResponseResource = Schema.Struct({
  id: FlowResponse.fields.id,
  flowId: Wire.key(FlowResponse.fields.flowId, "flow_id"),
  flowToken: Wire.key(FlowResponse.fields.flowToken, "flow_token"),
  from: FlowResponse.fields.from,
  response: FlowResponse.fields.response,
  operatorMessageId: Wire.key(FlowResponse.fields.operatorMessageId, "operator_message_id"),
  receivedAt: Wire.key(Time.IsoDateTime, "received_at")
}).annotations({ identifier: "FlowResponse" })

export const FlowResponsePage = Pagination.PageOf(FlowResponseResource, "FlowResponsePage")

const filters = {
  flow_token: Schema.optional(Schema.String),
  since: Schema.optional(Time.IsoText),
  until: Schema.optional(Time.IsoText)
}

/** `GET /chat/flows/{id}/responses`: newest first; `flow_token`, and `since`/`until` (received at). */
export const ListResponses = Pagination.ListParams(FlowResponseId.schema, filters)

/** `GET /chat/flow-responses`: every response of the tenant; `unmatched=true` keeps those whose token matched no send. */
export const ListAllResponses = Pagination.ListParams(FlowResponseId.schema, {
  ...filters,
  unmatched: Schema.optional(Schema.BooleanFromString)
})

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** `POST /chat/sandbox/flow-responses`: a sandbox customer submits a flow. */
export const SandboxFlowResponse = Schema.Struct({
  phone: Schema.String,
  flow_token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  response: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ ...strict, identifier: "SandboxFlowResponse" })

export const SandboxFlowResponseAccepted = Schema.Struct({
  accepted: Schema.Literal(true),
  flow_token: Schema.String,
  operator_message_id: Schema.String
}).annotations({ identifier: "SandboxFlowResponseAccepted" })
