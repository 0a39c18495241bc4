/** The ProductRepo port over `products` and `product_errors`, scoped by the tenant. */
import { Errors, Pagination, type Product, ProductRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { type OnConflictBuilder, sql } from "kysely"
import { Database } from "../Database.js"
import { SqlDialect } from "../SqlDialect.js"
import type { Tables } from "../Tables.js"
import { findAll, findOne, findPage, scoped, scopedDelete, ownedBy } from "../internal/Scoped.js"
import * as Chunks from "../internal/Chunks.js"
import { multiRow } from "../internal/Prepared.js"
import * as Columns from "../internal/Columns.js"
import { PRODUCT_DATA_COLUMNS, type ProductStagingTable, type ProductsTable, productColumns as columns } from "./Tables.js"

/**
 * Rows per multi-row INSERT (23 columns: under SQLite's 32,766 and PostgreSQL's 65,535 bound
 * values; its array of values stays under V8's large-object size, 128 KB, which only a full
 * collection frees).
 */
const ROWS = 500
/** A product's data: what makes a staged row a change (`refreshStaged`). */
const DATA_COLUMNS = PRODUCT_DATA_COLUMNS
/** The columns of `products` an upsert writes (all but `error_count`, bound after them). */
const PRODUCT_COLUMNS = [
  "id",
  "store_id",
  "mode",
  "catalog_id",
  "retailer_id",
  ...DATA_COLUMNS,
  "review_status",
  "errors",
  "created_at",
  "updated_at"
] as const satisfies ReadonlyArray<keyof ProductsTable>
/** Refreshed by an upsert of a product the catalog has (by retailer id): all but its id, tenant and creation. */
const REFRESHED = PRODUCT_COLUMNS.filter((c) => !["id", "store_id", "mode", "catalog_id", "retailer_id", "created_at"].includes(c))
/** Values per IN list. */
const IN = 1000
/** The columns of a staged row (`stage`), in the order bound. */
const STAGED_COLUMNS = ["upload_id", "seq", "id", "retailer_id", ...DATA_COLUMNS] as const satisfies ReadonlyArray<keyof ProductStagingTable>
/** The data columns as `stagedValues` writes them, one by one: a type error when `DATA_COLUMNS` changes. */
const UNROLLED = [
  "name",
  "description",
  "price",
  "sale_price",
  "currency",
  "availability",
  "condition",
  "image_url",
  "url",
  "brand",
  "category",
  "inventory",
  "visibility"
] as const satisfies typeof DATA_COLUMNS
void UNROLLED
/**
 * Staged rows per multi-row INSERT or piece of a COPY (17 columns): their array of values stays under
 * V8's large-object size, 128 KB (at 1,000 rows, 136 KB, each such array cost about ten times
 * the writes of its values).
 */
const STAGED_ROWS = 500

export const make: Effect.Effect<ProductRepo.ProductRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  /** On a retailer id the catalog has: refresh that product always, or (`onlyChanged`) when its data differs or its review is still pending. */
  const onConflict = (onlyChanged: boolean) => (oc: OnConflictBuilder<Tables, "products">) => {
    const update = oc
      .columns(["catalog_id", "retailer_id"])
      .doUpdateSet(
        Object.fromEntries([...REFRESHED, "error_count"].map((c) => [c, sql.ref(`excluded.${c}`)])) as Record<(typeof REFRESHED)[number], never>
      )
    return onlyChanged
      ? update.where((eb) =>
          eb.or([
            ...DATA_COLUMNS.map((c) => eb(eb.ref(`products.${c}`), "is distinct from", eb.ref(`excluded.${c}`))),
            eb("products.review_status", "=", sql.lit("pending"))
          ])
        )
      : update
  }

  /**
   * Inserts rows (`PRODUCT_COLUMNS` then `error_count`), or refreshes the catalog's product of
   * the same retailer id. Answers the retailer ids written.
   */
  const upsert = multiRow(PRODUCT_COLUMNS.length + 1, (rows) =>
    db.kysely
      .insertInto("products")
      .values(
        rows.map(
          (row) =>
            ({
              ...Object.fromEntries(PRODUCT_COLUMNS.map((c, i) => [c, row[i]])),
              error_count: row[PRODUCT_COLUMNS.length]
            }) as unknown as ProductsTable
        )
      )
      .onConflict(onConflict(false))
      .returning("retailer_id")
  )
  const tenantRow = Columns.tenantTuple(PRODUCT_COLUMNS, columns.toTuple(PRODUCT_COLUMNS))

  /** Deletes, then upserts, then replaces the errors of the products written; answers their retailer ids. */
  const write = (tenant: Tenant.Tenant, catalogId: string, products: ReadonlyArray<Product.Product>, deletes: ReadonlyArray<string>) =>
    db.withTransaction(
      Effect.gen(function* () {
        const upserts = products.filter((p) => p.catalogId === catalogId)
        yield* Chunks.forEach(deletes, IN, (ids) =>
          db.query((k) => scopedDelete(k, "products", tenant).where("catalog_id", "=", catalogId).where("retailer_id", "in", ids).execute())
        )
        const results = yield* Chunks.forEach(upserts, ROWS, (group) =>
          db.execute(
            upsert(
              group.map((p) => {
                const row = tenantRow(p, tenant)
                row.push(p.errors.length)
                return row
              })
            )
          )
        )
        const written = results.flatMap((r) => r.rows.map((row) => row.retailer_id))
        const names = new Set(written)
        const changed = written.length === upserts.length ? upserts : upserts.filter((p) => names.has(p.retailerId))
        yield* forgetErrors(catalogId, [...written, ...deletes])
        // an upsert of an existing product kept that one's id: the errors name the stored id
        const withErrors = changed.filter((p) => p.errors.length > 0).map((p) => p.retailerId)
        const stored = yield* Chunks.forEach(withErrors, IN, (rids) =>
          db.query((k) =>
            k.selectFrom("products").select(["id", "retailer_id"]).where("catalog_id", "=", catalogId).where("retailer_id", "in", rids).execute()
          )
        )
        const errors = errorRows(tenant, changed, new Map(stored.flat().map((r) => [r.retailer_id, r.id])))
        yield* Chunks.forEach(errors, ROWS, (rows) => db.query((k) => k.insertInto("product_errors").values(rows).execute()))
        return written
      })
    )

  /**
   * Staged rows as `STAGED_COLUMNS` values, row after row, at positions `from`, `from + 1`, ...
   * Unrolled (`UNROLLED`, the data columns in their order), into an array of its final
   * length: reading each row's data by a column name from a loop (a key that changes, the
   * slowest kind of read) into a growing array was a sixth of a feed upload's thread.
   */
  const stagedValues = (key: string, from: number, rows: ReadonlyArray<ProductRepo.Staged>) => {
    const values = new Array<unknown>(rows.length * STAGED_COLUMNS.length)
    let at = 0
    for (let i = 0; i < rows.length; i++) {
      const { id, data: d } = rows[i]
      values[at++] = key
      values[at++] = from + i
      values[at++] = id
      values[at++] = d.retailer_id
      values[at++] = d.name
      values[at++] = d.description
      values[at++] = d.price
      values[at++] = d.sale_price
      values[at++] = d.currency
      values[at++] = d.availability
      values[at++] = d.condition
      values[at++] = d.image_url
      values[at++] = d.url
      values[at++] = d.brand
      values[at++] = d.category
      values[at++] = d.inventory
      values[at++] = d.visibility
    }
    return values
  }

  const stageRows = multiRow(STAGED_COLUMNS.length, (rows) =>
    db.kysely
      .insertInto("product_staging")
      .values(rows.map((row) => Object.fromEntries(STAGED_COLUMNS.map((c, i) => [c, row[i]])) as unknown as ProductStagingTable))
  )

  /** The staged rows to the catalog: one INSERT … SELECT, nothing read into the process. */
  const refreshStaged = (
    tenant: Tenant.Tenant,
    catalogId: string,
    staged: { readonly key: string; readonly from: number; readonly to: number; readonly at: number }
  ) =>
    db.withTransaction(
      Effect.gen(function* () {
        const text = (value: string) => sql<string>`cast(${value} as text)`
        const bigint = (value: number) => sql<number>`cast(${value} as bigint)`
        const rows = yield* db.query((k) =>
          k
            .insertInto("products")
            .columns([...PRODUCT_COLUMNS, "error_count"])
            .expression(
              k
                .selectFrom("product_staging")
                .select([
                  "id",
                  text(tenant.storeId).as("store_id"),
                  text(tenant.mode).as("mode"),
                  text(catalogId).as("catalog_id"),
                  "retailer_id",
                  ...DATA_COLUMNS,
                  sql.lit("pending").as("review_status"),
                  sql.lit("[]").as("errors"),
                  bigint(staged.at).as("created_at"),
                  bigint(staged.at).as("updated_at"),
                  sql.lit(0).as("error_count")
                ])
                .where("upload_id", "=", staged.key)
                .where("seq", ">=", staged.from)
                .where("seq", "<", staged.to)
                .orderBy("seq")
            )
            .onConflict(onConflict(true))
            .returning("retailer_id")
            .execute()
        )
        const written = rows.map((r) => r.retailer_id)
        yield* forgetErrors(catalogId, written)
        return written
      })
    )

  /** Deletes the errors of these products (nothing to look up when the catalog has none: a first upload). */
  const forgetErrors = (catalogId: string, retailerIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      if (retailerIds.length === 0) return
      const any = yield* db.query((k) => k.selectFrom("product_errors").select("n").where("catalog_id", "=", catalogId).limit(1).executeTakeFirst())
      if (any === undefined) return
      yield* Chunks.forEach(retailerIds, IN, (ids) =>
        db.query((k) => k.deleteFrom("product_errors").where("catalog_id", "=", catalogId).where("retailer_id", "in", ids).execute())
      )
    })

  const errorRows = (tenant: Tenant.Tenant, products: ReadonlyArray<Product.Product>, ids: ReadonlyMap<string, string>) =>
    products.flatMap((p) =>
      p.errors.map((e, n) => ({
        catalog_id: p.catalogId,
        retailer_id: p.retailerId,
        n,
        store_id: tenant.storeId,
        mode: tenant.mode,
        product_id: ids.get(p.retailerId) ?? p.id,
        type: e.type,
        severity: e.severity,
        code: e.code,
        message: e.message
      }))
    )

  /** The catalog's products (with an error only, when `withErrors`). */
  const countIn = (tenant: Tenant.Tenant, catalogId: string, withErrors: boolean) =>
    db
      .query((k) =>
        scoped(k, "products", tenant)
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .where("catalog_id", "=", catalogId)
          .$if(withErrors, (q) => q.where("error_count", ">", 0))
          .executeTakeFirstOrThrow()
      )
      .pipe(Effect.map((r) => Number(r.n)))

  return ProductRepo.ProductRepo.of({
    find: (tenant, id) => findOne(db, (k) => scoped(k, "products", tenant).selectAll().where("id", "=", id), columns.fromRow),

    list: (tenant, catalogId, filters, page) =>
      findPage(
        db,
        page,
        (k) =>
          scoped(k, "products", tenant)
            .selectAll()
            .where("catalog_id", "=", catalogId)
            .$if(filters.availability !== undefined, (q) => q.where("availability", "=", filters.availability!))
            .$if(filters.reviewStatus !== undefined, (q) => q.where("review_status", "=", filters.reviewStatus!))
            .$if(filters.retailerId !== undefined, (q) => q.where("retailer_id", "=", filters.retailerId!))
            .$if(filters.hasErrors !== undefined, (q) => q.where("error_count", filters.hasErrors ? ">" : "=", 0)),
        columns.fromRow,
        { by: "id", direction: "asc" }
      ),

    // by (catalog_id, retailer_id) alone, so the unique index answers (with the tenant in the
    // WHERE clause SQLite picked the tenant index and scanned the whole catalog); the tenant
    // is checked on the rows (a catalog id belongs to one tenant)
    findByRetailerIds: (tenant, catalogId, retailerIds) =>
      Effect.map(
        Chunks.forEach(retailerIds, IN, (ids) =>
          db.query((k) => k.selectFrom("products").selectAll().where("catalog_id", "=", catalogId).where("retailer_id", "in", ids).execute())
        ),
        (pages) =>
          pages
            .flat()
            .filter((r) => r.store_id === tenant.storeId && r.mode === tenant.mode)
            .map(columns.fromRow)
      ),

    insert: (tenant, product) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("products")
            .values({ ...columns.toRow({ ...product, storeId: tenant.storeId, mode: tenant.mode }), error_count: product.errors.length })
            .execute()
        )
        .pipe(
          Effect.asVoid,
          Effect.catchTag("UniqueViolation", () => Effect.fail(new Errors.ResourceAlreadyExists({ resource: "product", id: product.retailerId })))
        ),

    apply: (tenant, catalogId, change) => Effect.asVoid(write(tenant, catalogId, change.upserts, change.deletes)),

    refreshWhileReading: dialect.concurrentWriters,

    holdCatalog: (catalogId) =>
      dialect.transactionLock === undefined
        ? Effect.void
        : Effect.asVoid(db.query((k) => dialect.transactionLock!(`feed-upload:${catalogId}`).execute(k))),

    // by COPY where the store has it (outside a transaction: rows of their own, read back
    // later; one COPY of pieces of STAGED_ROWS), else multi-row INSERTs of STAGED_ROWS: the
    // same rows either way
    stage: (key, from, rows) =>
      Effect.flatMap(db.inTransaction, (inTransaction) => {
        const groups = Chunks.chunks(rows, STAGED_ROWS)
        const values = (group: ReadonlyArray<ProductRepo.Staged>, n: number) => stagedValues(key, from + n * STAGED_ROWS, group)
        return db.copyIn !== undefined && !inTransaction
          ? db.copyIn("product_staging", STAGED_COLUMNS, groups.map(values))
          : Effect.asVoid(Effect.forEach(groups, (group, n) => db.execute(stageRows.flat(values(group, n), group.length))))
      }),

    refreshStaged,

    unstage: (key) => db.query((k) => k.deleteFrom("product_staging").where("upload_id", "=", key).execute()).pipe(Effect.asVoid),

    remove: (tenant, id) =>
      db.withTransaction(
        Effect.gen(function* () {
          const row = yield* db.query((k) =>
            scopedDelete(k, "products", tenant).where("id", "=", id).returning(["catalog_id", "retailer_id"]).executeTakeFirst()
          )
          if (row === undefined) return false
          yield* forgetErrors(row.catalog_id, [row.retailer_id])
          return true
        })
      ),

    count: (tenant, catalogId) => countIn(tenant, catalogId, false),

    anyApprovedInConnected: (tenant) =>
      db
        .query((k) =>
          k
            .selectFrom("products as p")
            .innerJoin("catalogs as c", "c.id", "p.catalog_id")
            .select("p.id")
            .where(ownedBy("p", tenant))
            .where("c.connected", "=", 1)
            .where("p.review_status", "=", "approved")
            .limit(1)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => row !== undefined)),

    countWithErrors: (tenant, catalogId) => countIn(tenant, catalogId, true),

    all: (tenant, catalogId) =>
      findAll(db, (k) => scoped(k, "products", tenant).selectAll().where("catalog_id", "=", catalogId).orderBy("id", "asc"), columns.fromRow),

    errors: (tenant, catalogId, filters, page) =>
      db
        .query((k) =>
          scoped(k, "product_errors", tenant)
            .selectAll()
            .where("catalog_id", "=", catalogId)
            .$if(filters.severity !== undefined, (q) => q.where("severity", "=", filters.severity!))
            .$if(filters.type !== undefined, (q) => q.where("type", "=", filters.type!))
            .$if(page.after !== undefined, (q) =>
              q.where((eb) =>
                eb.or([
                  eb("retailer_id", ">", page.after!.retailerId),
                  eb.and([eb("retailer_id", "=", page.after!.retailerId), eb("n", ">", page.after!.n)])
                ])
              )
            )
            .orderBy("retailer_id", "asc")
            .orderBy("n", "asc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(
          Effect.map((rows) =>
            Pagination.sliceOf(
              rows.map(
                (r): ProductRepo.CatalogError => ({
                  productId: r.product_id as Product.ProductId,
                  retailerId: r.retailer_id,
                  n: Number(r.n),
                  type: r.type,
                  severity: r.severity as Product.ProductError["severity"],
                  code: r.code,
                  message: r.message
                })
              ),
              page.limit
            )
          )
        ),

    diagnostics: (tenant, catalogId) =>
      db
        .query((k) =>
          scoped(k, "product_errors", tenant)
            .select(["type", "severity"])
            .select((eb) => eb.fn.count<number | string>("retailer_id").distinct().as("products"))
            .where("catalog_id", "=", catalogId)
            .groupBy(["type", "severity"])
            .orderBy("type")
            .orderBy("severity")
            .execute()
        )
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({ type: r.type, severity: r.severity as Product.ProductError["severity"], products: Number(r.products) }))
          )
        ),

    removeCatalog: (tenant, catalogId) =>
      db.withTransaction(
        Effect.gen(function* () {
          yield* db.query((k) => scopedDelete(k, "product_errors", tenant).where("catalog_id", "=", catalogId).execute())
          yield* db.query((k) => scopedDelete(k, "products", tenant).where("catalog_id", "=", catalogId).execute())
        })
      )
  })
})

export const layer = Layer.effect(ProductRepo.ProductRepo, make)
