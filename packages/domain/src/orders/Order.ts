/**
 * Orders (spec §2, §4.3): a customer's cart, sent from a catalog as an `order` chat message
 * (GRAPH_API.md §2.6), becomes an order of the tenant whose number received it. An order
 * belongs to one tenant (store and mode); another tenant's id answers as an id that does not
 * exist. Its items keep the cart's prices, in integer minor units of the order's one
 * currency; a price that differs from the catalog's is flagged on the item, never corrected.
 *
 * State machine (DESIGN.md "State machines"; the operator's CREATED → IN_PROGRESS →
 * COMPLETED, GRAPH_API.md §7.2):
 *
 *   pending ──acknowledge──► in_progress
 *   pending | in_progress ──cancel / modify items──► (same status, then settle)
 *   in_progress ──ship──► in_progress (then settle)
 *   in_progress | completed ──return──► (same status)
 *   any ──refund──► (same status; the money rules decide, not the status)
 *   settle: pending | in_progress with no unshipped quantity left
 *           ├─ some quantity shipped ──► completed
 *           └─ nothing shipped (every item cancelled before it shipped) ──► cancelled
 *
 * `pending` is what the customer sees as pending: the order was not acknowledged yet.
 * `completed` and `cancelled` are final. Anything else is refused with `InvalidState`
 * naming the current status (409 `invalid_state`).
 *
 * Payment status is a separate field, derived from the money (see `OrderMoney.ts`):
 * `unpaid` (nothing captured), `paid`, `partially_refunded`, `refunded`; before anything is
 * captured, the operator's last payment status of the order's payment request (`pending`,
 * `failed`) shows instead of `unpaid` (`OrderPayments.ts`).
 */
import { Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { Currency } from "../shared/Money.js"
import * as Pagination from "../shared/Pagination.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"

/** `ord_…` */
export const OrderId = Id.kind("ord", "OrderId")
export type OrderId = Id.Of<typeof OrderId>

/** `oit_…` */
export const OrderItemId = Id.kind("oit", "OrderItemId")
export type OrderItemId = Id.Of<typeof OrderItemId>

export const Status = Schema.Literal("pending", "in_progress", "completed", "cancelled")
export type Status = typeof Status.Type

export const PaymentStatus = Schema.Literal("unpaid", "pending", "paid", "failed", "partially_refunded", "refunded")
export type PaymentStatus = typeof PaymentStatus.Type

/** What a caller (or the inbox) asks of an order. */
export type Operation = "acknowledge" | "cancel" | "modify items" | "ship" | "return" | "refund" | "settle"

export interface TransitionContext {
  /** `settle`: whether no item has an unshipped quantity left. */
  readonly settled?: boolean
  /** `settle`: whether some quantity was shipped. */
  readonly anyShipped?: boolean
}

const refuse = (status: Status, operation: string) => Either.left(new InvalidState({ resource: "order", status, operation }))

/**
 * The status after `operation`, or `InvalidState` when the state machine refuses it. The
 * one place that knows which operation is allowed in which status.
 */
export const transition = (status: Status, operation: Operation, context: TransitionContext = {}): Either.Either<Status, InvalidState> => {
  const open = status === "pending" || status === "in_progress"
  switch (operation) {
    case "acknowledge":
      return status === "pending" ? Either.right("in_progress") : refuse(status, operation)
    case "cancel":
    case "modify items":
      return open ? Either.right(status) : refuse(status, operation)
    case "ship":
      return status === "in_progress" ? Either.right(status) : refuse(status, status === "pending" ? "ship (acknowledge it first)" : operation)
    case "return":
      return status === "in_progress" || status === "completed" ? Either.right(status) : refuse(status, operation)
    case "refund":
      return Either.right(status)
    case "settle":
      if (!open) return refuse(status, operation)
      if (!context.settled) return Either.right(status)
      return Either.right(context.anyShipped ? "completed" : "cancelled")
  }
}

/** The statuses from which `operation` is allowed. */
export const sources = (operation: Operation): ReadonlyArray<Status> => Status.literals.filter((s) => Either.isRight(transition(s, operation, {})))

/** One line of an order. Quantities: `quantity` is what is ordered now (items modify lowers it). */
export const OrderItem = Schema.Struct({
  id: OrderItemId.schema,
  retailerId: Schema.String,
  /** Our product of that retailer id in the order's catalog, when there is one. */
  productId: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  quantity: Schema.Int,
  /** The cart's price of one unit, integer minor units of the order's currency. */
  unitPrice: Schema.Int,
  /** The catalog's price when the cart came (null when the product is unknown here). */
  catalogPrice: Schema.NullOr(Schema.Int),
  /** The cart's price is not the catalog's (or the product is unknown): flagged, not corrected. */
  priceMismatch: Schema.Boolean,
  shipped: Schema.Int,
  cancelled: Schema.Int,
  returned: Schema.Int
})
export interface OrderItem extends Schema.Schema.Type<typeof OrderItem> {}

/** The quantity of an item that has neither shipped nor been cancelled. */
export const unshipped = (item: Pick<OrderItem, "quantity" | "shipped" | "cancelled">): number =>
  Math.max(0, item.quantity - item.shipped - item.cancelled)

/**
 * The order statuses the customer sees (the operator's `order_status` values, as Meta's
 * Payments API pages write them: `partially-shipped` with a hyphen).
 */
export const CustomerStatus = Schema.Literal("processing", "partially-shipped", "shipped", "completed", "canceled")
export type CustomerStatus = typeof CustomerStatus.Type

/** What became of one update: sent, refused or unreachable (`failed`), or not sent because the window was closed. */
export const UpdateOutcome = Schema.Literal("sent", "failed", "skipped_outside_window")
export type UpdateOutcome = typeof UpdateOutcome.Type

/** One update sent (or not) to the customer about the order. `messageId` is our message's id. */
export const CustomerUpdate = Schema.Struct({
  status: CustomerStatus,
  outcome: UpdateOutcome,
  messageId: Schema.NullOr(Schema.String),
  at: Schema.Number
})
export interface CustomerUpdate extends Schema.Schema.Type<typeof CustomerUpdate> {}

/** The order. Money in integer minor units of `currency`; times are `Time.Millis`. */
export const Order = Schema.Struct({
  id: OrderId.schema,
  ...Owned,
  /** Our catalog the cart came from (null when no catalog of the tenant has that operator id). */
  catalogId: Schema.NullOr(Schema.String),
  operatorCatalogId: Schema.String,
  /** The operator's id of the cart message (wamid): one order per cart message. */
  sourceMessageId: Schema.String,
  customerPhone: Schema.String,
  note: Schema.NullOr(Schema.String),
  status: Status,
  paymentStatus: PaymentStatus,
  currency: Schema.String,
  /** Σ unit price × quantity of the items as ordered now. */
  total: Schema.Int,
  /** Captured payments. */
  captured: Schema.Int,
  /** Refunds issued (those of cancellations included). */
  refunded: Schema.Int,
  items: Schema.Array(OrderItem),
  /** The cart message's `order` object as received. */
  cart: Schema.Unknown,
  acknowledgedAt: Schema.NullOr(Schema.Number),
  /** Our `reference_id` of the order's payment request (`order_details`), null until one was sent. */
  paymentReferenceId: Schema.NullOr(Schema.String),
  /** The amount the payment request asked for (minor units of `currency`), null until one was sent. */
  requestedAmount: Schema.NullOr(Schema.Int),
  /** The updates sent to the customer about the order, oldest first. */
  customerUpdates: Schema.Array(CustomerUpdate),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Order extends Schema.Schema.Type<typeof Order> {}

/** Every item has no unshipped quantity left. */
export const isSettled = (items: ReadonlyArray<OrderItem>): boolean => items.every((i) => unshipped(i) === 0)

/** The status after a change of items (ship, cancel, modify), by `transition(…, "settle")`. */
export const settle = (order: Pick<Order, "status" | "items">): Status =>
  Either.getOrElse(
    transition(order.status, "settle", { settled: isSettled(order.items), anyShipped: order.items.some((i) => i.shipped > 0) }),
    () => order.status
  )

// ---------------------------------------------------------------------------------------
// the API's view

export const OrderItemResource = Schema.Struct({
  id: OrderItem.fields.id,
  retailerId: Wire.key(OrderItem.fields.retailerId, "retailer_id"),
  productId: Wire.key(OrderItem.fields.productId, "product_id"),
  name: OrderItem.fields.name,
  quantity: OrderItem.fields.quantity,
  unitPrice: Wire.key(OrderItem.fields.unitPrice, "unit_price"),
  catalogPrice: Wire.key(OrderItem.fields.catalogPrice, "catalog_price"),
  priceMismatch: Wire.key(OrderItem.fields.priceMismatch, "price_mismatch"),
  shipped: Wire.key(OrderItem.fields.shipped, "shipped_quantity"),
  cancelled: Wire.key(OrderItem.fields.cancelled, "cancelled_quantity"),
  returned: Wire.key(OrderItem.fields.returned, "returned_quantity")
}).annotations({ identifier: "OrderItem" })

export const OrderResource = Schema.Struct({
  id: Order.fields.id,
  status: Order.fields.status,
  paymentStatus: Wire.key(Order.fields.paymentStatus, "payment_status"),
  currency: Order.fields.currency,
  total: Order.fields.total.annotations({ description: "Integer minor units of `currency`" }),
  captured: Wire.key(Order.fields.captured, "amount_captured"),
  refunded: Wire.key(Order.fields.refunded, "amount_refunded"),
  catalogId: Wire.key(Order.fields.catalogId, "catalog_id"),
  operatorCatalogId: Wire.key(Order.fields.operatorCatalogId, "operator_catalog_id"),
  customerPhone: Wire.key(Order.fields.customerPhone, "customer_phone"),
  note: Order.fields.note,
  items: Schema.Array(OrderItemResource),
  cart: Order.fields.cart,
  sourceMessageId: Wire.key(Order.fields.sourceMessageId, "operator_message_id"),
  acknowledgedAt: Wire.key(Schema.NullOr(Time.IsoDateTime), "acknowledged_at"),
  paymentReferenceId: Wire.key(Order.fields.paymentReferenceId, "payment_reference_id"),
  customerUpdates: Wire.key(
    Schema.Array(
      Schema.Struct({
        status: CustomerUpdate.fields.status,
        outcome: CustomerUpdate.fields.outcome,
        messageId: Wire.key(CustomerUpdate.fields.messageId, "message_id"),
        at: Time.IsoDateTime
      }).annotations({ identifier: "OrderCustomerUpdate" })
    ),
    "customer_updates"
  ),
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Order" })

/** What `GET /chat/orders/{id}/items` answers: a page of the items. */
export const OrderItems = Pagination.PageOf(OrderItemResource, "OrderItemList")

// ---------------------------------------------------------------------------------------
// requests

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** An idempotency key as the operator takes it: 1 to 255 characters. */
export const IdempotencyKey = Schema.String.pipe(Schema.filter((s) => (s.length > 0 && s.length <= 255) || "must be 1 to 255 characters"))

const PositiveInt = Schema.Number.pipe(
  Schema.filter((n) => (Number.isSafeInteger(n) && n > 0) || "must be a whole number above 0"),
  Schema.annotations({ jsonSchema: { type: "integer", minimum: 1 } })
)
const Quantity = Schema.Number.pipe(
  Schema.filter((n) => (Number.isSafeInteger(n) && n > 0 && n <= 10_000) || "must be a whole number from 1 to 10000"),
  Schema.annotations({ jsonSchema: { type: "integer", minimum: 1, maximum: 10000 } })
)
export { PositiveInt, Quantity }

/** `POST /chat/orders/{id}/acknowledge`: every field optional (no body at all is `{}`). */
export const Acknowledge = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  merchant_order_reference: Schema.optional(Schema.String.pipe(Schema.maxLength(255)))
}).annotations({ ...strict, identifier: "AcknowledgeOrder" })
export type Acknowledge = typeof Acknowledge.Type

/** `POST /chat/orders/acknowledge-batch`: up to 100 orders. */
export const AcknowledgeBatch = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  orders: Schema.Array(
    Schema.Struct({ id: Schema.String, merchant_order_reference: Schema.optional(Schema.String.pipe(Schema.maxLength(255))) }).annotations(strict)
  ).pipe(Schema.minItems(1), Schema.maxItems(100))
}).annotations({ ...strict, identifier: "AcknowledgeOrders" })
export type AcknowledgeBatch = typeof AcknowledgeBatch.Type

export const BatchOutcome = Schema.Literal("acknowledged", "already_acknowledged", "invalid_state", "not_found")
export type BatchOutcome = typeof BatchOutcome.Type

export const AcknowledgeBatchResult = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.String, result: BatchOutcome, status: Schema.optional(Status) }))
}).annotations({ identifier: "AcknowledgeOrdersResult" })
export type AcknowledgeBatchResult = typeof AcknowledgeBatchResult.Type

/** An item of a request, named by our item id or by its retailer id. */
export const ItemRef = { item_id: Schema.optional(Schema.String), retailer_id: Schema.optional(Schema.String) }

/** `PATCH /chat/orders/{id}/items`: new (lower) quantities; 0 removes an unshipped item. */
export const ModifyItems = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  items: Schema.Array(
    Schema.Struct({
      ...ItemRef,
      quantity: Schema.Number.pipe(
        Schema.filter((n) => (Number.isSafeInteger(n) && n >= 0) || "must be a whole number, 0 or more"),
        Schema.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
      )
    }).annotations(strict)
  ).pipe(Schema.minItems(1), Schema.maxItems(100))
}).annotations({ ...strict, identifier: "ModifyOrderItems" })
export type ModifyItems = typeof ModifyItems.Type

/** `POST /chat/sandbox/orders` (test keys only): the emulator sends this cart for the customer `phone`. */
export const SandboxOrder = Schema.Struct({
  phone: Schema.String,
  catalog_id: Schema.String,
  items: Schema.Array(Schema.Struct({ retailer_id: Schema.String, quantity: Quantity }).annotations(strict)).pipe(
    Schema.minItems(1),
    Schema.maxItems(100)
  ),
  note: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
}).annotations({ ...strict, identifier: "SandboxOrder" })
export type SandboxOrder = typeof SandboxOrder.Type

export const SandboxOrderAccepted = Schema.Struct({
  accepted: Schema.Literal(true),
  operator_message_id: Schema.String,
  order_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "SandboxOrderAccepted" })

/** `POST /chat/orders/{id}/payment-request`: the body is optional. */
export const PaymentRequest = Schema.Struct({ idempotency_key: Schema.optional(IdempotencyKey) }).annotations({
  ...strict,
  identifier: "PaymentRequest"
})
export type PaymentRequest = typeof PaymentRequest.Type

export const PaymentRequested = Schema.Struct({
  order_id: Schema.String,
  reference_id: Schema.String,
  message_id: Schema.String
}).annotations({ identifier: "PaymentRequested" })

/** `POST /chat/sandbox/payments` (test keys only): the emulator sends this payment status for the order's reference. */
export const SandboxPayment = Schema.Struct({
  order_id: Schema.String,
  status: Schema.Literal("captured", "failed", "pending"),
  amount: Schema.optional(PositiveInt),
  currency: Schema.optional(Currency)
}).annotations({ ...strict, identifier: "SandboxPayment" })
export type SandboxPayment = typeof SandboxPayment.Type

export const SandboxPaymentAccepted = Schema.Struct({ accepted: Schema.Literal(true), reference_id: Schema.String }).annotations({
  identifier: "SandboxPaymentAccepted"
})

/** Money as the API shows one figure: `{"amount": 1999, "currency": "USD"}`. */
export const Amount = Schema.Struct({ amount: Schema.Int, currency: Currency }).annotations({ identifier: "Amount" })
