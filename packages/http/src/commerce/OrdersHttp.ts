/** The order handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { Orders } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { OrdersGroup } from "./OrdersApi.js"

export const OrdersLive = HttpApiBuilder.group(apiOf(OrdersGroup), "orders", (h) =>
  h
    .handle("list", ({ urlParams }) => Orders.list(urlParams))
    .handle("get", ({ path }) => Orders.get(path.id))
    .handle("items", ({ path }) => Orders.items(path.id))
    .handle("modifyItems", ({ path, payload }) => Orders.modifyItems(path.id, payload))
    .handle("payments", ({ path }) => Orders.payments(path.id))
    .handle("acknowledge", ({ path, payload }) => Orders.acknowledge(path.id, payload))
    .handle("acknowledgeBatch", ({ payload }) => Orders.acknowledgeBatch(payload))
    .handle("sandbox", ({ payload }) => Orders.sandbox(payload))
)
