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
    return yield* Option.match(updated, {
      onNone: () => Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id })),
      onSome: Effect.succeed
    })
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
    const slice = yield* (yield* WebhookRepo).listAttempts(tenant, endpoint.id, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Endpoint.DeliveryId.schema, (a) => a.id)
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
