/**
 * Catalog routes (spec §4.1). Every change is made at the operator first (on the tenant's
 * account: the sandbox for test keys) and recorded once the operator took it; a refusal is
 * `OperatorRejected`, an unreachable operator `OperatorUnavailable`, and then nothing
 * changed here.
 *
 * Deleting a created catalog deletes it at the operator; deleting a connected one only
 * disconnects it from the WhatsApp business account (the catalog is the business's, not
 * ours) and forgets it here.
 */
import { Effect, Option } from "effect"
import { inTransaction } from "../jobs/Transactor.js"
import { CommerceOperator } from "./CommerceOperator.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { accountFor, type OperatorAccount } from "../stores/Store.js"
import * as Catalog from "./Catalog.js"
import { BatchRepo } from "./BatchRepo.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { FeedRepo } from "./FeedRepo.js"
import * as Product from "./Product.js"
import { ProductRepo } from "./ProductRepo.js"
import * as ProductRules from "./ProductRules.js"

const RESOURCE = "catalog"

/** The tenant's catalog `id`; 404 `resource_not_found` for a malformed id, another tenant's or an unknown one. */
export const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(CatalogRepo, (repo) => Id.lookup(Catalog.CatalogId, RESOURCE, id, (catalogId) => repo.find(tenant, catalogId)))

const caller = Effect.map(CurrentStore, ({ store, tenant }) => ({ tenant, account: accountFor(store, tenant.mode) }))

const gone = (id: string) => Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id }))

const record = (tenant: Tenant, fields: Pick<Catalog.Catalog, "name" | "operatorCatalogId" | "origin">) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const catalog: Catalog.Catalog = {
      id: yield* Catalog.CatalogId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      ...fields,
      connected: true,
      createdAt: now,
      updatedAt: now
    }
    yield* (yield* CatalogRepo).insert(tenant, catalog)
    return catalog
  })

/** `POST /chat/catalogs`: created at the operator and connected to the tenant's business account. */
export const create = (input: typeof Catalog.CreateCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const operatorCatalogId = yield* (yield* CommerceOperator).createCatalog(account, input.name)
    // the operator's new catalog cannot be another store's
    return yield* record(tenant, { name: input.name, operatorCatalogId, origin: "created" }).pipe(Effect.catchTag("ResourceNotFound", Effect.die))
  })

/**
 * The one answer for an operator catalog this tenant may not connect: one the operator does
 * not know, one it will not connect to the tenant's account, and one another store holds are
 * the same 404, so a caller cannot tell them apart (nor learn another store's catalog ids).
 */
const unknownOperatorCatalog = (operatorCatalogId: string) =>
  Effect.fail(new Errors.ResourceNotFound({ resource: "operator catalog", id: operatorCatalogId }))

/**
 * `POST /chat/catalogs/connect`: an operator catalog that exists already, by its id. An
 * operator catalog belongs to one store: the one that created or first connected it (both
 * of its modes may connect it); any other store gets the 404 of an unknown id, before the
 * operator is asked, and the storage settles two stores connecting at once.
 */
export const connect = (input: typeof Catalog.ConnectCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const operatorCatalogId = input.operator_catalog_id
    if (yield* (yield* CatalogRepo).heldByAnotherStore(tenant, operatorCatalogId)) return yield* unknownOperatorCatalog(operatorCatalogId)
    const operator = yield* CommerceOperator
    const found = yield* operator.findCatalog(account, operatorCatalogId)
    if (Option.isNone(found)) return yield* unknownOperatorCatalog(operatorCatalogId)
    // the operator refuses (error 100) a catalog its business does not own, as it does an unknown one
    yield* operator.connectCatalog(account, operatorCatalogId, true).pipe(
      Effect.catchIf(
        (e) => e._tag === "OperatorRejected" && e.code === 100,
        () => unknownOperatorCatalog(operatorCatalogId)
      )
    )
    // recorded with its items or not at all: a failed import leaves nothing here (the
    // operator-side connection stays, and connecting again is idempotent there)
    return yield* inTransaction(
      Effect.tap(record(tenant, { name: input.name ?? found.value.name, operatorCatalogId, origin: "connected" }), (catalog) =>
        importItems(tenant, account, catalog)
      )
    )
  })

/**
 * Brings a connected catalog's items here, page by page, as the operator reviewed them. An
 * item our rules refuse (a price that is not minor units, say) is left out and logged: the
 * catalog's next sync or batch fixes it at the operator.
 */
const importItems = (tenant: Tenant, account: OperatorAccount, catalog: Catalog.Catalog) =>
  Effect.gen(function* () {
    const operator = yield* CommerceOperator
    const products = yield* ProductRepo
    let after: string | undefined
    let skipped = 0
    do {
      const page = yield* operator.listItems(account, catalog.operatorCatalogId, after)
      const now = yield* Time.now
      const upserts: Array<Product.Product> = []
      for (const item of page.items) {
        const checked = ProductRules.check("CREATE", { ...item.fields, retailer_id: item.retailerId })
        if (!checked.ok) {
          skipped++
          continue
        }
        upserts.push({
          id: yield* Product.ProductId.generate,
          storeId: tenant.storeId,
          mode: tenant.mode,
          catalogId: catalog.id,
          ...Product.fieldsOf(ProductRules.complete(checked.data)),
          reviewStatus: item.reviewStatus,
          errors: item.errors.map((e) => ({ type: e.type, severity: "MUST_FIX" as const, code: e.type.toLowerCase(), message: e.message })),
          createdAt: now,
          updatedAt: now
        })
      }
      yield* products.apply(tenant, catalog.id, { upserts, deletes: [] })
      after = page.next
    } while (after !== undefined)
    if (skipped > 0) yield* Effect.logWarning("connected catalog: items our rules refuse were not imported", { catalog: catalog.id, skipped })
  })

/** `GET /chat/catalogs`: newest first. */
export const list = (query: { readonly limit: number; readonly cursor?: Catalog.CatalogId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* CatalogRepo).list(tenant, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Catalog.CatalogId.schema, (c) => c.id)
  })

/** `GET /chat/catalogs/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

const change = (id: string, patch: Partial<Pick<Catalog.Catalog, "name" | "connected">>) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const updated = yield* (yield* CatalogRepo).update(tenant, id as Catalog.CatalogId, patch, yield* Time.now)
    return yield* Option.match(updated, { onNone: () => gone(id), onSome: Effect.succeed })
  })

/** `PATCH /chat/catalogs/{id}`: a new name is given to the operator's catalog too. */
export const update = (id: string, input: typeof Catalog.UpdateCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    if (input.name === undefined || input.name === catalog.name) return catalog
    yield* (yield* CommerceOperator).renameCatalog(account, catalog.operatorCatalogId, input.name)
    return yield* change(catalog.id, { name: input.name })
  })

/** `POST /chat/catalogs/{id}/connect` and `/disconnect`: the catalog and the tenant's business account. */
export const setConnected = (id: string, connected: boolean) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    if (catalog.connected === connected) return catalog
    yield* (yield* CommerceOperator).connectCatalog(account, catalog.operatorCatalogId, connected)
    return yield* change(catalog.id, { connected })
  })

/**
 * `DELETE /chat/catalogs/{id}`: a catalog with products needs `force` (its products, their
 * errors and its batches go with it).
 */
export const remove = (id: string, force = false) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    const products = yield* ProductRepo
    const count = yield* products.count(tenant, catalog.id)
    if (count > 0 && !force)
      return yield* Effect.fail(
        Errors.ValidationFailed.of("force", `the catalog has ${count} product${count === 1 ? "" : "s"}; pass force=true to delete them with it`)
      )
    const operator = yield* CommerceOperator
    if (catalog.origin === "created") yield* operator.deleteCatalog(account, catalog.operatorCatalogId)
    else if (catalog.connected) yield* operator.connectCatalog(account, catalog.operatorCatalogId, false)
    yield* products.removeCatalog(tenant, catalog.id)
    yield* (yield* FeedRepo).removeCatalog(tenant, catalog.id)
    yield* (yield* BatchRepo).removeCatalog(tenant, catalog.id)
    if (!(yield* (yield* CatalogRepo).remove(tenant, catalog.id))) return yield* gone(id)
    return { id: catalog.id, deleted: true as const }
  })
