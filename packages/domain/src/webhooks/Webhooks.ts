/**
 * Caller webhook use cases: endpoint registration and management, recording events, and
 * delivering them (one job per event and endpoint, retried for about three days under the
 * event's id as a stable `webhook-id`).
 */
import { Effect, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { JobQueue } from "../jobs/JobQueue.js"
import type { Scope } from "../messaging/MessagingRepo.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentTenant } from "../shared/Tenant.js"
import * as Endpoint from "./WebhookEndpoint.js"
import { WebhookRepo } from "./WebhookRepo.js"
import { WebhookTransport } from "./WebhookTransport.js"

export const DELIVER_JOB = "webhook.deliver"

/** Retry schedule of one delivery: about three days in all. */
export const RETRY_DELAYS_MS: ReadonlyArray<number> = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 43_200_000, 43_200_000, 43_200_000, 43_200_000, 43_200_000
]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

const scopeOf = Effect.map(CurrentTenant, (t): Scope => ({ storeId: t.storeId, mode: t.mode }))

const notFound = (id: string) => new Errors.ResourceNotFound({ resource: "webhook endpoint", id })

const checkUrl = (url: string) =>
  Effect.flatMap(WebhookTransport, (t) => t.checkUrl(url)).pipe(
    Effect.mapError((e) => Errors.ValidationFailed.of("url", e.reason))
  )

const checkEvents = (events: ReadonlyArray<Endpoint.EventType>) =>
  events.length === 0 ? Effect.fail(Errors.ValidationFailed.of("events", "must name at least one event type")) : Effect.succeed([...new Set(events)])

export const create = (input: { readonly url: string; readonly events: ReadonlyArray<Endpoint.EventType> }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const events = yield* checkEvents(input.events)
    yield* checkUrl(input.url)
    const now = new Date()
    const endpoint: Endpoint.WebhookEndpoint = {
      id: Id.make("whe"),
      storeId: scope.storeId,
      mode: scope.mode,
      url: input.url,
      events,
      secret: Endpoint.newSecret(),
      status: "enabled",
      disabledReason: null,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* WebhookRepo).insertEndpoint(endpoint)
    return { ...Endpoint.toResource(endpoint), secret: endpoint.secret }
  })

export const list = (query: { readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const after = yield* Pagination.afterCursor(query.cursor)
    const slice = yield* (yield* WebhookRepo).listEndpoints(scope, { limit: query.limit, after })
    return Pagination.toPage(slice, (e) => e.id, Endpoint.toResource)
  })

export const get = (id: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* WebhookRepo).findEndpoint(yield* scopeOf, id)
    return Endpoint.toResource(yield* Option.match(found, { onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
  })

export const update = (
  id: string,
  patch: { readonly url?: string | undefined; readonly events?: ReadonlyArray<Endpoint.EventType> | undefined; readonly status?: Endpoint.EndpointStatus | undefined }
) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const repo = yield* WebhookRepo
    if (Option.isNone(yield* repo.findEndpoint(scope, id))) return yield* Effect.fail(notFound(id))
    if (patch.url !== undefined) yield* checkUrl(patch.url)
    const events = patch.events === undefined ? undefined : yield* checkEvents(patch.events)
    const updated = yield* repo.updateEndpoint(scope, id, {
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(events !== undefined ? { events } : {}),
      ...(patch.status !== undefined ? { status: patch.status, disabledReason: patch.status === "enabled" ? null : "disabled by the caller" } : {})
    })
    return Endpoint.toResource(yield* Option.match(updated, { onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
  })

export const remove = (id: string) =>
  Effect.gen(function* () {
    const deleted = yield* (yield* WebhookRepo).deleteEndpoint(yield* scopeOf, id)
    if (!deleted) return yield* Effect.fail(notFound(id))
    return { id, deleted: true as const }
  })

export const deliveries = (id: string, query: { readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const repo = yield* WebhookRepo
    if (Option.isNone(yield* repo.findEndpoint(scope, id))) return yield* Effect.fail(notFound(id))
    const after = yield* Pagination.afterCursor(query.cursor)
    const slice = yield* repo.listAttempts(scope, id, { limit: query.limit, after })
    return Pagination.toPage(slice, (a) => a.id, (a) => ({
      id: a.id,
      event_id: a.eventId,
      event_type: a.eventType,
      attempt: a.attempt,
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
      created_at: a.createdAt.toISOString()
    }))
  })

/**
 * Records an event and queues one delivery per subscribed endpoint. Runs in the caller's
 * transaction, so an event is recorded (and delivered) exactly when the change it reports
 * commits.
 */
export const emit = (scope: Scope, type: Endpoint.EventType, data: unknown) =>
  Effect.gen(function* () {
    const repo = yield* WebhookRepo
    const endpoints = yield* repo.subscribers(scope, type)
    if (endpoints.length === 0) return
    const event: Endpoint.Event = { id: Id.make("evt"), storeId: scope.storeId, mode: scope.mode, type, data, createdAt: new Date() }
    yield* repo.insertEvent(event)
    const queue = yield* JobQueue
    for (const endpoint of endpoints) {
      yield* queue.enqueue({
        kind: DELIVER_JOB,
        payload: { eventId: event.id, endpointId: endpoint.id },
        dedupeKey: `${DELIVER_JOB}:${event.id}:${endpoint.id}`
      })
    }
  })

/**
 * One delivery attempt (the job `webhook.deliver`). 2xx: done. 410: the endpoint is
 * disabled. Otherwise the job fails and the runner retries it on RETRY_DELAYS_MS.
 */
export const deliver = (payload: { readonly eventId: string; readonly endpointId: string }, attempt: number) =>
  Effect.gen(function* () {
    const repo = yield* WebhookRepo
    const endpoint = yield* repo.getEndpoint(payload.endpointId)
    const event = yield* repo.getEvent(payload.eventId)
    if (Option.isNone(endpoint) || Option.isNone(event)) return "gone"
    if (endpoint.value.status !== "enabled") return "endpoint disabled"
    const transport = yield* WebhookTransport
    const started = Date.now()
    const result = yield* Effect.either(
      transport.deliver({
        url: endpoint.value.url,
        messageId: event.value.id,
        timestamp: new Date(),
        secret: endpoint.value.secret,
        payload: Endpoint.payloadOf(event.value)
      })
    )
    const statusCode = result._tag === "Right" ? result.right.status : null
    const error = result._tag === "Left" ? result.left.reason : statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null
    yield* repo.recordAttempt({
      id: Id.make("dlv"),
      endpointId: endpoint.value.id,
      eventId: event.value.id,
      attempt,
      statusCode,
      error,
      durationMs: Date.now() - started,
      createdAt: new Date()
    })
    if (statusCode === 410) {
      yield* repo.updateEndpoint(endpoint.value, endpoint.value.id, { status: "disabled", disabledReason: "the endpoint answered 410 Gone" })
      return "endpoint gone (410): disabled"
    }
    if (error !== null) return yield* Effect.fail(new Error(`delivery failed: ${error}`))
    return "delivered"
  })

/** Back-off before the next attempt of a delivery. */
export const retryDelayMs = (attempt: number): number => RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]
