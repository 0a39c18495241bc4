/**
 * The domain's `OrderOperator` over the Graph API's commerce order edges (GRAPH_API.md
 * §7.3, B.7): every write carries its `idempotency_key`, so it is retried like an idempotent
 * call; amounts go out as the operator's decimal text. Only the sandbox account has the
 * order API (the emulator); live WhatsApp carts are not Commerce Platform orders (§7.0).
 */
import { Money, OrderOperator, type Store } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { GraphApi } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

const decimal = (money: OrderOperator.OperatorMoney) => {
  const digits = Money.exponent(money.currency)
  return { amount: (money.amount / 10 ** digits).toFixed(digits), currency: money.currency }
}

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<OrderOperator.OrderOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const post = (account: Store.OperatorAccount, orderRef: string, edge: string, json: Record<string, unknown>) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      yield* Effect.mapError(
        api.run(Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, orderRef, edge), { json }), "idempotent"),
        Graph.toDomainError
      )
    })
  return OrderOperator.OrderOperator.of({
    hasOrderApi: (account) => account.kind === "sandbox",
    acknowledge: (account, orderRef, input) =>
      post(account, orderRef, "acknowledge_order", { idempotency_key: input.idempotencyKey, merchant_order_reference: input.merchantOrderReference }),
    refund: (account, orderRef, input) =>
      post(account, orderRef, "refunds", {
        idempotency_key: input.idempotencyKey,
        reason_code: input.reasonCode,
        ...(input.items.length > 0 ? { items: input.items.map((i) => ({ retailer_id: i.retailerId, item_refund_amount: decimal(i.amount) })) } : {}),
        ...(input.shipping !== null ? { shipping: { shipping_refund: decimal(input.shipping) } } : {}),
        ...(input.adjustment !== null ? { adjustment_amount: decimal(input.adjustment) } : {}),
        ...(input.returnId !== null ? { return_id: input.returnId } : {})
      }),
    cancel: (account, orderRef, input) =>
      post(account, orderRef, "cancellations", {
        idempotency_key: input.idempotencyKey,
        cancel_reason: { reason_code: input.reasonCode },
        restock_items: input.restockItems,
        items: input.items.map((i) => ({ retailer_id: i.retailerId, quantity: i.quantity }))
      }),
    ship: (account, orderRef, input) =>
      post(account, orderRef, "shipments", {
        idempotency_key: input.idempotencyKey,
        items: input.items.map((i) => ({ retailer_id: i.retailerId, quantity: i.quantity })),
        tracking_info: { carrier: input.carrier, tracking_number: input.trackingNumber },
        external_shipment_id: input.externalShipmentId
      }),
    updateShipment: (account, orderRef, input) =>
      post(account, orderRef, "update_shipment", {
        idempotency_key: input.idempotencyKey,
        external_shipment_id: input.externalShipmentId,
        tracking_info: { carrier: input.carrier, tracking_number: input.trackingNumber }
      })
  })
})

/** `OrderOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<OrderOperator.OrderOperator, never, GraphApi> = Layer.effect(OrderOperator.OrderOperator, make)
