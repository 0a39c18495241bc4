/**
 * The domain's `CommerceOperator` over the Graph API (GRAPH_API.md §8): a phone number's
 * commerce settings (`GET|POST /{phone_number_id}/whatsapp_commerce_settings`, the settings as
 * query parameters, as the operator takes them), catalogs (§8.1), and a catalog's items
 * (§8.3): `POST /{catalog_id}/items_batch` (never retried: the caller paces it under the
 * catalog's quota and decides what to do with a refusal or a lost answer) and
 * `GET /{catalog_id}/check_batch_request_status` (a read, retried). Reads and idempotent
 * changes are retried by the shared `GraphApi`.
 */
import { CommerceOperator, type Store } from "@switchboard/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { GraphApi } from "./GraphApi.js"
import { decode, deleteObject, isUnknownObject, runDecoded } from "./internal/answers.js"
import * as Graph from "./internal/graph.js"

const SettingsAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({ is_cart_enabled: Schema.optional(Schema.Boolean), is_catalog_visible: Schema.optional(Schema.Boolean) }))
})

const OwnerAnswer = Schema.Struct({ owner_business_info: Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) }) })
const CreatedAnswer = Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) })
const PhoneAnswer = Schema.Struct({ status: Schema.optional(Schema.String), quality_rating: Schema.optional(Schema.String) })
const CatalogAnswer = Schema.Struct({ name: Schema.String })
const OwnedAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number), name: Schema.optional(Schema.String) })),
  paging: Schema.optional(
    Schema.Struct({
      cursors: Schema.optional(Schema.Struct({ after: Schema.optional(Schema.NullOr(Schema.String)) })),
      next: Schema.optional(Schema.String)
    })
  )
})
const HandlesAnswer = Schema.Struct({ handles: Schema.NonEmptyArray(Schema.String) })
const BatchStatusAnswer = Schema.Struct({
  data: Schema.NonEmptyArray(
    Schema.Struct({
      status: Schema.String,
      errors: Schema.optionalWith(
        Schema.Array(
          Schema.Struct({
            line: Schema.optional(Schema.Number),
            id: Schema.optional(Schema.String),
            message: Schema.optionalWith(Schema.String, { default: () => "" }),
            error_type: Schema.optional(Schema.String),
            error_priority: Schema.optional(Schema.String)
          })
        ),
        { default: () => [] }
      )
    })
  )
})

const ItemsAnswer = Schema.Struct({
  data: Schema.Array(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
      Schema.filter((r) => typeof r.retailer_id === "string" || "an item needs its retailer_id")
    )
  ),
  paging: Schema.optional(
    Schema.Struct({
      cursors: Schema.optional(Schema.Struct({ after: Schema.optional(Schema.NullOr(Schema.String)) })),
      next: Schema.optional(Schema.String)
    })
  )
})
const REVIEW: ReadonlySet<string> = new Set(["pending", "approved", "rejected", "outdated"])
/** Item fields that are the operator's bookkeeping, not the product's. */
const NOT_FIELDS: ReadonlySet<string> = new Set(["id", "retailer_id", "review_status", "errors"])

/** The operator's batch status: `finished` and `error` are final; anything else (`started`, `dispatched`) is in progress. */
const progressOf = (status: string): CommerceOperator.ItemsBatchProgress["status"] =>
  status === "finished" ? "finished" : status === "error" ? "error" : status === "dispatched" ? "dispatched" : "started"

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<CommerceOperator.CommerceOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const connect = (endpoint: Graph.Endpoint, account: Store.OperatorAccount, catalogId: string, connected: boolean) =>
    Effect.mapError(
      api.run(
        Graph.request(endpoint, connected ? "POST" : "DELETE", Graph.graphUrl(endpoint, account.wabaId, "product_catalogs"), {
          query: { catalog_id: catalogId }
        }),
        "idempotent"
      ),
      Graph.toDomainError
    ).pipe(Effect.asVoid)
  /** The business that owns the account's WABA: catalogs are the business's, not the WABA's. */
  const ownerOf = (endpoint: Graph.Endpoint, account: Store.OperatorAccount) =>
    runDecoded(
      api,
      Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, account.wabaId), { query: { fields: "owner_business_info" } }),
      "idempotent",
      Graph.toUnavailable,
      OwnerAnswer,
      "business account"
    )
  const url = (endpoint: Graph.Endpoint, account: Store.OperatorAccount) =>
    Graph.graphUrl(endpoint, account.phoneNumberId, "whatsapp_commerce_settings")
  return CommerceOperator.CommerceOperator.of({
    getCommerceSettings: (account) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", url(endpoint, account))
        const first = (yield* runDecoded(api, read, "idempotent", Graph.toUnavailable, SettingsAnswer, "commerce settings")).data[0]
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
      }),

    createCatalog: (account, name) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const owner = yield* ownerOf(endpoint, account)
        const creation = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, String(owner.owner_business_info.id), "owned_product_catalogs"), {
          json: { name, vertical: "commerce" }
        })
        const created = yield* runDecoded(api, creation, "write", Graph.toDomainError, CreatedAnswer, "catalog creation")
        const id = String(created.id)
        yield* connect(endpoint, account, id, true)
        return id
      }),

    findCatalog: (account, operatorCatalogId) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, operatorCatalogId), { query: { fields: "id,name" } })
        const answer = yield* api.run(read, "idempotent").pipe(
          Effect.map(Option.some),
          Effect.catchAll((failure) => (isUnknownObject(failure) ? Effect.succeed(Option.none()) : Effect.fail(Graph.toUnavailable(failure))))
        )
        if (Option.isNone(answer)) return Option.none()
        return Option.some(yield* decode(CatalogAnswer, "catalog")(answer.value.body))
      }),

    findOwnedCatalogs: (account, name) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const owner = yield* ownerOf(endpoint, account)
        const found: Array<string> = []
        let after: string | undefined
        // the edge pages by cursor (GRAPH_API.md §1.2) and has no filter by name: every page is read
        do {
          const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, String(owner.owner_business_info.id), "owned_product_catalogs"), {
            query: { fields: "id,name", limit: "100", ...(after === undefined ? {} : { after }) }
          })
          const page = yield* runDecoded(api, read, "idempotent", Graph.toUnavailable, OwnedAnswer, "owned catalogs")
          for (const c of page.data) if (c.name === name) found.push(String(c.id))
          after = page.paging?.next !== undefined ? (page.paging.cursors?.after ?? undefined) : undefined
        } while (after !== undefined)
        return found.sort((x, y) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0))
      }),

    connectCatalog: (account, operatorCatalogId, connected) =>
      Effect.flatMap(api.endpointFor(account), (endpoint) => connect(endpoint, account, operatorCatalogId, connected)),

    renameCatalog: (account, operatorCatalogId, name) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        yield* Effect.mapError(
          api.run(Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, operatorCatalogId), { json: { name } }), "idempotent"),
          Graph.toDomainError
        )
      }),

    phoneStanding: (account) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, account.phoneNumberId), { query: { fields: "status,quality_rating" } })
        const phone = yield* runDecoded(api, read, "idempotent", Graph.toUnavailable, PhoneAnswer, "phone number")
        return { status: phone.status ?? "UNKNOWN", qualityRating: phone.quality_rating ?? "UNKNOWN" }
      }),

    submitItems: (account, operatorCatalogId, requests, allowUpsert) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const call = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, operatorCatalogId, "items_batch"), {
          json: { item_type: "PRODUCT_ITEM", allow_upsert: allowUpsert, requests }
        })
        const answer = yield* runDecoded(api, call, "paced", Graph.toDomainError, HandlesAnswer, "items_batch")
        return answer.handles[0]
      }),

    itemsBatchStatus: (account, operatorCatalogId, handle) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, operatorCatalogId, "check_batch_request_status"), {
          query: { handle, load_ids_of_invalid_requests: "true" }
        })
        const answer = yield* runDecoded(api, read, "idempotent", Graph.toUnavailable, BatchStatusAnswer, "batch status")
        const first = answer.data[0]
        return {
          status: progressOf(first.status),
          issues: first.errors.map((e, i) => ({
            line: e.line ?? i,
            retailerId: e.id ?? "",
            type: e.error_type ?? "ERROR",
            severity: e.error_priority === "HIGH" || e.error_priority === undefined ? ("MUST_FIX" as const) : ("OPPORTUNITY" as const),
            message: e.message
          }))
        }
      }),

    listItems: (account, operatorCatalogId, after) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, operatorCatalogId, "products"), {
          query: {
            limit: "1000",
            fields:
              "id,retailer_id,name,description,price,sale_price,currency,availability,condition,image_url,url,brand,category,inventory,visibility,review_status,errors",
            ...(after === undefined ? {} : { after })
          }
        })
        const answer = yield* runDecoded(api, read, "idempotent", Graph.toUnavailable, ItemsAnswer, "catalog products")
        const items = answer.data.map((raw) => {
          const fields: Record<string, unknown> = {}
          for (const [k, v] of Object.entries(raw)) if (!NOT_FIELDS.has(k)) fields[k] = v
          const review = typeof raw.review_status === "string" && REVIEW.has(raw.review_status) ? raw.review_status : "pending"
          const errors = Array.isArray(raw.errors)
            ? raw.errors.map((e: any) => ({ type: String(e?.error_type ?? "ERROR"), message: String(e?.description ?? e?.title ?? "") }))
            : []
          return { retailerId: raw.retailer_id as string, fields, reviewStatus: review as "pending" | "approved" | "rejected" | "outdated", errors }
        })
        return { items, next: answer.paging?.next !== undefined ? (answer.paging.cursors?.after ?? undefined) : undefined }
      }),

    deleteCatalog: (account, operatorCatalogId) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        yield* deleteObject(api, endpoint, operatorCatalogId)
      })
  })
})

/** `CommerceOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<CommerceOperator.CommerceOperator, never, GraphApi> = Layer.effect(CommerceOperator.CommerceOperator, make)
