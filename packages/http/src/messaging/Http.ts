/** The messaging handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { MessageSending, Messaging } from "@switchboard/domain"
import * as FastLane from "../FastLane.js"
import { apiOf } from "../internal/Handlers.js"
import { MessagesGroup, CustomersGroup, OptOutsGroup, SandboxGroup } from "./Api.js"

const listMessages = ({ urlParams }: { readonly urlParams: Parameters<typeof Messaging.listMessages>[0] }) => Messaging.listMessages(urlParams)

/** The routes the fast lane answers (`FastLane.ts`). */
export const MessagesHot = [FastLane.get(MessagesGroup, "list", listMessages)]

export const MessagesLive = HttpApiBuilder.group(apiOf(MessagesGroup), "messages", (h) =>
  h
    .handle("send", ({ payload }) => MessageSending.send(payload))
    .handle("list", listMessages)
    .handle("get", ({ path }) => Messaging.getMessage(path.id))
)

export const CustomersLive = HttpApiBuilder.group(apiOf(CustomersGroup), "customers", (h) =>
  h.handle("list", ({ urlParams }) => Messaging.listCustomers(urlParams)).handle("get", ({ path }) => Messaging.getCustomer(path.id))
)

export const OptOutsLive = HttpApiBuilder.group(apiOf(OptOutsGroup), "optOuts", (h) =>
  h
    .handle("list", ({ urlParams }) => Messaging.listOptOuts(urlParams))
    .handle("add", ({ payload }) => Messaging.addOptOut(payload))
    .handle("remove", ({ path }) => Messaging.removeOptOut(path.phone))
)

export const SandboxLive = HttpApiBuilder.group(apiOf(SandboxGroup), "sandbox", (h) =>
  h.handle("inboundMessage", ({ payload }) => Messaging.sandboxInbound(payload))
)
