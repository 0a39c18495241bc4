/** The caller webhook handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { Webhooks } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { WebhooksGroup } from "./Api.js"

export const WebhooksLive = HttpApiBuilder.group(apiOf(WebhooksGroup), "webhooks", (h) =>
  h
    .handle("create", ({ payload }) => Webhooks.create(payload))
    .handle("list", ({ urlParams }) => Webhooks.list(urlParams))
    .handle("get", ({ path }) => Webhooks.get(path.id))
    .handle("update", ({ path, payload }) => Webhooks.update(path.id, payload))
    .handle("remove", ({ path }) => Webhooks.remove(path.id))
    .handle("deliveries", ({ path, urlParams }) => Webhooks.deliveries(path.id, urlParams))
    .handle("test", ({ path }) => Webhooks.sendTest(path.id))
)
