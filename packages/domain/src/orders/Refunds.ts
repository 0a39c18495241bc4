/**
 * Refunds and cancellations of an order (spec §4.4; the money rules are `OrderMoney.ts`).
 *
 * A refund names items (a quantity at the item's unit price, or an amount), shipping, and/or
 * an amount: it is their sum. It is checked against the refundable amount on the order held
 * in the refund's own transaction, so concurrent refunds never pass it together: above it
 * is 422 `refund_exceeds_refundable` with the current figure. A refund for a return names
 * `return_id` and moves the return to `REFUNDED`.
 *
 * A cancellation covers unshipped quantities only (without `items`: everything unshipped);
 * the paid value of what it cancels is refunded at once, as a refund tied to it: through the
 * operator for an order paid through WhatsApp (`pending` until its outcome, a mirrored write
 * committed with the cancellation and finished after it), locally otherwise. Both are
 * idempotent by the body's `idempotency_key` (per order): a replay answers the first record.
 */
import { Effect, Either, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Mirror from "../shared/Mirror.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { Transactor } from "../jobs/Transactor.js"
import { accountFor } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type * as Order from "./Order.js"
import * as OrderMoney from "./OrderMoney.js"
import { CancellationId, RefundId, type Cancellation, type CreateCancellation, type CreateRefund, type Refund } from "./OrderRecord.js"
import { OrderRecordRepo, OrderRepo } from "./OrderRepo.js"
import { allow, emitSettled, eventData, lock, lookup, resolveItem, withItems, withRefund } from "./OrderSupport.js"
import * as OrderUpdates from "./OrderUpdates.js"
import * as Return from "./Return.js"
import { paidThroughWhatsApp, type RefundPayload, WhatsAppRefund } from "./WhatsAppRefunds.js"

const sameRequest = (key: string, first: unknown, again: unknown) =>
  JSON.stringify(first) === JSON.stringify(again) ? Effect.void : Effect.fail(new Errors.IdempotencyKeyReused({ key }))

/** `GET /chat/orders/{id}/refundable-amount`. */
export const refundableAmount = (id: string) =>
  Effect.map(
    Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id)),
    (order) => ({ amount: OrderMoney.refundable(order), currency: order.currency })
  )

/** A list of one kind of record of one order, newest first. */
const listOf =
  <K extends "refund" | "cancellation", I extends string>(kind: K, prefix: Id.Kind<I>) =>
  (id: string, query: { readonly limit: number; readonly cursor?: I | undefined }) =>
    Effect.gen(function* () {
      const { tenant } = yield* CurrentStore
      const order = yield* lookup(tenant, id)
      const slice = yield* (yield* OrderRecordRepo).list(tenant, kind, { orderId: order.id }, { limit: query.limit, after: query.cursor })
      return Pagination.pageOf(slice, prefix.schema, (r) => r.id as unknown as I)
    })

/** One record of one order; another order's (or tenant's) id is a 404. */
export const recordOf =
  <K extends "refund" | "cancellation" | "shipment", I extends string>(kind: K, prefix: Id.Kind<I>, resource: string) =>
  (id: string, recordId: string) =>
    Effect.gen(function* () {
      const { tenant } = yield* CurrentStore
      const order = yield* lookup(tenant, id)
      const repo = yield* OrderRecordRepo
      const found = yield* Id.lookup(prefix, resource, recordId, (rid) => repo.find(tenant, kind, rid))
      if (found.orderId !== order.id) return yield* new Errors.ResourceNotFound({ resource, id: recordId })
      return found
    })

export const listRefunds = listOf("refund", RefundId)
export const getRefund = recordOf("refund", RefundId, "refund")
export const listCancellations = listOf("cancellation", CancellationId)
export const getCancellation = recordOf("cancellation", CancellationId, "cancellation")

/** Writes a refund of `amount` on the held order, or the refusal when it passes the refundable amount. */
export const issueRefund = (
  tenant: Tenant,
  order: Order.Order,
  refund: Omit<Refund, "id" | "orderId" | "currency" | "amount" | "createdAt" | "updatedAt" | "status" | "channel"> &
    Partial<Pick<Refund, "status" | "channel">>,
  amount: number,
  now: Time.Millis
) =>
  Effect.gen(function* () {
    const applied = OrderMoney.applyRefund(order, amount)
    if (applied._tag === "Left") return yield* applied.error
    const record: Refund = {
      status: "completed",
      channel: "external",
      ...refund,
      id: yield* RefundId.generate,
      orderId: order.id,
      currency: order.currency,
      amount,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* OrderRecordRepo).insert(tenant, "refund", record, refund.idempotencyKey)
    const next = withRefund(order, amount, now)
    return { record, order: next }
  })

/**
 * `POST /chat/orders/{id}/refunds`. An order paid elsewhere gets a local refund at once
 * (`channel: "external"`, `completed`). An order paid through WhatsApp is refunded through
 * the operator, a mirrored write (`WhatsAppRefund`): the refund is written `pending` (it
 * counts against the refundable amount at once), the operator's refund call goes out after
 * the commit with our idempotency key, and its outcome webhook completes or fails it
 * (`onRefundOutcome`). A refusal of the call fails the refund and is the caller's answer.
 */
export const createRefund = (id: string, input: CreateRefund) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (input.amount === undefined && input.items === undefined && input.shipping_amount === undefined) {
      return yield* Errors.ValidationFailed.of("amount", "is required when neither items nor shipping_amount is given")
    }
    const order = yield* lookup(tenant, id)
    if (!paidThroughWhatsApp(order)) return (yield* (yield* Transactor).withTransaction(writeRefund(tenant, id, input, "external"))).record
    return yield* Mirror.run(WhatsAppRefund, {
      tenant,
      account: accountFor(store, tenant.mode),
      prepare: Effect.map(writeRefund(tenant, id, input, "whatsapp"), (w) => ({ orderId: w.record.orderId, refundId: w.record.id, replay: !w.fresh }))
    })
  })

/** The refund's transaction body: the held order checked, the refund written (or the first one of its key answered). */
const writeRefund = (tenant: Tenant, id: string, input: CreateRefund, channel: Refund["channel"]) =>
  Effect.gen(function* () {
    const order = yield* lock(tenant, id)
    const records = yield* OrderRecordRepo
    if (input.idempotency_key !== undefined) {
      const first = yield* records.findByKey(tenant, "refund", order.id, input.idempotency_key)
      if (Option.isSome(first)) {
        yield* sameRequest(input.idempotency_key, [first.value.reasonCode, first.value.returnId], [input.reason_code, input.return_id ?? null])
        return { record: first.value, fresh: false }
      }
    }
    yield* allow(order, "refund")
    const now = yield* Time.now
    const items: Array<Refund["items"][number]> = []
    for (const [i, line] of (input.items ?? []).entries()) {
      const item = yield* resolveItem(order, line, `items[${i}]`)
      if (line.quantity === undefined && line.amount === undefined)
        return yield* Errors.ValidationFailed.of(`items[${i}]`, "needs a quantity or an amount")
      if (line.quantity !== undefined && line.quantity > item.quantity) {
        return yield* Errors.ValidationFailed.of(
          `items[${i}].quantity`,
          `must be at most ${item.quantity}, the ordered quantity of ${item.retailerId}`
        )
      }
      items.push({
        itemId: item.id,
        retailerId: item.retailerId,
        quantity: line.quantity ?? null,
        amount: line.amount ?? (line.quantity ?? 0) * item.unitPrice
      })
    }
    const shipping = input.shipping_amount ?? 0
    const amount = items.reduce((s, i) => s + i.amount, 0) + shipping + (input.amount ?? 0)
    let held: Return.Return | undefined
    if (input.return_id !== undefined) {
      const found = yield* Id.lookup(Return.ReturnId, "return", input.return_id, (rid) => records.find(tenant, "return", rid)).pipe(
        Effect.mapError(() => Errors.ValidationFailed.of("return_id", `is not a return of order ${order.id}`))
      )
      if (found.orderId !== order.id) return yield* Errors.ValidationFailed.of("return_id", `is not a return of order ${order.id}`)
      yield* Either.match(Return.transition(found.status, "refund"), { onLeft: Effect.fail, onRight: () => Effect.void })
      held = found
    }
    const issued = yield* issueRefund(
      tenant,
      order,
      {
        reasonCode: input.reason_code,
        reasonText: input.reason_text ?? null,
        items,
        shipping,
        returnId: held?.id ?? null,
        cancellationId: null,
        idempotencyKey: input.idempotency_key ?? null,
        status: channel === "whatsapp" ? "pending" : "completed",
        channel
      },
      amount,
      now
    )
    yield* (yield* OrderRepo).save(tenant, issued.order)
    if (held !== undefined) {
      const refunded: Return.Return = { ...held, status: "REFUNDED", refundId: issued.record.id, updatedAt: now }
      yield* records.update(tenant, "return", refunded)
      yield* Webhooks.emit(tenant, "return.updated", { return_id: refunded.id, order_id: order.id, status: refunded.status })
    }
    // a refund through the operator is announced when its outcome arrives
    if (channel === "external") yield* Webhooks.emit(tenant, "order.refunded", { ...eventData(issued.order), refund_id: issued.record.id, amount })
    return { record: issued.record, fresh: true }
  })

/** `POST /chat/orders/{id}/cancellations`. */
export const createCancellation = (id: string, input: CreateCancellation) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    // the refund through the operator that the cancellation's transaction enqueued, finished after its commit
    let chained: { readonly id: string; readonly payload: RefundPayload } | undefined
    const cancellation = yield* OrderUpdates.changeAndTell(
      tenant,
      Effect.gen(function* () {
        const order = yield* lock(tenant, id)
        const records = yield* OrderRecordRepo
        if (input.idempotency_key !== undefined) {
          const first = yield* records.findByKey(tenant, "cancellation", order.id, input.idempotency_key)
          if (Option.isSome(first)) {
            yield* sameRequest(input.idempotency_key, first.value.reasonCode, input.reason_code)
            return { result: first.value }
          }
        }
        yield* allow(order, "cancel")
        const now = yield* Time.now
        const cancel = new Map<string, number>()
        if (input.items === undefined) {
          for (const item of order.items)
            if (item.quantity - item.shipped - item.cancelled > 0) cancel.set(item.id, item.quantity - item.shipped - item.cancelled)
        } else {
          for (const [i, line] of input.items.entries()) {
            const item = yield* resolveItem(order, line, `items[${i}]`)
            const open = item.quantity - item.shipped - item.cancelled - (cancel.get(item.id) ?? 0)
            if (line.quantity > open) {
              return yield* Errors.ValidationFailed.of(
                `items[${i}].quantity`,
                `must be at most ${open}, the unshipped quantity of ${item.retailerId}`
              )
            }
            cancel.set(item.id, (cancel.get(item.id) ?? 0) + line.quantity)
          }
        }
        if (cancel.size === 0)
          return yield* new Errors.InvalidState({ resource: "order", status: order.status, operation: "cancel (nothing unshipped is left)" })
        const items = order.items
          .filter((i) => cancel.has(i.id))
          .map((i) => ({ itemId: i.id, retailerId: i.retailerId, quantity: cancel.get(i.id)! }))
        const value = order.items.reduce((s, i) => s + (cancel.get(i.id) ?? 0) * i.unitPrice, 0)
        const cancellationId = yield* CancellationId.generate
        let next = withItems(
          order,
          order.items.map((i) => ({ ...i, cancelled: i.cancelled + (cancel.get(i.id) ?? 0) })),
          now
        )
        const refundAmount = OrderMoney.automaticRefund(order, value)
        const channel = paidThroughWhatsApp(order) ? "whatsapp" : "external"
        let refundId: string | null = null
        chained = undefined
        if (refundAmount > 0) {
          const issued = yield* issueRefund(
            tenant,
            next,
            {
              reasonCode: "REFUND_REASON_OTHER",
              reasonText: "cancellation",
              items: [],
              shipping: 0,
              returnId: null,
              cancellationId,
              idempotencyKey: null,
              status: channel === "whatsapp" ? "pending" : "completed",
              channel
            },
            refundAmount,
            now
          ).pipe(Effect.catchTag("RefundExceedsRefundable", (e) => Effect.die(e)))
          next = issued.order
          refundId = issued.record.id
          if (channel === "whatsapp") {
            const payload = { orderId: order.id, refundId: issued.record.id, replay: false }
            chained = { id: yield* Mirror.enqueue(WhatsAppRefund, tenant, payload), payload }
          }
        }
        const record: Cancellation = {
          id: cancellationId,
          orderId: order.id,
          reasonCode: input.reason_code,
          reasonDescription: input.reason_description ?? null,
          restockItems: input.restock_items ?? false,
          items,
          refundId,
          refundAmount,
          idempotencyKey: input.idempotency_key ?? null,
          createdAt: now,
          updatedAt: now
        }
        yield* records.insert(tenant, "cancellation", record, record.idempotencyKey)
        yield* (yield* OrderRepo).save(tenant, next)
        if (next.status !== "cancelled")
          yield* Webhooks.emit(tenant, "order.cancelled", { ...eventData(next), cancellation_id: record.id, partial: true })
        // a refund through the operator is announced when its outcome arrives
        if (refundAmount > 0 && channel === "external")
          yield* Webhooks.emit(tenant, "order.refunded", { ...eventData(next), refund_id: refundId, amount: refundAmount })
        yield* emitSettled(tenant, order, next)
        // the customer is told after the commit, the reason as the update's description
        const change = { before: order, after: next, shipped: false, description: record.reasonDescription ?? record.reasonCode }
        return { result: record, change }
      })
    )
    // a refusal of the refund fails it (its amount is refundable again); the cancellation stands
    if (chained !== undefined)
      yield* Mirror.complete(WhatsAppRefund, chained.id, chained.payload, { tenant, account: accountFor(store, tenant.mode) }).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("the cancellation's refund through the operator failed", { refund_id: chained?.payload.refundId, error })
        )
      )
    return cancellation
  })
