/**
 * Refund and cancellation routes (spec §4.4): an order's refunds (list, create, read one),
 * its refundable amount, and its cancellations (list, create, read one). A refund above the
 * refundable amount answers 422 `refund_exceeds_refundable` with the current figure in
 * `details`. An order, refund or cancellation id of another store, mode or order answers
 * 404 `resource_not_found` exactly as an unknown one.
 */
import { HttpApiGroup } from "@effect/platform"
import { OrderRecord } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"
import { orderExample } from "./OrdersApi.js"

const time = "2026-05-04T10:30:00.000Z"
const refund = {
  id: "rfd_01M85GK8TB3E8BH2R1WY18AD90",
  order_id: orderExample.id,
  amount: 4900,
  currency: "USD",
  reason_code: "DAMAGED_GOODS",
  status: "completed",
  channel: "external",
  reason_text: null,
  items: [],
  shipping_amount: 0,
  return_id: null,
  cancellation_id: null,
  idempotency_key: "refund-1",
  created_at: time
}
const cancellation = {
  id: "ccl_01M85GK8TB3E8BH2R1WY18AD91",
  order_id: orderExample.id,
  reason_code: "OUT_OF_STOCK",
  reason_description: null,
  restock_items: true,
  items: [{ item_id: orderExample.items[0].id, retailer_id: "SKU-1001", quantity: 1 }],
  refund_id: "rfd_01M85GK8TB3E8BH2R1WY18AD92",
  refund_amount: 4900,
  created_at: time
}

const RefundPath = Schema.Struct({ id: Schema.String, refundId: Schema.String })
const CancellationPath = Schema.Struct({ id: Schema.String, cancellationId: Schema.String })

export class RefundsGroup extends HttpApiGroup.make("refunds")
  .add(Endpoints.listOf("list", "/orders/:id/refunds", OrderRecord.RefundId.schema, {}, OrderRecord.RefundResource, "RefundPage"))
  .add(
    Endpoints.createIn("create", "/orders/:id/refunds", OrderRecord.CreateRefund, OrderRecord.RefundResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ApiError.RefundExceedsRefundable,
      ApiError.IdempotencyKeyReused,
      ...ApiError.operatorErrors
    ])
  )
  .add(Endpoints.getOne("get", "/orders/:id/refunds/:refundId", OrderRecord.RefundResource, RefundPath))
  .add(Endpoints.getOne("refundableAmount", "/orders/:id/refundable-amount", OrderRecord.RefundableAmount))
  .add(
    Endpoints.listOf(
      "listCancellations",
      "/orders/:id/cancellations",
      OrderRecord.CancellationId.schema,
      {},
      OrderRecord.CancellationResource,
      "CancellationPage"
    )
  )
  .add(
    Endpoints.createIn("createCancellation", "/orders/:id/cancellations", OrderRecord.CreateCancellation, OrderRecord.CancellationResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ApiError.IdempotencyKeyReused,
      ...ApiError.operatorErrors
    ])
  )
  .add(Endpoints.getOne("getCancellation", "/orders/:id/cancellations/:cancellationId", OrderRecord.CancellationResource, CancellationPath))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { refunds: "Refunds (never above the refundable amount) and cancellations of unshipped items" },
    operations: {
      "refunds.list": { summary: "List an order's refunds", response: { data: [refund], next_cursor: null } },
      "refunds.create": {
        summary: "Refund an order",
        description:
          "Names items (`quantity` at the unit price, or `amount`), `shipping_amount` and/or an `amount`: the refund is their sum, in minor units. Above the refundable amount it is 422 `refund_exceeds_refundable` with the current figure. `return_id` ties it to a return, which becomes `REFUNDED`.",
        request: { idempotency_key: "refund-1", reason_code: "DAMAGED_GOODS", amount: 4900 },
        response: refund
      },
      "refunds.get": { summary: "Get a refund", response: refund },
      "refunds.refundableAmount": {
        summary: "Get the refundable amount",
        description: "Captured payments − refunds issued (those of cancellations included), in minor units.",
        response: { amount: 4900, currency: "USD" }
      },
      "refunds.listCancellations": { summary: "List an order's cancellations", response: { data: [cancellation], next_cursor: null } },
      "refunds.createCancellation": {
        summary: "Cancel unshipped items",
        description:
          "Without `items`, everything unshipped. The paid value of what is cancelled is refunded at once, as a refund tied to the cancellation.",
        request: { reason_code: "OUT_OF_STOCK", restock_items: true, items: [{ retailer_id: "SKU-1001", quantity: 1 }] },
        response: cancellation
      },
      "refunds.getCancellation": { summary: "Get a cancellation", response: cancellation }
    }
  }) {}
