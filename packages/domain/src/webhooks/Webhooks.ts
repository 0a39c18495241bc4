/**
 * Caller webhook use cases: endpoint registration and management (routes, in the caller's
 * tenant), and `emit`, which every module calls to record an event and queue its
 * deliveries (`Deliveries.ts`), a batch at a time where it can (`EventBatch.ts`).
 */
import { Effect, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { JobQueue } from "../jobs/JobQueue.js"
import { inTransaction } from "../jobs/Transactor.js"
import * as Module from "../shared/Module.js"
import { deliverJob } from "./Deliveries.js"
import * as EventBatch from "./EventBatch.js"
import * as Endpoint from "./WebhookEndpoint.js"
import { WebhookRepo } from "./WebhookRepo.js"
import { WebhookTransport } from "./WebhookTransport.js"

const RESOURCE = "webhook endpoint"

const checkUrl = (url: string) =>
  Effect.flatMap(WebhookTransport, (t) => t.checkUrl(url)).pipe(Effect.mapError((e) => Errors.ValidationFailed.of("url", e.reason)))

const checkEvents = (events: ReadonlyArray<string>) =>
  events.length === 0 ? Effect.fail(Errors.ValidationFailed.of("events", "must name at least one event type")) : Effect.succeed([...new Set(events)])

/** The endpoint a path id names in the caller's tenant; 404 (without a query for a malformed id) otherwise. */
const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(WebhookRepo, (repo) => Id.lookup(Endpoint.WebhookEndpointId, RESOURCE, id, (endpointId) => repo.findEndpoint(tenant, endpointId)))

/** `POST /chat/webhooks`: answers the endpoint with its secret (shown this once). */
export const create = (input: { readonly url: string; readonly events: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const events = yield* checkEvents(input.events)
    yield* checkUrl(input.url)
    const now = yield* Time.now
    const endpoint: Endpoint.WebhookEndpoint = {
      id: yield* Endpoint.WebhookEndpointId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      url: input.url,
      events,
      secret: Endpoint.newSecret(),
      status: "enabled",
      disabledReason: null,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* WebhookRepo).insertEndpoint(tenant, endpoint)
    return endpoint
  })

/** `GET /chat/webhooks`: newest first. */
export const list = (query: { readonly limit: number; readonly cursor?: Endpoint.WebhookEndpointId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* WebhookRepo).listEndpoints(tenant, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Endpoint.WebhookEndpointId.schema, (e) => e.id)
  })

/** `GET /chat/webhooks/:id`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** `PATCH /chat/webhooks/:id`: re-enabling clears the reason; a caller's disabling records it. */
export const update = (
  id: string,
  patch: {
    readonly url?: string | undefined
    readonly events?: ReadonlyArray<string> | undefined
    readonly status?: Endpoint.EndpointStatus | undefined
  }
) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const endpoint = yield* lookup(tenant, id)
    if (patch.url !== undefined) yield* checkUrl(patch.url)
    const events = patch.events === undefined ? undefined : yield* checkEvents(patch.events)
    const updated = yield* (yield* WebhookRepo).updateEndpoint(tenant, endpoint.id, {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(events !== undefined ? { events } : {}),
      ...(patch.status !== undefined ? { status: patch.status, disabledReason: patch.status === "enabled" ? null : "disabled by the caller" } : {})
    })
    return yield* Id.orNotFound(RESOURCE, id)(updated)
  })

/** `DELETE /chat/webhooks/:id`: the endpoint and its delivery attempts. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* WebhookRepo
    yield* Id.lookup(Endpoint.WebhookEndpointId, RESOURCE, id, (endpointId) =>
      Effect.map(repo.deleteEndpoint(tenant, endpointId), (deleted) => (deleted ? Option.some(endpointId) : Option.none()))
    )
    return { id, deleted: true as const }
  })

/** `GET /chat/webhooks/:id/deliveries`: the endpoint's attempts, newest first. */
export const deliveries = (id: string, query: { readonly limit: number; readonly cursor?: Endpoint.DeliveryId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const endpoint = yield* lookup(tenant, id)
    const slice = yield* (yield* WebhookRepo).listAttempts(tenant, { endpointId: endpoint.id }, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Endpoint.DeliveryId.schema, (a) => a.id)
  })

/** `GET /chat/webhook-deliveries`: the attempts to every endpoint of the caller's tenant, newest first, filtered. */
export const allDeliveries = (query: Endpoint.AttemptFilter & { readonly limit: number; readonly cursor?: Endpoint.DeliveryId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const filter = { endpointId: query.endpointId, eventId: query.eventId, outcome: query.outcome }
    const slice = yield* (yield* WebhookRepo).listAttempts(tenant, filter, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Endpoint.DeliveryId.schema, (a) => a.id)
  })

/** `GET /chat/webhook-deliveries/:id`: one attempt to an endpoint of the caller's tenant. */
export const delivery = (id: string) =>
  Effect.flatMap(CurrentStore, ({ tenant }) =>
    Effect.flatMap(WebhookRepo, (repo) =>
      Id.lookup(Endpoint.DeliveryId, "webhook delivery", id, (deliveryId) => repo.findAttempt(tenant, deliveryId))
    )
  )

/**
 * Queues one delivery of `eventId` to `endpoint` through the normal path (`webhook.deliver`,
 * retried as any delivery), its first attempt recorded under the id answered. A disabled
 * endpoint refuses it (409 `invalid_state`): its deliveries would never run.
 */
const queueDelivery = (tenant: Tenant, endpoint: Endpoint.WebhookEndpoint, eventId: Endpoint.EventId, operation: string) =>
  Effect.gen(function* () {
    if (endpoint.status !== "enabled") return yield* Effect.fail(new Errors.InvalidState({ resource: RESOURCE, status: endpoint.status, operation }))
    const id = yield* Endpoint.DeliveryId.generate
    const payload = { eventId, endpointId: endpoint.id, deliveryId: id }
    yield* (yield* JobQueue).enqueue(Module.job(deliverJob, payload, { dedupeKey: `${deliverJob.kind}:${id}`, storeId: tenant.storeId }))
    return { id, eventId, endpointId: endpoint.id, status: "queued" as const }
  })

/** `POST /chat/webhooks/:id/test`: records a `webhook.test` event for this endpoint alone and delivers it, signed, as any event. */
export const sendTest = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const endpoint = yield* lookup(tenant, id)
    const event = yield* Endpoint.newEvent(tenant, Endpoint.TEST_EVENT_TYPE, {
      endpoint_id: endpoint.id,
      message: "A test event sent from Switchboard."
    })
    return yield* inTransaction(
      Effect.zipRight((yield* WebhookRepo).insertEvents(tenant, [event]), queueDelivery(tenant, endpoint, event.id, "send a test event to"))
    )
  })

/** `POST /chat/webhook-deliveries/:id/redeliver`: a new attempt of the same event (the same `webhook-id`) to the same endpoint. */
export const redeliver = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const attempt = yield* delivery(id)
    const endpoint = yield* lookup(tenant, attempt.endpointId)
    return yield* queueDelivery(tenant, endpoint, attempt.eventId, "redeliver to")
  })

/**
 * Records an event of `tenant` and queues one delivery per subscribed endpoint. Runs in the
 * caller's transaction, so an event is recorded (and delivered) exactly when the change it
 * reports commits. Nothing is recorded when no endpoint wants the type. Inside `batched`
 * (the inbox's batches), the events are written together when the batch's work is done.
 */
export const emit = EventBatch.emit

/** Runs `effect` with its emitted events written together at its end (see `EventBatch.ts`). */
export const batched = EventBatch.batched
