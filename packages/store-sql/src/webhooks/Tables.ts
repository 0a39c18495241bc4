/** The caller webhook tables (migration 0002) and their column maps. */
import { WebhookEndpoint } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface WebhookEndpointsTable extends Columns.OwnedRow {
  readonly url: string
  /** JSON array of event types. */
  readonly events: string
  readonly secret: string
  readonly status: string
  readonly disabled_reason: string | null
  readonly created_at: number
  readonly updated_at: number
}

export interface WebhookEventsTable extends Columns.OwnedRow {
  readonly type: string
  /** JSON. */
  readonly data: string
  readonly created_at: number
}

export interface WebhookDeliveriesTable {
  readonly id: string
  readonly endpoint_id: string
  readonly event_id: string
  readonly attempt: number
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly created_at: number
}

export interface WebhookTables {
  readonly webhook_endpoints: WebhookEndpointsTable
  readonly webhook_events: WebhookEventsTable
  readonly webhook_deliveries: WebhookDeliveriesTable
}

export const endpointColumns = Columns.map<WebhookEndpoint.WebhookEndpoint, WebhookEndpointsTable>("webhook_endpoints", {
  ...Columns.owned,
  url: ["url", Columns.text],
  events: ["events", Columns.json(WebhookEndpoint.WebhookEndpoint.fields.events)],
  secret: ["secret", Columns.text],
  status: ["status", Columns.text],
  disabledReason: ["disabled_reason", Columns.text],
  ...Columns.stamps
})

export const endpointSelect = ["id", "store_id", "mode", "url", "events", "secret", "status", "disabled_reason", "created_at", "updated_at"] as const

export const eventColumns = Columns.map<WebhookEndpoint.Event, WebhookEventsTable>("webhook_events", {
  ...Columns.owned,
  type: ["type", Columns.text],
  data: ["data", Columns.anyJson],
  createdAt: ["created_at", Columns.epoch]
})

export const deliveryColumns = Columns.map<WebhookEndpoint.DeliveryAttempt, WebhookDeliveriesTable>("webhook_deliveries", {
  id: ["id", Columns.text],
  endpointId: ["endpoint_id", Columns.text],
  eventId: ["event_id", Columns.text],
  attempt: ["attempt", Columns.integer],
  statusCode: ["status_code", Columns.nullable(Columns.integer)],
  error: ["error", Columns.text],
  durationMs: ["duration_ms", { toRow: (ms: number) => Math.round(ms), fromRow: (c: number | string) => Number(c) }],
  createdAt: ["created_at", Columns.epoch]
})
