/**
 * Caller webhooks: endpoints a caller registers, with the event types they want. Deliveries
 * are signed as the Standard Webhooks specification says (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, `whsec_` secrets), retried with exponential
 * back-off for about three days under a stable `webhook-id`; a 410 answer disables the
 * endpoint.
 *
 * Event types are text here: each module declares the caller events it emits (its
 * `module.ts`), and the API checks a registration against the list of all of them.
 */
import { Effect, Schema } from "effect"
import * as Wire from "../shared/Wire.js"
import * as Id from "../shared/Id.js"
import { Owned, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

export const WebhookEndpointId = Id.kind("whe", "WebhookEndpointId")
export type WebhookEndpointId = Id.Of<typeof WebhookEndpointId>

export const EventId = Id.kind("evt", "EventId")
export type EventId = Id.Of<typeof EventId>

export const DeliveryId = Id.kind("dlv", "DeliveryId")
export type DeliveryId = Id.Of<typeof DeliveryId>

export const EndpointStatus = Schema.Literal("enabled", "disabled")
export type EndpointStatus = typeof EndpointStatus.Type

export const WebhookEndpoint = Schema.Struct({
  id: WebhookEndpointId.schema,
  ...Owned,
  url: Schema.String,
  /** The event types it subscribed to. */
  events: Schema.Array(Schema.String),
  /** `whsec_` + base64 of 24 random bytes. Needed to sign, so stored; shown to the caller once. */
  secret: Schema.String,
  status: EndpointStatus,
  disabledReason: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}).annotations({ identifier: "WebhookEndpointEntity" })
export interface WebhookEndpoint extends Schema.Schema.Type<typeof WebhookEndpoint> {}

/** An event for the caller, recorded once and delivered to every endpoint that wants it. */
export const Event = Schema.Struct({
  id: EventId.schema,
  ...Owned,
  type: Schema.String,
  /** The event's JSON `data`, as the module that emitted it shaped it. */
  data: Schema.Unknown,
  createdAt: Schema.Number
}).annotations({ identifier: "WebhookEventEntity" })
export interface Event extends Schema.Schema.Type<typeof Event> {}

/** A new event of the tenant, dated now. */
export const newEvent = (tenant: Tenant, type: string, data: unknown): Effect.Effect<Event> =>
  Effect.gen(function* () {
    return { id: yield* EventId.generate, storeId: tenant.storeId, mode: tenant.mode, type, data, createdAt: yield* Time.now }
  })

/** One attempt to deliver one event to one endpoint. */
export const DeliveryAttempt = Schema.Struct({
  id: DeliveryId.schema,
  endpointId: WebhookEndpointId.schema,
  eventId: EventId.schema,
  attempt: Schema.Int,
  /** The HTTP status answered; null when no answer came (refused address, timeout, network). */
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Int,
  createdAt: Schema.Number
}).annotations({ identifier: "WebhookDeliveryEntity" })
export interface DeliveryAttempt extends Schema.Schema.Type<typeof DeliveryAttempt> {}

/** An attempt as the deliveries list shows it: with the type of the event it carried. */
export interface ListedAttempt extends DeliveryAttempt {
  readonly eventType: string
}

/** Which attempts a list shows: `succeeded` is a 2xx answer, `failed` anything else. */
export const DeliveryOutcome = Schema.Literal("succeeded", "failed")
export type DeliveryOutcome = typeof DeliveryOutcome.Type

export interface AttemptFilter {
  readonly endpointId?: WebhookEndpointId | undefined
  readonly eventId?: EventId | undefined
  readonly outcome?: DeliveryOutcome | undefined
}

/** The event type of "send test event". */
export const TEST_EVENT_TYPE = "webhook.test"

export const newSecret = (): string => {
  const bytes = new Uint8Array(24)
  globalThis.crypto.getRandomValues(bytes)
  return `whsec_${btoa(String.fromCharCode(...bytes))}`
}

/** The JSON body of a delivery: `{id, type, created_at, data}` (the `webhook-id` is the event id). */
export const payloadOf = (event: Event): string =>
  JSON.stringify({ id: event.id, type: event.type, created_at: Time.toIso(event.createdAt), data: event.data })

// ---------------------------------------------------------------------------------------
// resources and requests

const renamed = Wire.key

/** The endpoint as the API shows it (never its secret). */
export const EndpointResource = Schema.Struct({
  id: WebhookEndpoint.fields.id,
  url: WebhookEndpoint.fields.url,
  events: WebhookEndpoint.fields.events,
  status: WebhookEndpoint.fields.status,
  disabledReason: renamed(WebhookEndpoint.fields.disabledReason, "disabled_reason"),
  createdAt: renamed(Time.IsoDateTime, "created_at"),
  updatedAt: renamed(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "WebhookEndpoint" })

/** The answer of a registration: the only time the secret is shown. */
export const CreatedEndpoint = Schema.Struct({
  ...EndpointResource.fields,
  secret: WebhookEndpoint.fields.secret
}).annotations({ identifier: "CreatedWebhookEndpoint" })

/** One delivery attempt as the API shows it. */
export const DeliveryResource = Schema.Struct({
  id: DeliveryAttempt.fields.id,
  endpointId: renamed(DeliveryAttempt.fields.endpointId, "endpoint_id"),
  eventId: renamed(DeliveryAttempt.fields.eventId, "event_id"),
  eventType: Schema.optional(Schema.String).pipe(Schema.fromKey("event_type")),
  attempt: DeliveryAttempt.fields.attempt,
  statusCode: renamed(DeliveryAttempt.fields.statusCode, "status_code"),
  error: DeliveryAttempt.fields.error,
  durationMs: renamed(DeliveryAttempt.fields.durationMs, "duration_ms"),
  createdAt: renamed(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "WebhookDelivery" })

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** `POST /chat/webhooks`, with the event types the API accepts. */
export const CreateEndpoint = <E extends string, I>(eventType: Schema.Schema<E, I>) =>
  Schema.Struct({ url: Schema.String, events: Schema.Array(eventType) }).annotations(strict)

/** `PATCH /chat/webhooks/:id`, with the event types the API accepts. */
export const UpdateEndpoint = <E extends string, I>(eventType: Schema.Schema<E, I>) =>
  Schema.Struct({
    url: Schema.optional(Schema.String),
    events: Schema.optional(Schema.Array(eventType)),
    status: Schema.optional(EndpointStatus)
  }).annotations(strict)

/** `GET /chat/webhook-deliveries` filters (besides `limit` and `cursor`). */
export const DeliveryFilters = {
  endpointId: Schema.optional(WebhookEndpointId.schema).pipe(Schema.fromKey("endpoint_id")),
  eventId: Schema.optional(EventId.schema).pipe(Schema.fromKey("event_id")),
  outcome: Schema.optional(DeliveryOutcome)
}

/**
 * The answer of `POST /chat/webhooks/:id/test` and `POST /chat/webhook-deliveries/:id/redeliver`
 * (202): the id the delivery's first attempt is recorded under, its event and endpoint.
 */
export const QueuedDelivery = Schema.Struct({
  id: DeliveryId.schema,
  eventId: renamed(EventId.schema, "event_id"),
  endpointId: renamed(WebhookEndpointId.schema, "endpoint_id"),
  status: Schema.Literal("queued")
}).annotations({ identifier: "QueuedWebhookDelivery" })

/** The answer of `DELETE /chat/webhooks/:id`. */
export const Deleted = Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) })
