/**
 * Product routes (spec §4.2). A single write is checked with the operator's rules (a 400
 * naming the field), recorded here at once (`review_status: pending`), and carried to the
 * operator as a batch of one (`source: product`), whose verdict later sets the review status
 * and errors. Beyond a handful of products, the batch route is the way: one call per item
 * spends the catalog's call quota.
 */
import { Effect } from "effect"
import { inTransaction } from "../jobs/Transactor.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Batches from "./Batches.js"
import type { CatalogId } from "./Catalog.js"
import * as Catalogs from "./Catalogs.js"
import * as Product from "./Product.js"
import { ProductRepo } from "./ProductRepo.js"
import * as ProductRules from "./ProductRules.js"

const RESOURCE = "product"

const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(ProductRepo, (repo) => Id.lookup(Product.ProductId, RESOURCE, id, (productId) => repo.find(tenant, productId)))

const checked = (method: ProductRules.Method, data: unknown) => {
  const result = ProductRules.check(method, data)
  return result.ok ? Effect.succeed(result.data) : Effect.fail(Errors.ValidationFailed.all(result.issues))
}

/** Carries one write to the operator. */
const carry = (
  tenant: Tenant,
  catalogId: CatalogId,
  method: ProductRules.Method,
  data: Partial<Product.ProductData> & { readonly retailer_id: string }
) => Batches.queue(tenant, catalogId, { source: "product", allowUpsert: true, total: 1, requests: [{ index: 0, method, data }], errors: [] })

/** `GET /chat/catalogs/{id}/products`: by id, filtered by `availability`, `review_status`, `has_errors`, `retailer_id`. */
export const list = (
  catalogId: string,
  query: {
    readonly limit: number
    readonly cursor?: Product.ProductId | undefined
    readonly availability?: Product.Availability | undefined
    readonly review_status?: Product.ReviewStatus | undefined
    readonly has_errors?: boolean | undefined
    readonly retailer_id?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const slice = yield* (yield* ProductRepo).list(
      tenant,
      catalog.id,
      { availability: query.availability, reviewStatus: query.review_status, hasErrors: query.has_errors, retailerId: query.retailer_id },
      { limit: query.limit, after: query.cursor }
    )
    return Pagination.pageOf(slice, Product.ProductId.schema, (p) => p.id)
  })

/** `POST /chat/catalogs/{id}/products`: 201 with the product, pending the operator's review. */
export const create = (catalogId: string, body: typeof Product.ProductInput.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const data = yield* checked("CREATE", body)
    const now = yield* Time.now
    const product: Product.Product = {
      id: yield* Product.ProductId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      catalogId: catalog.id,
      ...Product.fieldsOf(ProductRules.complete(data)),
      reviewStatus: "pending",
      errors: [],
      createdAt: now,
      updatedAt: now
    }
    yield* inTransaction(Effect.zipRight((yield* ProductRepo).insert(tenant, product), carry(tenant, catalog.id, "CREATE", data)))
    return product
  })

/** `GET /chat/products/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** The position of a product's error in its list: its place (`seq:<n>` in the cursor). */
export const ErrorPosition = Pagination.Sequence("product error")

/** `GET /chat/products/{id}/errors`: a page of what the operator (last) found wrong with it. */
export const errors = (id: string, query: { readonly limit: number; readonly cursor?: number | undefined }) =>
  Effect.map(get(id), (p) => {
    const page = Pagination.pageOfAll(
      p.errors.map((error, place) => ({ error, place })),
      query,
      ErrorPosition,
      (e) => e.place
    )
    return { data: page.data.map((e) => e.error), next_cursor: page.next_cursor }
  })

/** `PATCH /chat/products/{id}`: the fields given change; the product is pending review again. */
export const update = (id: string, patch: typeof Product.ProductPatch.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const before = yield* lookup(tenant, id)
    const data = yield* checked("UPDATE", { ...patch, retailer_id: before.retailerId })
    const merged = ProductRules.complete({ ...Product.dataOf(before), ...data })
    if (merged.sale_price !== null && merged.sale_price >= merged.price)
      return yield* Effect.fail(Errors.ValidationFailed.of("sale_price", "must be below price"))
    const after: Product.Product = { ...before, ...Product.fieldsOf(merged), reviewStatus: "pending", errors: [], updatedAt: yield* Time.now }
    yield* inTransaction(
      Effect.zipRight(
        (yield* ProductRepo).apply(tenant, before.catalogId, { upserts: [after], deletes: [] }),
        carry(tenant, before.catalogId, "UPDATE", data)
      )
    )
    return after
  })

/** `DELETE /chat/products/{id}`: gone here at once, and at the operator by a batch of one. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const product = yield* lookup(tenant, id)
    const repo = yield* ProductRepo
    yield* inTransaction(
      Effect.gen(function* () {
        if (!(yield* repo.remove(tenant, product.id))) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id }))
        yield* carry(tenant, product.catalogId, "DELETE", { retailer_id: product.retailerId })
      })
    )
    return { id: product.id, deleted: true as const }
  })
