/**
 * Catalog routes (spec §4.1). Every change is a mirrored write (`CatalogMirrors.ts`): made
 * at the operator (on the tenant's account: the sandbox for test keys) outside any
 * transaction and recorded once the operator took it; a refusal is `OperatorRejected`, an
 * unreachable operator `OperatorUnavailable`, and then nothing changed here.
 *
 * Deleting a created catalog deletes it at the operator; deleting a connected one only
 * disconnects it from the WhatsApp business account (the catalog is the business's, not
 * ours) and forgets it here.
 */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import { accountFor } from "../stores/Store.js"
import * as Mirror from "../shared/Mirror.js"
import * as Catalog from "./Catalog.js"
import * as CatalogMirrors from "./CatalogMirrors.js"
import { CatalogRepo } from "./CatalogRepo.js"
import { ProductRepo } from "./ProductRepo.js"

const RESOURCE = "catalog"

/** The tenant's catalog `id`; 404 `resource_not_found` for a malformed id, another tenant's or an unknown one. */
export const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(CatalogRepo, (repo) => Id.lookup(Catalog.CatalogId, RESOURCE, id, (catalogId) => repo.find(tenant, catalogId)))

const caller = Effect.map(CurrentStore, ({ store, tenant }) => ({ tenant, account: accountFor(store, tenant.mode) }))

/** `POST /chat/catalogs`: created at the operator and connected to the tenant's business account. */
export const create = (input: typeof Catalog.CreateCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const id = yield* Catalog.CatalogId.generate
    return yield* Mirror.run(CatalogMirrors.create, { tenant, account, prepare: Effect.succeed({ id, name: input.name }) })
  })

/**
 * `POST /chat/catalogs/connect`: an operator catalog that exists already, by its id. An
 * operator catalog belongs to one store: the one that created or first connected it (both
 * of its modes may connect it); any other store gets the 404 of an unknown id (one the
 * operator does not know, or will not connect, is the same 404, so a caller cannot tell them
 * apart), before the operator is asked, and the storage settles two stores connecting at
 * once. Recorded with its items or not at all (the operator-side connection stays, and
 * connecting again is idempotent there).
 */
export const connect = (input: typeof Catalog.ConnectCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const operatorCatalogId = input.operator_catalog_id
    const id = yield* Catalog.CatalogId.generate
    return yield* Mirror.run(CatalogMirrors.connect, {
      tenant,
      account,
      prepare: Effect.gen(function* () {
        if (yield* (yield* CatalogRepo).heldByAnotherStore(tenant, operatorCatalogId))
          return yield* Effect.fail(CatalogMirrors.unknownOperatorCatalog(operatorCatalogId))
        return { id, operatorCatalogId, name: input.name }
      })
    })
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

/** `PATCH /chat/catalogs/{id}`: a new name is given to the operator's catalog too. */
export const update = (id: string, input: typeof Catalog.UpdateCatalog.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    const name = input.name
    if (name === undefined || name === catalog.name) return catalog
    return yield* Mirror.run(CatalogMirrors.rename, {
      tenant,
      account,
      prepare: Effect.succeed({ id: catalog.id, operatorCatalogId: catalog.operatorCatalogId, name })
    })
  })

/** `POST /chat/catalogs/{id}/connect` and `/disconnect`: the catalog and the tenant's business account. */
export const setConnected = (id: string, connected: boolean) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    if (catalog.connected === connected) return catalog
    return yield* Mirror.run(CatalogMirrors.setConnected, {
      tenant,
      account,
      prepare: Effect.succeed({ id: catalog.id, operatorCatalogId: catalog.operatorCatalogId, connected })
    })
  })

/**
 * `DELETE /chat/catalogs/{id}`: a catalog with products needs `force` (its products, their
 * errors and its batches go with it).
 */
export const remove = (id: string, force = false) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const catalog = yield* lookup(tenant, id)
    const count = yield* (yield* ProductRepo).count(tenant, catalog.id)
    if (count > 0 && !force)
      return yield* Effect.fail(
        Errors.ValidationFailed.of("force", `the catalog has ${count} product${count === 1 ? "" : "s"}; pass force=true to delete them with it`)
      )
    const { operatorCatalogId, origin, connected } = catalog
    return yield* Mirror.run(CatalogMirrors.remove, {
      tenant,
      account,
      prepare: Effect.succeed({ id: catalog.id, operatorCatalogId, origin, connected })
    })
  })
