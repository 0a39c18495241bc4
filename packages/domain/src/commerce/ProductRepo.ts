/**
 * Storage of products, scoped by the tenant (store and mode): another tenant's rows are
 * invisible. A product is keyed by its id and, within its catalog, by its retailer id.
 * Its errors are stored one row each (for the catalog's errors and diagnostics), keyed by
 * catalog and retailer id, and replaced whenever the product's outcome is applied.
 */
import { Context, type Effect, type Option } from "effect"
import type { ResourceAlreadyExists } from "../shared/Errors.js"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { CatalogId } from "./Catalog.js"
import type { Availability, Product, ProductData, ProductError, ProductId, ReviewStatus } from "./Product.js"

export interface ListFilters {
  readonly availability?: Availability | undefined
  readonly reviewStatus?: ReviewStatus | undefined
  readonly hasErrors?: boolean | undefined
  readonly retailerId?: string | undefined
}

/** One error of a catalog's product, as the catalog's error list shows it. */
export interface CatalogError extends ProductError {
  readonly productId: ProductId
  readonly retailerId: string
  /** The error's position among the product's errors. */
  readonly n: number
}

/** A group of the catalog's diagnostics: errors of one type and severity, and how many products have one. */
export interface DiagnosticGroup {
  readonly type: string
  readonly severity: ProductError["severity"]
  readonly products: number
}

/** A row waiting for its file to be read whole (`ProductRepo.stage`): the id a new product takes, and its data. */
export interface Staged {
  readonly id: ProductId
  readonly data: ProductData
}

export class ProductRepo extends Context.Tag("@switchboard/domain/ProductRepo")<
  ProductRepo,
  {
    readonly find: (tenant: Tenant, id: ProductId) => Effect.Effect<Option.Option<Product>>
    /** The catalog's products by id, ascending, those after `after` when given, matching the filters. */
    readonly list: (
      tenant: Tenant,
      catalogId: CatalogId,
      filters: ListFilters,
      page: PageRequest & { readonly after?: ProductId | undefined }
    ) => Effect.Effect<Slice<Product>>
    /** The catalog's products with these retailer ids (any order). */
    readonly findByRetailerIds: (tenant: Tenant, catalogId: CatalogId, retailerIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Product>>
    /** Stores a new product; `ResourceAlreadyExists` when the catalog has its retailer id already. */
    readonly insert: (tenant: Tenant, product: Product) => Effect.Effect<void, ResourceAlreadyExists>
    /**
     * Writes outcomes in one go: each product of `upserts` replaces the catalog's product with
     * its retailer id (keeping that one's id and creation time) or is added; `deletes` go;
     * the errors of every product named are replaced by its `errors`. Joins the caller's
     * transaction.
     */
    readonly apply: (
      tenant: Tenant,
      catalogId: CatalogId,
      change: { readonly upserts: ReadonlyArray<Product>; readonly deletes: ReadonlyArray<string> }
    ) => Effect.Effect<void>
    /**
     * Whether an upload may write the catalog while its file is still being read, in one
     * transaction held open for the whole file (rolled back when the file proves malformed):
     * true where other writers go on meanwhile (PostgreSQL locks only the rows written);
     * false where an open transaction holds every other write (SQLite), so an upload writes
     * once its file has been read whole, a transaction per group.
     */
    readonly refreshWhileReading: boolean
    /**
     * Within the current transaction, waits until no other upload's transaction holds the
     * catalog, then holds it until this one ends: uploads that write while reading take
     * their products' locks one upload at a time (two files in different orders would
     * deadlock). Nothing where `refreshWhileReading` is false.
     */
    readonly holdCatalog: (catalogId: CatalogId) => Effect.Effect<void>
    /**
     * Keeps checked rows of an upload (`key`) at positions `from`, `from + 1`, ... until
     * `refreshStaged` writes them or `unstage` drops them: a feed file's products reach the
     * catalog only once the whole file has been read. Outside a transaction the store may
     * load them in bulk (PostgreSQL's COPY), committed at once; inside one they join it.
     */
    readonly stage: (key: string, from: number, rows: ReadonlyArray<Staged>) => Effect.Effect<void>
    /**
     * Writes each row staged under `key` at positions `from` (included) to `to` (excluded)
     * that the catalog lacks, or whose data (name to visibility) differs from the catalog's
     * product of its retailer id, or whose stored one is still pending review (its data may
     * never have reached the operator: a process that died before its batch was sealed), as a
     * product pending review, without errors, updated `at` (and created `at` when new; an
     * existing one keeps its id and creation time); leaves the others, and their errors, as
     * they are. Answers the retailer ids written (any order). Joins the caller's transaction.
     */
    readonly refreshStaged: (
      tenant: Tenant,
      catalogId: CatalogId,
      staged: { readonly key: string; readonly from: number; readonly to: number; readonly at: number }
    ) => Effect.Effect<ReadonlyArray<string>>
    /** Drops the rows staged under `key`. */
    readonly unstage: (key: string) => Effect.Effect<void>
    /** Deletes the product and its errors; answers whether it was there. */
    readonly remove: (tenant: Tenant, id: ProductId) => Effect.Effect<boolean>
    /** How many products the catalog has. */
    readonly count: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<number>
    /** Whether some product of a catalog connected to the tenant's business account is approved. */
    readonly anyApprovedInConnected: (tenant: Tenant) => Effect.Effect<boolean>
    /** How many of them have at least one error. */
    readonly countWithErrors: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<number>
    /** Every product of the catalog, by id (a sync reads them all). */
    readonly all: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<ReadonlyArray<Product>>
    /** The catalog's product errors ordered by (retailer id, n), after `after` when given. */
    readonly errors: (
      tenant: Tenant,
      catalogId: CatalogId,
      filters: { readonly severity?: ProductError["severity"] | undefined; readonly type?: string | undefined },
      page: { readonly limit: number; readonly after?: { readonly retailerId: string; readonly n: number } | undefined }
    ) => Effect.Effect<Slice<CatalogError>>
    /** The catalog's errors grouped by type and severity, with the number of products in each. */
    readonly diagnostics: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<ReadonlyArray<DiagnosticGroup>>
    /** Forgets every product of the catalog (with their errors). */
    readonly removeCatalog: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<void>
  }
>() {}
