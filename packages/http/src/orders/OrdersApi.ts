/**
 * Order routes (spec §4.3): list (by `status`, `payment_status`, `created_after` /
 * `created_before`), read, items (read, modify), payments, acknowledge (one, or up to 100),
 * and the sandbox's cart (test keys only). An order id of another store or mode answers 404
 * `resource_not_found` exactly as an unknown one.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Order, OrderRecord, Pagination, Time } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"
export const orderExample = {
  id: "ord_01M85GK8TB3E8BH2R1WY18AD8X",
  status: "pending",
  payment_status: "paid",
  currency: "USD",
  total: 9800,
  amount_captured: 9800,
  amount_refunded: 0,
  catalog_id: "cat_01M85GK8TB3E8BH2R1WY18AD8X",
  operator_catalog_id: "1234567890",
  customer_phone: "+15551230099",
  note: null,
  items: [
    {
      id: "oit_01M85GK8TB3E8BH2R1WY18AD8Y",
      retailer_id: "SKU-1001",
      product_id: "prd_01M85GM2Q4W8X8D6V7E4T3R2B1",
      name: "Linen shirt",
      quantity: 2,
      unit_price: 4900,
      catalog_price: 4900,
      price_mismatch: false,
      shipped_quantity: 0,
      cancelled_quantity: 0,
      returned_quantity: 0
    }
  ],
  cart: { catalog_id: "1234567890", text: "", product_items: [{ product_retailer_id: "SKU-1001", quantity: 2, item_price: 49, currency: "USD" }] },
  operator_message_id: "wamid.HBgLMTU1NTEyMzAwOTkVAgASGBQzRUIwQTk2",
  acknowledged_at: null,
  payment_reference_id: "ord_01M85GK8TB3E8BH2R1WY18AD8X",
  customer_updates: [{ status: "processing", outcome: "sent", message_id: "msg_01M85GK8TB3E8BH2R1WY18AD8Q", at: time }],
  created_at: time,
  updated_at: time
}
const payment = {
  id: "pay_01M85GK8TB3E8BH2R1WY18AD8Z",
  order_id: orderExample.id,
  status: "captured",
  amount: 9800,
  currency: "USD",
  transaction_id: "txn_5550123",
  error: null,
  created_at: time
}

const ListOrders = Pagination.ListParams(Order.OrderId.schema, {
  status: Schema.optional(Order.Status),
  payment_status: Schema.optional(Order.PaymentStatus),
  created_after: Schema.optional(Time.IsoDateTime),
  created_before: Schema.optional(Time.IsoDateTime)
})

export class OrdersGroup extends HttpApiGroup.make("orders")
  .add(HttpApiEndpoint.get("list", "/orders").setUrlParams(ListOrders).addSuccess(Pagination.PageOf(Order.OrderResource, "OrderPage")))
  .add(
    HttpApiEndpoint.post("acknowledgeBatch", "/orders/acknowledge-batch")
      .setPayload(Order.AcknowledgeBatch)
      .addSuccess(Order.AcknowledgeBatchResult)
      .pipe(ApiError.withErrors(ApiError.IdempotencyKeyReused, ApiError.IdempotencyKeyInUse, ...ApiError.operatorErrors))
  )
  .add(Endpoints.getOne("get", "/orders/:id", Order.OrderResource))
  .add(
    HttpApiEndpoint.get("items", "/orders/:id/items")
      .setPath(IdPath)
      .setUrlParams(Pagination.ListParams(Order.OrderItemId.schema, {}))
      .addSuccess(Order.OrderItems)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    Endpoints.update("modifyItems", "/orders/:id/items", Order.ModifyItems, Order.OrderResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ...ApiError.operatorErrors
    ])
  )
  .add(Endpoints.listOf("payments", "/orders/:id/payments", OrderRecord.PaymentId.schema, {}, OrderRecord.PaymentResource, "PaymentList"))
  .add(
    HttpApiEndpoint.post("acknowledge", "/orders/:id/acknowledge")
      .setPath(IdPath)
      .setPayload(Order.Acknowledge)
      .addSuccess(Order.OrderResource)
      .pipe(
        ApiError.withErrors(
          ApiError.ResourceNotFound,
          ApiError.InvalidState,
          ApiError.IdempotencyKeyReused,
          ApiError.IdempotencyKeyInUse,
          ...ApiError.operatorErrors
        )
      )
  )
  .add(
    HttpApiEndpoint.post("paymentRequest", "/orders/:id/payment-request")
      .setPath(IdPath)
      .setPayload(Order.PaymentRequest)
      .addSuccess(Order.PaymentRequested, { status: 202 })
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
      .addError(ApiError.PaymentsNotConfigured)
      .addError(ApiError.OutsideCustomerWindow)
      .addError(ApiError.RecipientOptedOut)
      .addError(ApiError.IdempotencyKeyReused)
      .addError(ApiError.IdempotencyKeyInUse)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    Endpoints.accepted("sandboxPayment", "/sandbox/payments", Order.SandboxPayment, Order.SandboxPaymentAccepted, [
      ApiError.Forbidden,
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ApiError.OperatorUnavailable
    ])
  )
  .add(
    Endpoints.accepted("sandbox", "/sandbox/orders", Order.SandboxOrder, Order.SandboxOrderAccepted, [
      ApiError.Forbidden,
      ApiError.ResourceNotFound,
      ApiError.OperatorUnavailable
    ])
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { orders: "Orders from the customers' carts: acknowledgement, items, payments" },
    ids: { orders: orderExample.id },
    operations: {
      "orders.list": { summary: "List orders", response: { data: [orderExample], next_cursor: null } },
      "orders.get": { summary: "Get an order", response: orderExample },
      "orders.items": { summary: "Get an order's items", response: { data: orderExample.items, next_cursor: null } },
      "orders.modifyItems": {
        summary: "Lower quantities or remove unshipped items",
        description:
          "Only lowers quantities (0 removes an item) of what has not shipped; the paid value of a reduction is refunded. An increase is a 400.",
        request: { items: [{ retailer_id: "SKU-1001", quantity: 1 }] },
        response: {
          ...orderExample,
          total: 4900,
          amount_refunded: 4900,
          payment_status: "partially_refunded",
          items: [{ ...orderExample.items[0], quantity: 1 }]
        }
      },
      "orders.payments": { summary: "Get an order's payments", response: { data: [payment], next_cursor: null } },
      "orders.acknowledge": {
        summary: "Acknowledge an order",
        description:
          "Moves a `pending` order to `in_progress`; an order already acknowledged answers 200 as it is. The body is optional. `idempotency_key` (optional) is the request's idempotency key, exactly as the `Idempotency-Key` header: a replay answers as the first time (`idempotent-replayed: true`); the same key with another body is 422.",
        request: { idempotency_key: "ack-7f3a" },
        response: { ...orderExample, status: "in_progress", acknowledged_at: time }
      },
      "orders.acknowledgeBatch": {
        summary: "Acknowledge up to 100 orders",
        request: { idempotency_key: "ack-batch-1", orders: [{ id: orderExample.id }] },
        response: { data: [{ id: orderExample.id, result: "acknowledged", status: "in_progress" }] }
      },
      "orders.paymentRequest": {
        summary: "Ask the customer to pay (order_details)",
        description:
          "Sends the customer an interactive `order_details` message built from the order (items, amounts, currency, the store's payment settings) with our `reference_id`; payment status webhooks name that reference. Needs the store's `payments` settings (409 `payments_not_configured`) and an open customer window (409 `outside_customer_window`). Payments exist in India (`upi`) and Brazil (`br`).",
        request: {},
        response: { order_id: orderExample.id, reference_id: orderExample.id, message_id: "msg_01M85GK8TB3E8BH2R1WY18AD8Q" }
      },
      "orders.sandboxPayment": {
        summary: "Send a sandbox payment status (test keys)",
        description:
          "The emulator sends the operator's payment status webhook for the order's payment request reference: `status`, and `amount` (minor units) and `currency`, by default what was requested.",
        request: { order_id: orderExample.id, status: "captured" },
        response: { accepted: true, reference_id: orderExample.id }
      },
      "orders.sandbox": {
        summary: "Place a sandbox order (test keys)",
        description:
          "The emulator sends the customer's cart of the catalog at its prices. A cart is not paid by itself: send a payment request (`POST /chat/orders/{id}/payment-request`); the sandbox customer then pays by the number rules (0003 fails, 0007 pays a wrong amount, any other pays).",
        request: { phone: "+15551230099", catalog_id: orderExample.catalog_id, items: [{ retailer_id: "SKU-1001", quantity: 2 }] },
        response: { accepted: true, operator_message_id: orderExample.operator_message_id, order_id: orderExample.id }
      }
    }
  }) {}
