import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Customer, Message, Messaging, OptOut, Pagination, WebhookEndpoint } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const page = <A, I, R>(item: Schema.Schema<A, I, R>, identifier: string) =>
  Schema.Struct({ data: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) }).annotations({ identifier })
const ListParams = Schema.Struct({ limit: Pagination.Limit, cursor: Schema.optional(Schema.String) })
const IdPath = Schema.Struct({ id: Schema.String })

const SentMessage = Schema.extend(Message.MessageResource, Schema.Struct({})).annotations({ identifier: "SentMessage" })

export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/messages")
      .setPayload(Messaging.SendMessage)
      .addSuccess(SentMessage, { status: 201 })
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
      .addError(ApiError.OutsideCustomerWindow)
      .addError(ApiError.RecipientOptedOut)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(HttpApiEndpoint.get("get", "/messages/:id").setPath(IdPath).addSuccess(Message.MessageResource).addError(ApiError.ResourceNotFound))
  .middleware(Authentication)
  .prefix("/chat") {}

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(HttpApiEndpoint.get("list", "/customers").setUrlParams(ListParams).addSuccess(page(Customer.CustomerResource, "CustomerPage")))
  .add(HttpApiEndpoint.get("get", "/customers/:id").setPath(IdPath).addSuccess(Customer.CustomerResource).addError(ApiError.ResourceNotFound))
  .middleware(Authentication)
  .prefix("/chat") {}

export class OptOutsGroup extends HttpApiGroup.make("optOuts")
  .add(HttpApiEndpoint.get("list", "/opt-outs").setUrlParams(ListParams).addSuccess(page(OptOut.OptOutResource, "OptOutPage")))
  .add(
    HttpApiEndpoint.post("add", "/opt-outs")
      .setPayload(Schema.Struct({ phone: Schema.String }).annotations(strict))
      .addSuccess(Schema.Struct({ phone: Schema.String, opted_out: Schema.Literal(true), created: Schema.Boolean }), { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("remove", "/opt-outs/:phone")
      .setPath(Schema.Struct({ phone: Schema.String }))
      .addSuccess(Schema.Struct({ phone: Schema.String, opted_out: Schema.Literal(false) }))
      .addError(ApiError.ResourceNotFound)
  )
  .middleware(Authentication)
  .prefix("/chat") {}

const CreatedEndpoint = Schema.extend(WebhookEndpoint.EndpointResource, Schema.Struct({ secret: Schema.String })).annotations({
  identifier: "CreatedWebhookEndpoint"
})

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/webhooks")
      .setPayload(Schema.Struct({ url: Schema.String, events: Schema.Array(WebhookEndpoint.EventType) }).annotations(strict))
      .addSuccess(CreatedEndpoint, { status: 201 })
  )
  .add(HttpApiEndpoint.get("list", "/webhooks").setUrlParams(ListParams).addSuccess(page(WebhookEndpoint.EndpointResource, "WebhookEndpointPage")))
  .add(HttpApiEndpoint.get("get", "/webhooks/:id").setPath(IdPath).addSuccess(WebhookEndpoint.EndpointResource).addError(ApiError.ResourceNotFound))
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id")
      .setPath(IdPath)
      .setPayload(
        Schema.Struct({
          url: Schema.optional(Schema.String),
          events: Schema.optional(Schema.Array(WebhookEndpoint.EventType)),
          status: Schema.optional(WebhookEndpoint.EndpointStatus)
        }).annotations(strict)
      )
      .addSuccess(WebhookEndpoint.EndpointResource)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.del("remove", "/webhooks/:id")
      .setPath(IdPath)
      .addSuccess(Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }))
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries")
      .setPath(IdPath)
      .setUrlParams(ListParams)
      .addSuccess(page(WebhookEndpoint.DeliveryResource, "WebhookDeliveryPage"))
      .addError(ApiError.ResourceNotFound)
  )
  .middleware(Authentication)
  .prefix("/chat") {}

export class SandboxGroup extends HttpApiGroup.make("sandbox")
  .add(
    HttpApiEndpoint.post("inboundMessage", "/sandbox/inbound-messages")
      .setPayload(Schema.Struct({ from: Schema.String, text: Schema.String, profile_name: Schema.optional(Schema.String) }).annotations(strict))
      .addSuccess(Schema.Struct({ accepted: Schema.Literal(true), operator_message_id: Schema.String }), { status: 202 })
      .addError(ApiError.Forbidden)
      .addError(ApiError.OperatorUnavailable)
  )
  .middleware(Authentication)
  .prefix("/chat") {}
