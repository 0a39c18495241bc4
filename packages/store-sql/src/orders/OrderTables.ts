/** The rows of orders and of their records (payments, refunds, cancellations, shipments, returns), with their column maps. */
import { Order } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface OrdersTable extends Columns.StampedRow {
  readonly id: string
  readonly store_id: string
  readonly mode: string
  readonly catalog_id: string | null
  readonly operator_catalog_id: string
  readonly source_message_id: string
  readonly customer_phone: string
  readonly note: string | null
  readonly status: string
  readonly payment_status: string
  readonly currency: string
  readonly total: number | string
  readonly captured: number | string
  readonly refunded: number | string
  /** JSON: the items. */
  readonly items: string
  /** JSON: the cart message's `order` object. */
  readonly cart: string
  readonly acknowledged_at: number | string | null
  readonly payment_reference_id: string | null
  readonly requested_amount: number | string | null
  /** JSON: the updates sent to the customer. */
  readonly customer_updates: string
}

/** One record of an order; `body` is the record as JSON, `status` and `record_key` are copied out for filters and uniqueness. */
export interface OrderRecordsTable extends Columns.StampedRow {
  readonly id: string
  readonly store_id: string
  readonly mode: string
  readonly order_id: string
  readonly kind: string
  readonly status: string | null
  readonly record_key: string | null
  readonly body: string
}

export interface OrderTables {
  readonly orders: OrdersTable
  readonly order_records: OrderRecordsTable
}

export const orderColumns = Columns.map<Order.Order, OrdersTable>("orders", {
  ...Columns.owned,
  catalogId: ["catalog_id", Columns.text],
  operatorCatalogId: ["operator_catalog_id", Columns.text],
  sourceMessageId: ["source_message_id", Columns.text],
  customerPhone: ["customer_phone", Columns.text],
  note: ["note", Columns.text],
  status: ["status", Columns.text],
  paymentStatus: ["payment_status", Columns.text],
  currency: ["currency", Columns.text],
  total: ["total", Columns.integer],
  captured: ["captured", Columns.integer],
  refunded: ["refunded", Columns.integer],
  items: ["items", Columns.json(Order.Order.fields.items)],
  cart: ["cart", Columns.json(Order.Order.fields.cart)],
  acknowledgedAt: ["acknowledged_at", Columns.nullable(Columns.epoch)],
  paymentReferenceId: ["payment_reference_id", Columns.text],
  requestedAmount: ["requested_amount", Columns.nullable(Columns.integer)],
  customerUpdates: ["customer_updates", Columns.json(Order.Order.fields.customerUpdates)],
  ...Columns.stamps
})

export const orderSelect = [
  "id",
  "store_id",
  "mode",
  "catalog_id",
  "operator_catalog_id",
  "source_message_id",
  "customer_phone",
  "note",
  "status",
  "payment_status",
  "currency",
  "total",
  "captured",
  "refunded",
  "items",
  "cart",
  "acknowledged_at",
  "payment_reference_id",
  "requested_amount",
  "customer_updates",
  "created_at",
  "updated_at"
] as const
