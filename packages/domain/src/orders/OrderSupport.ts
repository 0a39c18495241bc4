/**
 * What the order use cases share: finding an order of the caller's tenant (404 for another
 * tenant's, as for a missing one), holding it for a change, and naming its items in requests.
 */
import { Effect, Either } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import type { Tenant } from "../shared/Tenant.js"
import type * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Order from "./Order.js"
import * as OrderMoney from "./OrderMoney.js"
import { OrderRepo } from "./OrderRepo.js"

export const RESOURCE = "order"

/** The tenant's order `id`, or 404. */
export const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(OrderRepo, (repo) => Id.lookup(Order.OrderId, RESOURCE, id, (orderId) => repo.find(tenant, orderId)))

/** The tenant's order `id`, held until the current transaction ends (call inside one), or 404. */
export const lock = (tenant: Tenant, id: string) =>
  Effect.flatMap(OrderRepo, (repo) => Id.lookup(Order.OrderId, RESOURCE, id, (orderId) => repo.lock(tenant, orderId)))

/** `operation` on the order's status, or `InvalidState`. */
export const allow = (order: Order.Order, operation: Order.Operation) =>
  Either.match(Order.transition(order.status, operation), { onLeft: (e) => Effect.fail(e), onRight: Effect.succeed })

/** An item named by `item_id` or `retailer_id` (one of them), or a 400 naming `path`. */
export const resolveItem = (
  order: Order.Order,
  ref: { readonly item_id?: string | undefined; readonly retailer_id?: string | undefined },
  path: string
): Effect.Effect<Order.OrderItem, Errors.ValidationFailed> => {
  if ((ref.item_id === undefined) === (ref.retailer_id === undefined)) {
    return Effect.fail(Errors.ValidationFailed.of(path, "must name the item by exactly one of item_id or retailer_id"))
  }
  const found = ref.item_id !== undefined ? order.items.find((i) => i.id === ref.item_id) : order.items.find((i) => i.retailerId === ref.retailer_id)
  return found === undefined
    ? Effect.fail(
        Errors.ValidationFailed.of(ref.item_id !== undefined ? `${path}.item_id` : `${path}.retailer_id`, `is not an item of order ${order.id}`)
      )
    : Effect.succeed(found)
}

/** The order with its items replaced: total, payment status and status follow. */
export const withItems = (order: Order.Order, items: ReadonlyArray<Order.OrderItem>, now: Time.Millis): Order.Order => {
  const next = { ...order, items, total: OrderMoney.totalOf(items), updatedAt: now }
  return { ...next, status: Order.settle(next) }
}

/** The order with `refunded` grown by `amount`: payment status follows. */
export const withRefund = (order: Order.Order, amount: number, now: Time.Millis): Order.Order => {
  const refunded = order.refunded + amount
  return { ...order, refunded, paymentStatus: OrderMoney.paymentStatus({ captured: order.captured, refunded }), updatedAt: now }
}

/** The caller event's view of an order. */
export const eventData = (order: Order.Order) => ({
  order_id: order.id,
  status: order.status,
  payment_status: order.paymentStatus,
  currency: order.currency,
  total: order.total,
  amount_captured: order.captured,
  amount_refunded: order.refunded
})

/** `order.completed` / `order.cancelled` when a change settled the order. */
export const emitSettled = (tenant: Tenant, before: Order.Order, after: Order.Order) =>
  before.status === after.status
    ? Effect.void
    : after.status === "completed"
      ? Webhooks.emit(tenant, "order.completed", eventData(after))
      : after.status === "cancelled"
        ? Webhooks.emit(tenant, "order.cancelled", eventData(after))
        : Effect.void
