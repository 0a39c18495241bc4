/**
 * The money rules of orders (DESIGN.md "Commerce"), all in integer minor units of the
 * order's one currency:
 *
 * - refundable amount = captured payments − refunds issued (those that cancellations and
 *   item reductions made included); never negative, never above what was captured;
 * - a refund above the refundable amount is refused (`RefundExceedsRefundable`, 422
 *   `refund_exceeds_refundable`, with the current figure); the check and the write happen
 *   in one transaction that holds the order, so concurrent refunds can never pass it;
 * - the paid value of a cancelled (or removed) unshipped quantity is refunded automatically,
 *   up to what is still refundable;
 * - the payment status follows: nothing captured `unpaid`; nothing refunded `paid`; all of
 *   it refunded `refunded`; some `partially_refunded`.
 *
 * Pure functions; the use cases apply them inside the order's transaction.
 */
import { Schema } from "effect"
import type { Order, OrderItem, PaymentStatus } from "./Order.js"

/** A refund would pass the refundable amount (captured − refunded). */
export class RefundExceedsRefundable extends Schema.TaggedError<RefundExceedsRefundable>()("RefundExceedsRefundable", {
  requested: Schema.Number,
  refundable: Schema.Number,
  currency: Schema.String
}) {
  override get message(): string {
    return `The refund of ${this.requested} exceeds the refundable amount of ${this.refundable} ${this.currency} (minor units)`
  }
}

/** Captured − refunded, clamped to [0, captured]. */
export const refundable = (money: Pick<Order, "captured" | "refunded">): number =>
  Math.max(0, Math.min(money.captured, money.captured - money.refunded))

/** The payment status of captured and refunded amounts. */
export const paymentStatus = (money: Pick<Order, "captured" | "refunded">): PaymentStatus =>
  money.captured <= 0 ? "unpaid" : money.refunded <= 0 ? "paid" : money.refunded >= money.captured ? "refunded" : "partially_refunded"

/** Σ unit price × quantity. */
export const totalOf = (items: ReadonlyArray<Pick<OrderItem, "unitPrice" | "quantity">>): number =>
  items.reduce((sum, i) => sum + i.unitPrice * i.quantity, 0)

/**
 * The refund a cancellation (or an item reduction) of `value` makes: its paid part, that is
 * at most what is still refundable. Zero for an unpaid order.
 */
export const automaticRefund = (money: Pick<Order, "captured" | "refunded">, value: number): number => Math.max(0, Math.min(value, refundable(money)))

/** The money after a refund of `amount`, or the refusal when it passes the refundable amount. */
export const applyRefund = <M extends Pick<Order, "captured" | "refunded" | "currency">>(
  money: M,
  amount: number
): { readonly _tag: "Right"; readonly money: M } | { readonly _tag: "Left"; readonly error: RefundExceedsRefundable } => {
  const left = refundable(money)
  if (amount > left) return { _tag: "Left", error: new RefundExceedsRefundable({ requested: amount, refundable: left, currency: money.currency }) }
  return { _tag: "Right", money: { ...money, refunded: money.refunded + amount } }
}
