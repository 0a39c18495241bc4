/**
 * What the orders module contributes to the service (see `shared/Module.ts`): the operator
 * events it applies (a customer's cart message becomes an order; payment statuses pay
 * orders by our payment request's reference), one event at a time or a batch at a time (the
 * inbox's, `OrderBatches.ts`, with the same effect), and its caller events. Orders build on
 * commerce (catalogs and products).
 */
import * as Module from "../shared/Module.js"
import * as OrderBatches from "./OrderBatches.js"
import * as OrderEvents from "./OrderEvents.js"
import * as OrderPayments from "./OrderPayments.js"
import * as OrderUpdates from "./OrderUpdates.js"
import * as WhatsAppRefunds from "./WhatsAppRefunds.js"

export const module = Module.make({
  name: "orders",
  jobs: [OrderPayments.RequestOnCartJob, WhatsAppRefunds.RefundOutcomeJob],
  mirrors: [OrderUpdates.CustomerUpdates, OrderPayments.PaymentRequest, WhatsAppRefunds.WhatsAppRefund],
  operatorEvents: {
    InboundMessage: OrderEvents.onInboundMessage,
    // a status that lists refunds carries their outcomes; any other is the payment's own
    PaymentStatus: (store, kind, event) =>
      event.refunds.length > 0 ? WhatsAppRefunds.onRefundWebhook(store, kind, event) : OrderPayments.onPaymentStatus(store, kind, event)
  },
  operatorEventBatches: { InboundMessage: OrderBatches.onInboundMessages, PaymentStatus: OrderBatches.onPaymentStatuses },
  callerEvents: [
    "order.created",
    "order.acknowledged",
    "order.paid",
    "order.payment_mismatch",
    "order.cancelled",
    "order.refunded",
    "order.shipped",
    "order.completed",
    "shipment.updated",
    "return.requested",
    "return.updated"
  ]
})
