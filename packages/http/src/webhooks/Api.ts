/**
 * Caller webhook routes: register an endpoint (its secret shown once), list, read, change,
 * delete, and list its delivery attempts. An endpoint id of another store or mode answers
 * 404 `resource_not_found` exactly as an unknown one.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Modules, Pagination, WebhookEndpoint } from "@switchboard/domain"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import { IdPath } from "../internal/Path.js"

/** The caller event types a registration may name, from the domain's list of modules (anything else: 400 `validation_failed`). */
const EventType = Modules.CallerEventType

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setPayload(WebhookEndpoint.CreateEndpoint(EventType))
      .addSuccess(WebhookEndpoint.CreatedEndpoint, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks")
      .setUrlParams(Pagination.ListParams(WebhookEndpoint.WebhookEndpointId.schema, {}))
      .addSuccess(Pagination.PageOf(WebhookEndpoint.EndpointResource, "WebhookEndpointPage"))
  )
  .add(HttpApiEndpoint.get("get", "/webhooks/:id").setPath(IdPath).addSuccess(WebhookEndpoint.EndpointResource).addError(ApiError.ResourceNotFound))
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id")
      .setPath(IdPath)
      .setPayload(WebhookEndpoint.UpdateEndpoint(EventType))
      .addSuccess(WebhookEndpoint.EndpointResource)
      .addError(ApiError.ResourceNotFound)
  )
  .add(HttpApiEndpoint.del("remove", "/webhooks/:id").setPath(IdPath).addSuccess(WebhookEndpoint.Deleted).addError(ApiError.ResourceNotFound))
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries")
      .setPath(IdPath)
      .setUrlParams(Pagination.ListParams(WebhookEndpoint.DeliveryId.schema, {}))
      .addSuccess(Pagination.PageOf(WebhookEndpoint.DeliveryResource, "WebhookDeliveryPage"))
      .addError(ApiError.ResourceNotFound)
  )
  .middleware(Authentication)
  .prefix("/chat") {}
