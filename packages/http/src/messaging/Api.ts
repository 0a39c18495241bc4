/**
 * Messaging routes: sending, listing (newest first; `status` and `to` filters) and reading messages, customers (who wrote, with their 24-hour
 * window), the opt-out list, and the sandbox customer (test keys only). Every route that
 * names a message or customer answers 404 `resource_not_found` for another store's id
 * exactly as for an id that does not exist.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Customer, InboundMessage, Message, OptOut } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"

export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(Endpoints.create("send", "/messages", Message.SendMessage, Message.SentMessage, [...ApiError.sendErrors]))
  .add(HttpApiEndpoint.get("list", "/messages").setUrlParams(Message.ListMessages).addSuccess(Message.MessagePage))
  .add(Endpoints.getOne("get", "/messages/:id", Message.MessageResource))
  .middleware(Authentication)
  .prefix("/chat") {}

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(Endpoints.list("list", "/customers", Customer.CustomerId.schema, {}, Customer.CustomerResource, "CustomerPage"))
  .add(Endpoints.getOne("get", "/customers/:id", Customer.CustomerResource))
  .middleware(Authentication)
  .prefix("/chat") {}

export class OptOutsGroup extends HttpApiGroup.make("optOuts")
  .add(Endpoints.list("list", "/opt-outs", OptOut.Position, {}, OptOut.OptOutResource, "OptOutPage"))
  .add(Endpoints.create("add", "/opt-outs", OptOut.AddOptOut, OptOut.Added, []))
  .add(
    HttpApiEndpoint.del("remove", "/opt-outs/:phone")
      .setPath(Schema.Struct({ phone: Schema.String }))
      .addSuccess(OptOut.Removed)
      .addError(ApiError.ResourceNotFound)
  )
  .middleware(Authentication)
  .prefix("/chat") {}

export class SandboxGroup extends HttpApiGroup.make("sandbox")
  .add(
    Endpoints.accepted("inboundMessage", "/sandbox/inbound-messages", InboundMessage.SandboxInbound, InboundMessage.SandboxAccepted, [
      ApiError.Forbidden,
      ApiError.OperatorUnavailable
    ])
  )
  .middleware(Authentication)
  .prefix("/chat") {}
