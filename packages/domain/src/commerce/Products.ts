/**
 * Product routes (spec §4.2). A single write is checked with the operator's rules (a 400
 * naming the field), recorded here at once (`review_status: pending`) and sent to the
 * operator as a mirrored write (`ProductMirrors.ts`): an `items_batch` of one request,
 * outside any transaction, then a batch of one (`source: product`) whose verdict later sets
 * the review status and errors. The operator refusing the call undoes the local write and is
 * the answer. Beyond a handful of products, the batch route is the way: one call per item
 * spends the catalog's call quota.
 */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Mirror from "../shared/Mirror.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { accountFor } from "../stores/Store.js"
import { CatalogRepo } from "./CatalogRepo.js"
import * as Catalogs from "./Catalogs.js"
import * as Product from "./Product.js"
import { ProductRepo } from "./ProductRepo.js"
import * as ProductMirrors from "./ProductMirrors.js"
import * as ProductRules from "./ProductRules.js"

const RESOURCE = "product"

const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(ProductRepo, (repo) => Id.lookup(Product.ProductId, RESOURCE, id, (productId) => repo.find(tenant, productId)))

const checked = (method: ProductRules.Method, data: unknown) => {
  const result = ProductRules.check(method, data)
  return result.ok ? Effect.succeed(result.data) : Effect.fail(Errors.ValidationFailed.all(result.issues))
}

const caller = Effect.map(CurrentStore, ({ store, tenant }) => ({ tenant, account: accountFor(store, tenant.mode) }))

/** The catalog of a product (it exists while the product does: a catalog's delete takes its products). */
const catalogOf = (tenant: Tenant, product: Product.Product) =>
  Effect.flatMap(CatalogRepo, (repo) => repo.find(tenant, product.catalogId)).pipe(
    Effect.flatMap(Effect.mapError(() => new Errors.ResourceNotFound({ resource: RESOURCE, id: product.id })))
  )

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
    const { tenant, account } = yield* caller
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
    const repo = yield* ProductRepo
    yield* Mirror.run(ProductMirrors.create, {
      tenant,
      account,
      prepare: Effect.as(repo.insert(tenant, product), ProductMirrors.payloadOf(catalog, "CREATE", data, { after: product }))
    })
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
    const { tenant, account } = yield* caller
    const before = yield* lookup(tenant, id)
    const catalog = yield* catalogOf(tenant, before)
    const data = yield* checked("UPDATE", { ...patch, retailer_id: before.retailerId })
    const merged = ProductRules.complete({ ...Product.dataOf(before), ...data })
    if (merged.sale_price !== null && merged.sale_price >= merged.price)
      return yield* Effect.fail(Errors.ValidationFailed.of("sale_price", "must be below price"))
    const after: Product.Product = { ...before, ...Product.fieldsOf(merged), reviewStatus: "pending", errors: [], updatedAt: yield* Time.now }
    const repo = yield* ProductRepo
    yield* Mirror.run(ProductMirrors.update, {
      tenant,
      account,
      prepare: Effect.as(
        repo.apply(tenant, before.catalogId, { upserts: [after], deletes: [] }),
        ProductMirrors.payloadOf(catalog, "UPDATE", data, { before, after })
      )
    })
    return after
  })

/** `DELETE /chat/products/{id}`: gone here at once, and at the operator by a batch of one. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const product = yield* lookup(tenant, id)
    const catalog = yield* catalogOf(tenant, product)
    const repo = yield* ProductRepo
    yield* Mirror.run(ProductMirrors.remove, {
      tenant,
      account,
      prepare: Effect.gen(function* () {
        if (!(yield* repo.remove(tenant, product.id))) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id }))
        return ProductMirrors.payloadOf(catalog, "DELETE", { retailer_id: product.retailerId }, { before: product })
      })
    })
    return { id: product.id, deleted: true as const }
  })
