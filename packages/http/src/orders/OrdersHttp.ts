/** The order handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder } from "@effect/platform"
import { OrderPayments, Orders } from "@switchboard/domain"
import * as FastLane from "../FastLane.js"
import { apiOf } from "../internal/Handlers.js"
import { OrdersGroup } from "./OrdersApi.js"

const list = ({ urlParams }: { readonly urlParams: Parameters<typeof Orders.list>[0] }) => Orders.list(urlParams)

/** The routes the fast lane answers (`FastLane.ts`). */
export const OrdersHot = [FastLane.get(OrdersGroup, "list", list)]

export const OrdersLive = HttpApiBuilder.group(apiOf(OrdersGroup), "orders", (h) =>
  h
    .handle("list", list)
    .handle("get", ({ path }) => Orders.get(path.id))
    .handle("items", ({ path, urlParams }) => Orders.items(path.id, urlParams))
    .handle("modifyItems", ({ path, payload }) => Orders.modifyItems(path.id, payload))
    .handle("payments", ({ path, urlParams }) => Orders.payments(path.id, urlParams))
    .handle("acknowledge", ({ path, payload }) => Orders.acknowledge(path.id, payload))
    .handle("acknowledgeBatch", ({ payload }) => Orders.acknowledgeBatch(payload))
    .handle("paymentRequest", ({ path }) => OrderPayments.requestPayment(path.id))
    .handle("sandboxPayment", ({ payload }) => OrderPayments.sandboxPayment(payload))
    .handle("sandbox", ({ payload }) => Orders.sandbox(payload))
)
