/**
 * The domain's `CommerceOperator` over the Graph API (GRAPH_API.md §8.1):
 * `GET|POST /{phone_number_id}/whatsapp_commerce_settings`. Both are idempotent requests on
 * the shared `GraphApi` (retried there); the settings go as query parameters, as the
 * operator takes them.
 */
import { CommerceOperator, type Store } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import { GraphApi } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

const SettingsAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({ is_cart_enabled: Schema.optional(Schema.Boolean), is_catalog_visible: Schema.optional(Schema.Boolean) }))
})

const decodeSettings = (body: unknown) =>
  Schema.decodeUnknown(SettingsAnswer)(body).pipe(
    Effect.mapError(() => Graph.unavailable({ kind: "unreachable", reason: "the operator's commerce settings answer has an unexpected shape" }))
  )

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<CommerceOperator.CommerceOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const url = (endpoint: Graph.Endpoint, account: Store.OperatorAccount) =>
    Graph.graphUrl(endpoint, account.phoneNumberId, "whatsapp_commerce_settings")
  return CommerceOperator.CommerceOperator.of({
    getCommerceSettings: (account) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const answer = yield* Effect.mapError(api.run(Graph.request(endpoint, "GET", url(endpoint, account)), "idempotent"), Graph.toUnavailable)
        const first = (yield* decodeSettings(answer.body)).data[0]
        // a number nobody configured has the operator's defaults: the cart on, the catalog hidden
        return { isCartEnabled: first?.is_cart_enabled ?? true, isCatalogVisible: first?.is_catalog_visible ?? false }
      }),
    setCommerceSettings: (account, patch) =>
      Effect.gen(function* () {
        const query: Record<string, string> = {}
        if (patch.isCartEnabled !== undefined) query.is_cart_enabled = String(patch.isCartEnabled)
        if (patch.isCatalogVisible !== undefined) query.is_catalog_visible = String(patch.isCatalogVisible)
        if (Object.keys(query).length === 0) return
        const endpoint = yield* api.endpointFor(account)
        yield* Effect.mapError(api.run(Graph.request(endpoint, "POST", url(endpoint, account), { query }), "idempotent"), Graph.toDomainError)
      })
  })
})

/** `CommerceOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<CommerceOperator.CommerceOperator, never, GraphApi> = Layer.effect(CommerceOperator.CommerceOperator, make)
