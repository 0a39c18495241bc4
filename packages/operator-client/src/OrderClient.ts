/**
 * The domain's `OrderOperator` over the Graph API: the Payments API's refund call,
 * `POST /{PHONE_NUMBER_ID}/payments_refund` (GRAPH_API.md §7.6). It carries our idempotency
 * key, so it is retried like an idempotent call.
 */
import { OrderOperator, type Store } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import { GraphApi } from "./GraphApi.js"
import { decode } from "./internal/answers.js"
import * as Graph from "./internal/graph.js"

const RefundAnswer = Schema.Struct({ id: Schema.String, status: Schema.optional(Schema.String) })

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<OrderOperator.OrderOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) =>
  OrderOperator.OrderOperator.of({
    refundPayment: (account: Store.OperatorAccount, input) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const answer = yield* Effect.mapError(
          api.run(
            Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.phoneNumberId, "payments_refund"), {
              json: {
                reference_id: input.referenceId,
                speed: "normal",
                payment_config_id: input.paymentConfigId,
                amount: { value: input.amount.value, offset: input.amount.offset, currency: input.currency },
                idempotency_key: input.idempotencyKey
              }
            }),
            "idempotent"
          ),
          Graph.toDomainError
        )
        const body = yield* decode(RefundAnswer, "refund")(answer.body)
        return { refundId: body.id, status: body.status ?? "pending" }
      })
  })
)

/** `OrderOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<OrderOperator.OrderOperator, never, GraphApi> = Layer.effect(OrderOperator.OrderOperator, make)
