import { HttpApiBuilder } from "@effect/platform"
import { Messaging, Webhooks } from "@switchboard/domain"
import { SwitchboardApi } from "../Api.js"

export const MessagesLive = HttpApiBuilder.group(SwitchboardApi, "messages", (h) =>
  h.handle("send", ({ payload }) => Messaging.send(payload)).handle("get", ({ path }) => Messaging.getMessage(path.id))
)

export const CustomersLive = HttpApiBuilder.group(SwitchboardApi, "customers", (h) =>
  h.handle("list", ({ urlParams }) => Messaging.listCustomers(urlParams)).handle("get", ({ path }) => Messaging.getCustomer(path.id))
)

export const OptOutsLive = HttpApiBuilder.group(SwitchboardApi, "optOuts", (h) =>
  h
    .handle("list", ({ urlParams }) => Messaging.listOptOuts(urlParams))
    .handle("add", ({ payload }) => Messaging.addOptOut(payload))
    .handle("remove", ({ path }) => Messaging.removeOptOut(decodeURIComponent(path.phone)))
)

export const WebhooksLive = HttpApiBuilder.group(SwitchboardApi, "webhooks", (h) =>
  h
    .handle("create", ({ payload }) => Webhooks.create(payload))
    .handle("list", ({ urlParams }) => Webhooks.list(urlParams))
    .handle("get", ({ path }) => Webhooks.get(path.id))
    .handle("update", ({ path, payload }) => Webhooks.update(path.id, payload))
    .handle("remove", ({ path }) => Webhooks.remove(path.id))
    .handle("deliveries", ({ path, urlParams }) => Webhooks.deliveries(path.id, urlParams))
)

export const SandboxLive = HttpApiBuilder.group(SwitchboardApi, "sandbox", (h) =>
  h.handle("inboundMessage", ({ payload }) => Messaging.sandboxInbound(payload))
)
