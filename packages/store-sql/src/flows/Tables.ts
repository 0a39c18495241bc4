/** The flows tables (migration 0015) and their column maps. */
import { Flow, FlowResponse } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface FlowsTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly name: string
  /** JSON array of the operator's categories. */
  readonly categories: string
  readonly status: string
  readonly version: number | string
  readonly previous_version_id: string | null
  readonly lineage_id: string
  /** The Flow JSON text as stored. */
  readonly json: string | null
  readonly json_version: string | null
  /** JSON array of the operator's validation errors. */
  readonly validation_errors: string
  readonly endpoint_url: string | null
  readonly operator_flow_id: string
}

/** One row per flow message sent. */
export interface FlowSendsTable extends Columns.OwnedRow {
  readonly flow_id: string
  readonly flow_token: string
  readonly message_id: string
  readonly to_phone: string
  readonly created_at: number | string
}

/** One row per `nfm_reply` message; (store_id, mode, operator_message_id) is unique. */
export interface FlowResponsesTable extends Columns.OwnedRow {
  readonly flow_id: string | null
  readonly send_id: string | null
  readonly flow_token: string | null
  readonly operator_message_id: string
  readonly from_phone: string
  readonly response_json: string
  readonly received_at: number | string
}

/** One row per request to the hosted data endpoint. */
export interface FlowEndpointCallsTable extends Columns.OwnedRow {
  readonly flow_id: string
  readonly action: string
  readonly http_status: number
  readonly ok: number | boolean
  readonly latency_ms: number | string
  readonly error: string | null
  readonly at: number | string
}

/** The data endpoint's key pair per tenant. */
export interface FlowKeysTable extends Columns.TenantRow {
  readonly phone_number_id: string
  readonly public_key: string
  /** Encrypted with the server's secret. */
  readonly private_key: string
  readonly created_at: number | string
}

export interface FlowTables {
  readonly flows: FlowsTable
  readonly flow_sends: FlowSendsTable
  readonly flow_responses: FlowResponsesTable
  readonly flow_endpoint_calls: FlowEndpointCallsTable
  readonly flow_keys: FlowKeysTable
}

export const flowColumns = Columns.map<Flow.Flow, FlowsTable>("flows", {
  ...Columns.owned,
  name: ["name", Columns.text],
  categories: ["categories", Columns.json(Flow.Flow.fields.categories)],
  status: ["status", Columns.text],
  version: ["version", Columns.integer],
  previousVersionId: ["previous_version_id", Columns.text],
  lineageId: ["lineage_id", Columns.text],
  json: ["json", Columns.text],
  jsonVersion: ["json_version", Columns.text],
  validationErrors: ["validation_errors", Columns.json(Flow.Flow.fields.validationErrors)],
  endpointUrl: ["endpoint_url", Columns.text],
  operatorFlowId: ["operator_flow_id", Columns.text],
  ...Columns.stamps
})

/** A send of a flow, but for its tenant columns (the tenant is the caller's). */
export const flowSendColumns = Columns.map<FlowResponse.FlowSend, Omit<FlowSendsTable, "store_id" | "mode">>("flow_sends", {
  id: ["id", Columns.text],
  flowId: ["flow_id", Columns.text],
  flowToken: ["flow_token", Columns.text],
  messageId: ["message_id", Columns.text],
  to: ["to_phone", Columns.text],
  createdAt: ["created_at", Columns.epoch]
})

export const flowResponseColumns = Columns.map<FlowResponse.FlowResponse, FlowResponsesTable>("flow_responses", {
  ...Columns.owned,
  flowId: ["flow_id", Columns.text],
  sendId: ["send_id", Columns.text],
  flowToken: ["flow_token", Columns.text],
  operatorMessageId: ["operator_message_id", Columns.text],
  from: ["from_phone", Columns.text],
  response: ["response_json", Columns.json(FlowResponse.FlowResponse.fields.response)],
  receivedAt: ["received_at", Columns.epoch]
})
