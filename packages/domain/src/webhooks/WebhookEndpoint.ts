/**
 * Caller webhooks: endpoints a caller registers, with the event types they want. Deliveries
 * are signed as the Standard Webhooks specification says (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, `whsec_` secrets), retried with exponential
 * back-off for about three days under a stable `webhook-id`; a 410 answer disables the
 * endpoint.
 */
import { Schema } from "effect"
import type { Mode } from "../shared/Tenant.js"

export const EventType = Schema.Literal(
  "message.status",
  "message.received",
  "customer.opted_out",
  "customer.opted_in",
  "template.status",
  "campaign.launched",
  "campaign.progress",
  "campaign.paused",
  "campaign.completed",
  "campaign.cancelled"
)
export type EventType = typeof EventType.Type

export const EndpointStatus = Schema.Literal("enabled", "disabled")
export type EndpointStatus = typeof EndpointStatus.Type

export interface WebhookEndpoint {
  readonly id: string
  readonly storeId: string
  readonly mode: Mode
  readonly url: string
  readonly events: ReadonlyArray<EventType>
  /** `whsec_` + base64 of 24 random bytes. Needed to sign, so stored; shown to the caller once. */
  readonly secret: string
  readonly status: EndpointStatus
  readonly disabledReason: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** An event for the caller, recorded once and delivered to every endpoint that wants it. */
export interface Event {
  readonly id: string
  readonly storeId: string
  readonly mode: Mode
  readonly type: EventType
  readonly data: unknown
  readonly createdAt: Date
}

/** One attempt to deliver one event to one endpoint. */
export interface DeliveryAttempt {
  readonly id: string
  readonly endpointId: string
  readonly eventId: string
  readonly attempt: number
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
  readonly createdAt: Date
}

export const newSecret = (): string => {
  const bytes = new Uint8Array(24)
  globalThis.crypto.getRandomValues(bytes)
  return `whsec_${btoa(String.fromCharCode(...bytes))}`
}

export const EndpointResource = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  events: Schema.Array(EventType),
  status: EndpointStatus,
  disabled_reason: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "WebhookEndpoint" })

export const toResource = (e: WebhookEndpoint): typeof EndpointResource.Type => ({
  id: e.id,
  url: e.url,
  events: e.events,
  status: e.status,
  disabled_reason: e.disabledReason,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString()
})

export const DeliveryResource = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.optional(Schema.String),
  attempt: Schema.Int,
  status_code: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  duration_ms: Schema.Int,
  created_at: Schema.String
}).annotations({ identifier: "WebhookDelivery" })

/** The JSON body of a delivery: `{id, type, created_at, data}` (the `webhook-id` is the event id). */
export const payloadOf = (event: Event): string =>
  JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: event.data })
