/**
 * A catalog's standing at the operator (spec §4.1): the sync that pushes every product
 * again, and what the operator rejected, read as diagnostics (grouped by the operator's
 * type and severity, GRAPH_API.md §8.5) or as the list of every product error.
 */
import { Effect, ParseResult, Schema } from "effect"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Batches from "./Batches.js"
import { CatalogId } from "./Catalog.js"
import * as Catalogs from "./Catalogs.js"
import * as Product from "./Product.js"
import * as ProductBatch from "./ProductBatch.js"
import { ProductRepo } from "./ProductRepo.js"

/** A sync as the API shows it: a batch of the whole catalog. */
export const SyncResource = Schema.Struct({
  id: ProductBatch.ProductBatchId.schema,
  catalog_id: CatalogId.schema,
  status: ProductBatch.Status,
  total: Schema.Number,
  processed: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  created_at: Time.IsoDateTime,
  finished_at: Schema.NullOr(Time.IsoDateTime)
}).annotations({ identifier: "CatalogSync" })

const syncOf = (b: ProductBatch.ProductBatch): typeof SyncResource.Type => ({
  id: b.id,
  catalog_id: b.catalogId,
  status: b.status,
  total: b.total,
  processed: b.processed,
  succeeded: b.succeeded,
  failed: b.failed,
  created_at: b.createdAt,
  finished_at: b.finishedAt
})

/** `POST /chat/catalogs/{id}/sync`: 202 once every product is queued (as UPDATEs, through the batch path). */
export const sync = (catalogId: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const products = yield* (yield* ProductRepo).all(tenant, catalog.id)
    const requests = products.map((p, index): ProductBatch.ChunkRequest => ({ index, method: "UPDATE", data: Product.dataOf(p) }))
    const batch = yield* Batches.queue(tenant, catalog.id, { source: "sync", allowUpsert: true, total: requests.length, requests, errors: [] })
    return syncOf(batch)
  })

/** `GET /chat/catalogs/{id}/syncs/{syncId}`. */
export const getSync = (catalogId: string, syncId: string) => Effect.map(Batches.findSync(catalogId, syncId), syncOf)

export const DiagnosticsResource = Schema.Struct({
  catalog_id: CatalogId.schema,
  products: Schema.Number.annotations({ description: "Products in the catalog" }),
  products_with_errors: Schema.Number,
  groups: Schema.Array(
    Schema.Struct({
      type: Schema.String.annotations({ description: "The operator's diagnostics type: IMAGE_QUALITY, POLICY_VIOLATION, ATTRIBUTES_MISSING, ..." }),
      severity: Product.Severity,
      affected_products: Schema.Number
    })
  )
}).annotations({ identifier: "CatalogDiagnostics" })

/** `GET /chat/catalogs/{id}/diagnostics`. */
export const diagnostics = (catalogId: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const repo = yield* ProductRepo
    const groups = yield* repo.diagnostics(tenant, catalog.id)
    return {
      catalog_id: catalog.id,
      products: yield* repo.count(tenant, catalog.id),
      products_with_errors: yield* repo.countWithErrors(tenant, catalog.id),
      groups: groups.map((g) => ({ type: g.type, severity: g.severity, affected_products: g.products }))
    }
  })

/** The position of a product error in the catalog's list: `<n>:<retailer id>` inside the cursor. */
export const ErrorPosition: Schema.Schema<{ readonly retailerId: string; readonly n: number }, string> = Schema.transformOrFail(
  Schema.String,
  Schema.Struct({ retailerId: Schema.String, n: Schema.Int }),
  {
    strict: true,
    decode: (text, _, ast) => {
      const m = /^(\d{1,6}):(.+)$/s.exec(text)
      return m === null
        ? ParseResult.fail(new ParseResult.Type(ast, text, "is not an error position"))
        : ParseResult.succeed({ n: Number(m[1]), retailerId: m[2] })
    },
    encode: (p) => ParseResult.succeed(`${p.n}:${p.retailerId}`)
  }
)

export const CatalogErrorResource = Schema.Struct({
  product_id: Product.ProductId.schema,
  retailer_id: Schema.String,
  type: Schema.String,
  severity: Product.Severity,
  code: Schema.String,
  message: Schema.String
}).annotations({ identifier: "CatalogProductError" })

export const ErrorFilters = { severity: Schema.optional(Product.Severity), type: Schema.optional(Schema.String) }

/** `GET /chat/catalogs/{id}/errors`: every product error of the catalog, paged, by `severity` and `type`. */
export const errors = (
  catalogId: string,
  query: {
    readonly limit: number
    readonly cursor?: { readonly retailerId: string; readonly n: number } | undefined
    readonly severity?: Product.ProductError["severity"] | undefined
    readonly type?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const slice = yield* (yield* ProductRepo).errors(
      tenant,
      catalog.id,
      { severity: query.severity, type: query.type },
      { limit: query.limit, after: query.cursor }
    )
    const page = Pagination.pageOf(slice, ErrorPosition, (e) => ({ retailerId: e.retailerId, n: e.n }))
    return {
      data: page.data.map((e) => ({
        product_id: e.productId,
        retailer_id: e.retailerId,
        type: e.type,
        severity: e.severity,
        code: e.code,
        message: e.message
      })),
      next_cursor: page.next_cursor
    }
  })
