/**
 * Caller webhook routes: register an endpoint (its secret shown once), list, read, change,
 * delete, and list its delivery attempts. An endpoint id of another store or mode answers
 * 404 `resource_not_found` exactly as an unknown one.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Modules, WebhookEndpoint } from "@switchboard/domain"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

/** The example answer of a test event or a redelivery. */
export const queued = {
  id: "dlv_01M859WZ6J2R8T4V6X8Z0B2D4G",
  event_id: "evt_01M859WZ5H1Q7S3U5W7Y9A1C3E",
  endpoint_id: "whe_01M859WX3D5Q6Y2V0K8E7B1C4N",
  status: "queued"
}

/** `POST path` queuing a delivery for the endpoint or delivery its path names (a test event, a redelivery): 202 and the queued delivery; 404, and 409 `invalid_state` for a disabled endpoint. */
export const queueDelivery = <const Name extends string>(name: Name, path: HttpApiEndpoint.PathSegment) =>
  HttpApiEndpoint.post(name, path)
    .setPath(IdPath)
    .addSuccess(WebhookEndpoint.QueuedDelivery, { status: 202 })
    .addError(ApiError.ResourceNotFound)
    .addError(ApiError.InvalidState)

/** The caller event types a registration may name, from the domain's list of modules (anything else: 400 `validation_failed`). */
const EventType = Modules.CallerEventType

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setPayload(WebhookEndpoint.CreateEndpoint(EventType))
      .addSuccess(WebhookEndpoint.CreatedEndpoint, { status: 201 })
  )
  .add(Endpoints.list("list", "/webhooks", WebhookEndpoint.WebhookEndpointId.schema, {}, WebhookEndpoint.EndpointResource, "WebhookEndpointPage"))
  .add(Endpoints.getOne("get", "/webhooks/:id", WebhookEndpoint.EndpointResource))
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id")
      .setPath(IdPath)
      .setPayload(WebhookEndpoint.UpdateEndpoint(EventType))
      .addSuccess(WebhookEndpoint.EndpointResource)
      .addError(ApiError.ResourceNotFound)
  )
  .add(Endpoints.remove("remove", "/webhooks/:id", WebhookEndpoint.Deleted, [ApiError.ResourceNotFound]))
  .add(
    Endpoints.listOf(
      "deliveries",
      "/webhooks/:id/deliveries",
      WebhookEndpoint.DeliveryId.schema,
      {},
      WebhookEndpoint.DeliveryResource,
      "WebhookDeliveryPage"
    )
  )
  .add(queueDelivery("test", "/webhooks/:id/test"))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    operations: {
      "webhooks.test": {
        summary: "Send a test event to a webhook endpoint",
        description:
          "Records a `webhook.test` event for this endpoint alone and delivers it signed, through the normal delivery path (retried as any delivery). The answer's `id` is the id its first attempt is recorded under (`GET /chat/webhook-deliveries/{id}`). A disabled endpoint answers 409 `invalid_state`.",
        response: queued
      }
    }
  }) {}
