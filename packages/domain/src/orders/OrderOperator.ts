/**
 * The operator's payments refund call (Meta's Payments API, India; GRAPH_API.md §7.6): a
 * refund of a payment made through an `order_details` request, named by our `reference_id`.
 *
 *   POST /{PHONE_NUMBER_ID}/payments_refund
 *     { reference_id, speed: "normal", payment_config_id, amount: { value, offset, currency }, idempotency_key }
 *   → { id, status: "pending" }
 *
 * The outcome arrives later as a payment status webhook whose transaction lists its
 * `refunds[]` (`id`, `status` `completed` | `failed`). The call carries our idempotency key
 * (the mirrored write's), so a retry never refunds twice at the emulator; whether the real
 * operator honours the key is not verified (see the README's Orders section).
 *
 * WhatsApp carts are not Commerce Platform orders (§7.0): the Commerce Platform order edges
 * (acknowledge, cancellations, shipments) are not called; the customer hears of an order
 * through `order_status` messages (`OrderUpdates.ts`).
 *
 * Errors: a refund the operator refuses is `OperatorRejected` with its code (an unknown
 * reference, or more than the payment holds: code 100); no usable answer is `OperatorUnavailable`.
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

export interface PaymentRefund {
  readonly referenceId: string
  /** The payment configuration's name (the store's `payment_settings`). */
  readonly paymentConfigId: string
  /** The operator's amount: `value / offset` major units of `currency`. */
  readonly amount: { readonly value: number; readonly offset: number }
  readonly currency: string
  readonly idempotencyKey: string
}

export class OrderOperator extends Context.Tag("@switchboard/domain/OrderOperator")<
  OrderOperator,
  {
    /** `POST /{PHONE_NUMBER_ID}/payments_refund`: the operator's refund id and its first status. */
    readonly refundPayment: (
      account: OperatorAccount,
      input: PaymentRefund
    ) => Effect.Effect<{ readonly refundId: string; readonly status: string }, OperatorRejected | OperatorUnavailable>
  }
>() {}
