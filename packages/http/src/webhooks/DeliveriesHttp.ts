/** The webhook delivery handlers: each route is its use case. */
import { HttpApiBuilder } from "@effect/platform"
import { Webhooks } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { WebhookDeliveriesGroup } from "./DeliveriesApi.js"

export const WebhookDeliveriesLive = HttpApiBuilder.group(apiOf(WebhookDeliveriesGroup), "webhookDeliveries", (h) =>
  h
    .handle("list", ({ urlParams }) => Webhooks.allDeliveries(urlParams))
    .handle("get", ({ path }) => Webhooks.delivery(path.id))
    .handle("redeliver", ({ path }) => Webhooks.redeliver(path.id))
)
