/**
 * Order routes (spec §4.3): list, read, items, payments, acknowledge (one or a batch), items
 * modify, and the sandbox's cart. Each takes the caller's tenant from `CurrentStore`; an
 * order id of another tenant answers 404 exactly as a missing one.
 *
 * Acknowledgement is idempotent by nature: acknowledging an order that is already
 * acknowledged answers the order as it is, with or without a key. The body's optional
 * `idempotency_key` is the request's idempotency key, handled by the HTTP layer exactly as
 * the `Idempotency-Key` header (a replay answers the first answer; the same key with another
 * body is 422 `idempotency_key_reused`). The customer hears of changes through
 * `OrderUpdates.ts`, after the change committed: no operator call runs inside a transaction.
 */
import { Duration, Effect, Option, Schedule } from "effect"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import * as Errors from "../shared/Errors.js"
import type * as Id from "../shared/Id.js"
import { exponent } from "../shared/Money.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { CatalogId } from "../commerce/Catalog.js"
import { CatalogRepo } from "../commerce/CatalogRepo.js"
import * as Order from "./Order.js"
import * as OrderMoney from "./OrderMoney.js"
import { PaymentId, RefundId } from "./OrderRecord.js"
import { OrderRecordRepo, OrderRepo } from "./OrderRepo.js"
import { allow, emitSettled, eventData, lock, lookup, resolveItem, withItems, withRefund } from "./OrderSupport.js"
import * as OrderUpdates from "./OrderUpdates.js"
import { ProductRepo } from "../commerce/ProductRepo.js"

/** `GET /chat/orders`: newest first, by `status`, `payment_status` and a `created` range. */
export const list = (query: {
  readonly limit: number
  readonly cursor?: Order.OrderId | undefined
  readonly status?: Order.Status | undefined
  readonly payment_status?: Order.PaymentStatus | undefined
  readonly created_after?: number | undefined
  readonly created_before?: number | undefined
}) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* OrderRepo).list(
      tenant,
      { status: query.status, paymentStatus: query.payment_status, createdFrom: query.created_after, createdTo: query.created_before },
      { limit: query.limit, after: query.cursor }
    )
    return Pagination.pageOf(slice, Order.OrderId.schema, (o) => o.id)
  })

/** `GET /chat/orders/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** The query of a bounded list of one order (its items, its payments): `limit` and the cursor's position. */
export interface OrderListQuery<P> {
  readonly limit: number
  readonly cursor?: P | undefined
}

/** `GET /chat/orders/{id}/items`: a page of the items, in the order's order (their ids ascend). */
export const items = (id: string, query: OrderListQuery<Order.OrderItemId>) =>
  Effect.map(get(id), (order) => Pagination.pageOfAll(order.items, query, Order.OrderItemId.schema, (item) => item.id))

/** `GET /chat/orders/{id}/payments`: a page of the payments, oldest first. */
export const payments = (id: string, query: OrderListQuery<Id.Of<typeof PaymentId>>) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const order = yield* lookup(tenant, id)
    const all = yield* (yield* OrderRecordRepo).all(tenant, "payment", order.id)
    return Pagination.pageOfAll(all, query, PaymentId.schema, (payment) => payment.id)
  })

/** Acknowledges the held order: `pending` → `in_progress`, or the refusal. */
const acknowledgeHeld = (tenant: Tenant, order: Order.Order, now: Time.Millis) =>
  Effect.gen(function* () {
    const status = yield* allow(order, "acknowledge")
    const acknowledged: Order.Order = { ...order, status, acknowledgedAt: now, updatedAt: now }
    yield* (yield* OrderRepo).save(tenant, acknowledged)
    yield* Webhooks.emit(tenant, "order.acknowledged", eventData(acknowledged))
    return acknowledged
  })

/**
 * `POST /chat/orders/{id}/acknowledge`: the order in progress; an acknowledged order as it
 * is. Once committed, the customer is told (`processing`, `OrderUpdates.ts`); the answer is
 * the order with that update recorded.
 */
export const acknowledge = (id: string, _input: Order.Acknowledge) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const order = yield* lookup(tenant, id)
    yield* OrderUpdates.changeAndTell(tenant, acknowledgeOne(tenant, order.id))
    return yield* lookup(tenant, order.id)
  })

/** Acknowledges the order `id` (held), as a change the customer hears of; an acknowledged order as it is. */
const acknowledgeOne = (tenant: Tenant, id: string) =>
  Effect.gen(function* () {
    const line = (result: "acknowledged" | "already_acknowledged", status: Order.Status) => ({ id, result, status })
    const held = yield* lock(tenant, id)
    if (held.acknowledgedAt !== null) return { result: line("already_acknowledged", held.status) } as OrderUpdates.Change<ReturnType<typeof line>>
    const after = yield* acknowledgeHeld(tenant, held, yield* Time.now)
    return { result: line("acknowledged", after.status), change: { before: held, after, shipped: false } }
  })

/** `POST /chat/orders/acknowledge-batch`: one result per order, in the order asked. */
export const acknowledgeBatch = (input: Order.AcknowledgeBatch) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const one = (id: string) =>
      OrderUpdates.changeAndTell(tenant, acknowledgeOne(tenant, id)).pipe(
        Effect.catchTags({
          ResourceNotFound: () => Effect.succeed({ id, result: "not_found" as const }),
          InvalidState: (e) => Effect.succeed({ id, result: "invalid_state" as const, status: e.status as Order.Status })
        })
      )
    return yield* Effect.map(
      Effect.forEach(input.orders, (o) => one(o.id)),
      (data): Order.AcknowledgeBatchResult => ({ data })
    )
  })

/**
 * `PATCH /chat/orders/{id}/items`: lowers quantities (0 removes an item) of what has not
 * shipped. A paid reduction is refunded as a cancellation's would be. An increase, or a
 * quantity below what already shipped or was cancelled, is a 400 that says why.
 */
export const modifyItems = (id: string, input: Order.ModifyItems) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const changed = yield* OrderUpdates.changeAndTell(
      tenant,
      Effect.gen(function* () {
        const order = yield* lock(tenant, id)
        yield* allow(order, "modify items")
        const now = yield* Time.now
        const quantities = new Map<string, number>()
        for (const [i, change] of input.items.entries()) {
          const item = yield* resolveItem(order, change, `items[${i}]`)
          const path = `items[${i}].quantity`
          if (quantities.has(item.id)) return yield* Errors.ValidationFailed.of(`items[${i}]`, "names an item a second time")
          if (change.quantity > item.quantity) {
            return yield* Errors.ValidationFailed.of(
              path,
              `can only lower a quantity: ${item.retailerId} has ${item.quantity}; an increase needs a new order`
            )
          }
          if (change.quantity < item.shipped + item.cancelled) {
            return yield* Errors.ValidationFailed.of(
              path,
              `must be at least ${item.shipped + item.cancelled}: that much of ${item.retailerId} already shipped or was cancelled`
            )
          }
          quantities.set(item.id, change.quantity)
        }
        const reduced = order.items.reduce((sum, i) => sum + (i.quantity - (quantities.get(i.id) ?? i.quantity)) * i.unitPrice, 0)
        let next = withItems(
          order,
          order.items.map((i) => ({ ...i, quantity: quantities.get(i.id) ?? i.quantity })),
          now
        )
        const refund = OrderMoney.automaticRefund(order, reduced)
        if (refund > 0) {
          yield* (yield* OrderRecordRepo).insert(
            tenant,
            "refund",
            {
              id: yield* RefundId.generate,
              orderId: order.id,
              amount: refund,
              currency: order.currency,
              reasonCode: "REFUND_REASON_OTHER",
              reasonText: "items modified",
              items: [],
              shipping: 0,
              returnId: null,
              cancellationId: null,
              idempotencyKey: null,
              status: "completed",
              channel: "external",
              createdAt: now,
              updatedAt: now
            },
            null
          )
          next = withRefund(next, refund, now)
        }
        yield* (yield* OrderRepo).save(tenant, next)
        if (refund > 0) yield* Webhooks.emit(tenant, "order.refunded", { ...eventData(next), amount: refund })
        yield* emitSettled(tenant, order, next)
        return { result: next, change: { before: order, after: next, shipped: false } }
      })
    )
    return yield* lookup(tenant, changed.id)
  })

// ---------------------------------------------------------------------------------------
// sandbox

/** How long the sandbox route waits for the cart to become an order (the worker polls every 100 ms). */
export const SANDBOX_APPLY_TIMEOUT = Duration.seconds(10)

/**
 * `POST /chat/sandbox/orders` (test keys only): the emulator sends the customer's cart of
 * the tenant's catalog at the catalog's prices. A cart is not paid by itself, as on the real
 * platform: payment follows a payment request (`OrderPayments.ts`). Answers once the order
 * exists (`order_id` null only when it was not applied in time). `catalog_id` is our
 * catalog's id or its operator id.
 */
export const sandbox = (input: Order.SandboxOrder) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const phone = Phone.normalize(input.phone)
    if (phone === undefined) return yield* Errors.ValidationFailed.of("phone", "must be a phone number in E.164 form, e.g. +14155550100")
    const repo = yield* OrderRepo
    // our catalog id, or the operator's id of one of our catalogs
    const catalogId = CatalogId.is(input.catalog_id) ? Option.some(input.catalog_id) : yield* repo.catalogByOperatorId(tenant, input.catalog_id)
    const catalog =
      Option.isSome(catalogId) && CatalogId.is(catalogId.value) ? yield* (yield* CatalogRepo).find(tenant, catalogId.value) : Option.none()
    if (Option.isNone(catalog)) return yield* new Errors.ResourceNotFound({ resource: "catalog", id: input.catalog_id })
    const products = yield* (yield* ProductRepo).findByRetailerIds(
      tenant,
      catalog.value.id,
      input.items.map((i) => i.retailer_id)
    )
    const byRetailerId = new Map(products.map((p) => [p.retailerId, p]))
    const lines = []
    for (const [i, item] of input.items.entries()) {
      const product = byRetailerId.get(item.retailer_id)
      if (product === undefined)
        return yield* Errors.ValidationFailed.of(`items[${i}].retailer_id`, `is not a product of catalog ${catalog.value.id}`)
      if (product.currency !== products.find((p) => p.retailerId === input.items[0].retailer_id)?.currency) {
        return yield* Errors.ValidationFailed.of(
          `items[${i}].retailer_id`,
          "is priced in another currency than the first item; an order has one currency"
        )
      }
      const price = product.salePrice ?? product.price
      lines.push({
        product_retailer_id: item.retailer_id,
        quantity: item.quantity,
        item_price: price / 10 ** exponent(product.currency),
        currency: product.currency
      })
    }
    const message = { type: "order", order: { catalog_id: catalog.value.operatorCatalogId, text: input.note ?? "", product_items: lines } }
    const sent = yield* (yield* SandboxCustomer).sendInbound(store.sandbox, { from: phone, message })
    const order =
      sent.messageId === ""
        ? Option.none<Order.Order>()
        : yield* repo
            .findBySourceMessage(tenant, sent.messageId)
            .pipe(
              Effect.flatMap(Option.match({ onNone: () => Effect.fail("not yet applied" as const), onSome: Effect.succeed })),
              Effect.retry(Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(SANDBOX_APPLY_TIMEOUT))),
              Effect.option
            )
    return {
      accepted: true as const,
      operator_message_id: sent.messageId,
      order_id: Option.match(order, { onNone: () => null, onSome: (o) => o.id })
    }
  })
