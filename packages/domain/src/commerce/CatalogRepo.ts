/**
 * Storage of catalogs, scoped by the tenant (store and mode): another tenant's rows are
 * invisible. An operator catalog belongs to one store at most (the first to create or connect
 * it, for good): both modes of that store may hold it, no other store ever can.
 */
import { Context, type Effect, type Option } from "effect"
import type { ResourceAlreadyExists, ResourceNotFound } from "../shared/Errors.js"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Catalog, CatalogId } from "./Catalog.js"

export class CatalogRepo extends Context.Tag("@switchboard/domain/CatalogRepo")<
  CatalogRepo,
  {
    /**
     * Stores the catalog and claims its operator catalog for the tenant's store, atomically:
     * `ResourceAlreadyExists` when the tenant has the same operator catalog already,
     * `ResourceNotFound` (resource `operator catalog`) when another store holds it, or took
     * it first in a concurrent insert; then nothing is written.
     */
    readonly insert: (tenant: Tenant, catalog: Catalog) => Effect.Effect<void, ResourceAlreadyExists | ResourceNotFound>
    /** Whether a store other than the tenant's holds (or once held) the operator catalog. */
    readonly heldByAnotherStore: (tenant: Tenant, operatorCatalogId: string) => Effect.Effect<boolean>
    /** Whether any store (the tenant's too) holds or once held the operator catalog (a sweep's read, outside the tenant's scope). */
    readonly claimed: (operatorCatalogId: string) => Effect.Effect<boolean>
    readonly find: (tenant: Tenant, id: CatalogId) => Effect.Effect<Option.Option<Catalog>>
    /** Newest first by id, rows with id < `after` when given. */
    readonly list: (tenant: Tenant, page: PageRequest & { readonly after?: CatalogId | undefined }) => Effect.Effect<Slice<Catalog>>
    /** Changes name and connection at `now`; answers the catalog as stored, none when it is not the tenant's. */
    readonly update: (
      tenant: Tenant,
      id: CatalogId,
      patch: Partial<Pick<Catalog, "name" | "connected">>,
      now: number
    ) => Effect.Effect<Option.Option<Catalog>>
    /** Whether the tenant has a catalog connected to its business account. */
    readonly anyConnected: (tenant: Tenant) => Effect.Effect<boolean>
    /** Answers whether a row went. */
    readonly remove: (tenant: Tenant, id: CatalogId) => Effect.Effect<boolean>
  }
>() {}
