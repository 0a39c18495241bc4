/**
 * What happens to an order, one record each (spec §2): payments (from the operator's
 * payment status webhooks, read-only), refunds and cancellations. Shipments and returns
 * live in `Shipment.ts` and `Return.ts`. Each record belongs to one order of one tenant.
 *
 * Reason codes are the operator's (GRAPH_API.md §7.4).
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { IdempotencyKey, ItemRef, OrderId, PositiveInt } from "./Order.js"
import type { Return } from "./Return.js"
import type { Shipment } from "./Shipment.js"

/** `pay_…` */
export const PaymentId = Id.kind("pay", "PaymentId")
export type RefundId = Id.Of<typeof RefundId>
export type CancellationId = Id.Of<typeof CancellationId>
/** `rfd_…` */
export const RefundId = Id.kind("rfd", "RefundId")
/** `ccl_…` */
export const CancellationId = Id.kind("ccl", "CancellationId")

/** The records of an order, by kind. */
export type RecordKind = "payment" | "refund" | "cancellation" | "shipment" | "return"
export type RecordOf<K extends RecordKind> = {
  readonly payment: Payment
  readonly refund: Refund
  readonly cancellation: Cancellation
  readonly shipment: Shipment
  readonly return: Return
}[K]

/** Fields every record has. */
const base = {
  orderId: OrderId.schema,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}

/** An item and quantity of a cancellation or shipment. */
export const ItemQuantity = Schema.Struct({ itemId: Schema.String, retailerId: Schema.String, quantity: Schema.Int })
export interface ItemQuantity extends Schema.Schema.Type<typeof ItemQuantity> {}
export const ItemQuantityResource = Schema.Struct({
  itemId: Wire.key(Schema.String, "item_id"),
  retailerId: Wire.key(Schema.String, "retailer_id"),
  quantity: Schema.Int
}).annotations({ identifier: "OrderItemQuantity" })

// ---------------------------------------------------------------------------------------
// payments

/**
 * The operator's payment states (`pending`, `captured`, `failed`), and ours for a capture
 * whose amount or currency is not what the payment request asked (`mismatch`: recorded, the
 * order not paid).
 */
export const PaymentStatus = Schema.Literal("pending", "captured", "failed", "mismatch")

export const Payment = Schema.Struct({
  id: PaymentId.schema,
  ...base,
  status: PaymentStatus,
  amount: Schema.Int,
  currency: Schema.String,
  /** The operator's transaction id. */
  transactionId: Schema.String,
  /** The operator's reason of a failed payment. */
  error: Schema.NullOr(Schema.String)
})
export interface Payment extends Schema.Schema.Type<typeof Payment> {}

export const PaymentResource = Schema.Struct({
  id: Payment.fields.id,
  orderId: Wire.key(Payment.fields.orderId, "order_id"),
  status: Payment.fields.status,
  amount: Payment.fields.amount,
  currency: Payment.fields.currency,
  transactionId: Wire.key(Payment.fields.transactionId, "transaction_id"),
  error: Payment.fields.error,
  createdAt: Wire.key(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "Payment" })

// ---------------------------------------------------------------------------------------
// refunds

export const RefundReasonCode = Schema.Literal(
  "BUYERS_REMORSE",
  "DAMAGED_GOODS",
  "FACEBOOK_INITIATED",
  "NOT_AS_DESCRIBED",
  "QUALITY_ISSUE",
  "REFUND_COMPROMISED",
  "REFUND_FOR_RETURN",
  "REFUND_REASON_OTHER",
  "REFUND_SFI_FAKE",
  "REFUND_SFI_REAL",
  "WRONG_ITEM"
)

/** A refund through the operator is `pending` until its outcome arrives; a local one is `completed` at once. */
export const RefundStatus = Schema.Literal("pending", "completed", "failed")
/** `whatsapp`: refunded through the operator's payments refund call; `external`: money paid elsewhere, recorded here only. */
export const RefundChannel = Schema.Literal("whatsapp", "external")

export const RefundItem = Schema.Struct({ itemId: Schema.String, retailerId: Schema.String, quantity: Schema.NullOr(Schema.Int), amount: Schema.Int })

export const Refund = Schema.Struct({
  id: RefundId.schema,
  ...base,
  amount: Schema.Int,
  currency: Schema.String,
  reasonCode: RefundReasonCode,
  reasonText: Schema.NullOr(Schema.String),
  items: Schema.Array(RefundItem),
  shipping: Schema.Int,
  returnId: Schema.NullOr(Schema.String),
  cancellationId: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.NullOr(Schema.String),
  status: RefundStatus,
  channel: RefundChannel,
  /** The operator's id of a `whatsapp` refund (its outcome webhook names it); absent for local refunds. */
  operatorRefundId: Schema.optional(Schema.NullOr(Schema.String))
})
export interface Refund extends Schema.Schema.Type<typeof Refund> {}

/** A refund as stored: those written before refunds had a status and a channel were local and complete. */
export const StoredRefund = Schema.Struct({ ...Refund.fields, status: Schema.optional(RefundStatus), channel: Schema.optional(RefundChannel) })
export const fromStored = (r: typeof StoredRefund.Type): Refund => ({ ...r, status: r.status ?? "completed", channel: r.channel ?? "external" })

export const RefundResource = Schema.Struct({
  id: Refund.fields.id,
  orderId: Wire.key(Refund.fields.orderId, "order_id"),
  amount: Refund.fields.amount,
  currency: Refund.fields.currency,
  reasonCode: Wire.key(Refund.fields.reasonCode, "reason_code"),
  reasonText: Wire.key(Refund.fields.reasonText, "reason_text"),
  items: Schema.Array(
    Schema.Struct({
      itemId: Wire.key(Schema.String, "item_id"),
      retailerId: Wire.key(Schema.String, "retailer_id"),
      quantity: Schema.NullOr(Schema.Int),
      amount: Schema.Int
    })
  ),
  shipping: Wire.key(Refund.fields.shipping, "shipping_amount"),
  returnId: Wire.key(Refund.fields.returnId, "return_id"),
  cancellationId: Wire.key(Refund.fields.cancellationId, "cancellation_id"),
  idempotencyKey: Wire.key(Refund.fields.idempotencyKey, "idempotency_key"),
  status: RefundStatus,
  channel: RefundChannel,
  createdAt: Wire.key(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "Refund" })

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * `POST /chat/orders/{id}/refunds`: items (by quantity, at their unit price, or by amount),
 * shipping, and/or an amount; the refund is their sum, which must be above 0.
 */
export const CreateRefund = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  reason_code: RefundReasonCode,
  reason_text: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  amount: Schema.optional(PositiveInt),
  items: Schema.optional(
    Schema.Array(
      Schema.Struct({ ...ItemRef, quantity: Schema.optional(PositiveInt), amount: Schema.optional(PositiveInt) }).annotations(strict)
    ).pipe(Schema.maxItems(100))
  ),
  shipping_amount: Schema.optional(PositiveInt),
  return_id: Schema.optional(Schema.String)
}).annotations({ ...strict, identifier: "CreateRefund" })
export type CreateRefund = typeof CreateRefund.Type

// ---------------------------------------------------------------------------------------
// cancellations

export const CancelReasonCode = Schema.Literal("CUSTOMER_REQUESTED", "OUT_OF_STOCK", "INVALID_ADDRESS", "SUSPICIOUS_ORDER", "CANCEL_REASON_OTHER")

export const Cancellation = Schema.Struct({
  id: CancellationId.schema,
  ...base,
  reasonCode: CancelReasonCode,
  reasonDescription: Schema.NullOr(Schema.String),
  restockItems: Schema.Boolean,
  items: Schema.Array(ItemQuantity),
  /** The refund of the cancelled items' paid value (none for an unpaid order). */
  refundId: Schema.NullOr(Schema.String),
  refundAmount: Schema.Int,
  idempotencyKey: Schema.NullOr(Schema.String)
})
export interface Cancellation extends Schema.Schema.Type<typeof Cancellation> {}

export const CancellationResource = Schema.Struct({
  id: Cancellation.fields.id,
  orderId: Wire.key(Cancellation.fields.orderId, "order_id"),
  reasonCode: Wire.key(Cancellation.fields.reasonCode, "reason_code"),
  reasonDescription: Wire.key(Cancellation.fields.reasonDescription, "reason_description"),
  restockItems: Wire.key(Cancellation.fields.restockItems, "restock_items"),
  items: Schema.Array(ItemQuantityResource),
  refundId: Wire.key(Cancellation.fields.refundId, "refund_id"),
  refundAmount: Wire.key(Cancellation.fields.refundAmount, "refund_amount"),
  createdAt: Wire.key(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "Cancellation" })

/** `POST /chat/orders/{id}/cancellations`: without `items`, everything unshipped. */
export const CreateCancellation = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  reason_code: CancelReasonCode,
  reason_description: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  restock_items: Schema.optional(Schema.Boolean),
  items: Schema.optional(
    Schema.Array(Schema.Struct({ ...ItemRef, quantity: PositiveInt }).annotations(strict)).pipe(Schema.minItems(1), Schema.maxItems(100))
  )
}).annotations({ ...strict, identifier: "CreateCancellation" })
export type CreateCancellation = typeof CreateCancellation.Type

/** `GET /chat/orders/{id}/refundable-amount`. */
export const RefundableAmount = Schema.Struct({ amount: Schema.Int, currency: Schema.String }).annotations({ identifier: "RefundableAmount" })
