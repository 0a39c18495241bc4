/**
 * Delivering caller webhooks: one job per event and endpoint (`webhook.deliver`), each
 * attempt signed under the event's id as a stable `webhook-id`, retried for about three
 * days. The job calls the outside world, so it is not transactional: an attempt is recorded
 * whatever its outcome, and the job completes after it.
 */
import { Effect, Option, Schema } from "effect"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Telemetry from "../shared/Telemetry.js"
import * as Endpoint from "./WebhookEndpoint.js"
import { WebhookDeliveryRepo, WebhookRepo } from "./WebhookRepo.js"
import { WebhookTransport } from "./WebhookTransport.js"

/** Retry schedule of one delivery: about three days in all. */
export const RETRY_DELAYS_MS: ReadonlyArray<Time.Millis> = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 43_200_000, 43_200_000, 43_200_000, 43_200_000, 43_200_000
]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** Back-off before the next attempt of a delivery. */
export const retryDelayMs = (attempt: number): Time.Millis => RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]

/**
 * What a delivery job names: the event and the endpoint it goes to, and (for a test event or
 * a redelivery, whose id the route answered) the id its first attempt is recorded under.
 */
export const DeliverPayload = Schema.Struct({
  eventId: Endpoint.EventId.schema,
  endpointId: Endpoint.WebhookEndpointId.schema,
  deliveryId: Schema.optional(Endpoint.DeliveryId.schema)
})
export type DeliverPayload = typeof DeliverPayload.Type

/**
 * One delivery attempt. 2xx: done. 410: the endpoint is disabled. Otherwise the job fails
 * and the runner retries it on RETRY_DELAYS_MS. An endpoint or event gone meanwhile (or an
 * endpoint disabled) ends the job without an attempt.
 */
export const deliver = (payload: DeliverPayload, attempt: number) =>
  Effect.gen(function* () {
    const repo = yield* WebhookDeliveryRepo
    const endpoint = yield* repo.getEndpoint(payload.endpointId)
    const event = yield* repo.getEvent(payload.eventId)
    if (Option.isNone(endpoint) || Option.isNone(event)) return "gone"
    if (endpoint.value.status !== "enabled") return "endpoint disabled"
    const transport = yield* WebhookTransport
    const started = yield* Time.now
    const result = yield* Effect.either(
      transport.deliver({
        url: endpoint.value.url,
        messageId: event.value.id,
        timestamp: started,
        secret: endpoint.value.secret,
        payload: Endpoint.payloadOf(event.value)
      })
    )
    const statusCode = result._tag === "Right" ? result.right.status : null
    const error =
      result._tag === "Left" ? result.left.reason : statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null
    const finished = yield* Time.now
    yield* repo.recordAttempt({
      id: attempt === 1 && payload.deliveryId !== undefined ? payload.deliveryId : yield* Endpoint.DeliveryId.generate,
      endpointId: endpoint.value.id,
      eventId: event.value.id,
      attempt,
      statusCode,
      error,
      durationMs: finished - started,
      createdAt: finished
    })
    Telemetry.webhookDelivered(statusCode === 410 ? "gone" : error === null ? "delivered" : "failed")
    if (statusCode === 410) {
      const owner: Tenant = { storeId: endpoint.value.storeId, mode: endpoint.value.mode }
      yield* (yield* WebhookRepo).updateEndpoint(owner, endpoint.value.id, { status: "disabled", disabledReason: "the endpoint answered 410 Gone" })
      return "endpoint gone (410): disabled"
    }
    if (error !== null) return yield* Effect.fail(new Error(`delivery failed: ${error}`))
    return "delivered"
  })

/** The job kind of one delivery: an HTTP call, so not transactional; retried for about three days. */
export const deliverJob = Module.jobKind({
  kind: "webhook.deliver",
  payload: DeliverPayload,
  transactional: false,
  maxAttempts: MAX_ATTEMPTS,
  backoffMs: retryDelayMs,
  run: (payload, job) => deliver(payload, job.attempt)
})
