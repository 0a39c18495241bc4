/**
 * Caller webhook deliveries across the tenant's endpoints: list them (filtered by endpoint,
 * event or outcome), read one, and send one again. A delivery id of another store or mode
 * answers 404 `resource_not_found` exactly as an unknown one.
 */
import { HttpApiGroup } from "@effect/platform"
import { WebhookEndpoint } from "@switchboard/domain"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"
import { deliveryExample } from "../openapi/examples.js"
import { queueDelivery, queued } from "./Api.js"

export class WebhookDeliveriesGroup extends HttpApiGroup.make("webhookDeliveries")
  .add(
    Endpoints.list(
      "list",
      "/webhook-deliveries",
      WebhookEndpoint.DeliveryId.schema,
      WebhookEndpoint.DeliveryFilters,
      WebhookEndpoint.DeliveryResource,
      "WebhookDeliveryPage"
    )
  )
  .add(Endpoints.getOne("get", "/webhook-deliveries/:id", WebhookEndpoint.DeliveryResource))
  .add(queueDelivery("redeliver", "/webhook-deliveries/:id/redeliver"))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { webhookDeliveries: "Delivery attempts to the caller's webhook endpoints, and redelivery" },
    ids: { "webhook-deliveries": deliveryExample.id },
    operations: {
      "webhookDeliveries.list": {
        summary: "List webhook delivery attempts",
        description:
          "Every attempt to the store's endpoints, newest first. Filter by `endpoint_id`, `event_id` or `outcome` (`succeeded`: a 2xx answer; `failed`: any other answer or none).",
        response: { data: [deliveryExample], next_cursor: null }
      },
      "webhookDeliveries.get": { summary: "Get a webhook delivery attempt", response: deliveryExample },
      "webhookDeliveries.redeliver": {
        summary: "Send a delivery again",
        description:
          "Queues a new attempt of the same event (the same `webhook-id`) to the same endpoint, through the normal delivery path. The answer's `id` is the id the new attempt is recorded under. A disabled endpoint answers 409 `invalid_state`.",
        response: queued
      }
    }
  }) {}
