/** The CatalogRepo port over `catalogs`, scoped by the tenant. */
import { type CatalogRepo as Port, CatalogRepo, Errors, Pagination, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { catalogColumns as columns } from "./Tables.js"

export const make: Effect.Effect<Port.CatalogRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, id: string) =>
    db
      .query((k) =>
        k
          .selectFrom("catalogs")
          .selectAll()
          .where("store_id", "=", tenant.storeId)
          .where("mode", "=", tenant.mode)
          .where("id", "=", id)
          .executeTakeFirst()
      )
      .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), columns.fromRow)))

  const ownedElsewhere = (tenant: Tenant.Tenant, operatorCatalogId: string) =>
    db
      .query((k) => k.selectFrom("catalog_owners").select("store_id").where("operator_catalog_id", "=", operatorCatalogId).executeTakeFirst())
      .pipe(Effect.map((row) => row !== undefined && row.store_id !== tenant.storeId))

  return CatalogRepo.CatalogRepo.of({
    insert: (tenant, catalog) =>
      db.withTransaction(
        Effect.gen(function* () {
          const now = catalog.createdAt
          // the claim first: its primary key decides between two stores connecting at once
          yield* db.query((k) =>
            k
              .insertInto("catalog_owners")
              .values({ operator_catalog_id: catalog.operatorCatalogId, store_id: tenant.storeId, created_at: now })
              .onConflict((oc) => oc.column("operator_catalog_id").doNothing())
              .execute()
          )
          if (yield* ownedElsewhere(tenant, catalog.operatorCatalogId))
            return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "operator catalog", id: catalog.operatorCatalogId }))
          yield* db
            .queryUnique((k) =>
              k
                .insertInto("catalogs")
                .values(columns.toRow({ ...catalog, storeId: tenant.storeId, mode: tenant.mode }))
                .execute()
            )
            .pipe(
              Effect.catchTag("UniqueViolation", () =>
                Effect.fail(new Errors.ResourceAlreadyExists({ resource: "catalog", id: catalog.operatorCatalogId }))
              )
            )
        })
      ),

    heldByAnotherStore: ownedElsewhere,

    find,

    list: (tenant, page) =>
      db
        .query((k) =>
          k
            .selectFrom("catalogs")
            .selectAll()
            .where("store_id", "=", tenant.storeId)
            .where("mode", "=", tenant.mode)
            .$if(page.after !== undefined, (q) => q.where("id", "<", page.after!))
            .orderBy("id", "desc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(columns.fromRow), page.limit))),

    update: (tenant, id, patch, now) =>
      Effect.gen(function* () {
        const set = {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.connected !== undefined ? { connected: patch.connected ? 1 : 0 } : {}),
          updated_at: now
        }
        yield* db.query((k) =>
          k.updateTable("catalogs").set(set).where("store_id", "=", tenant.storeId).where("mode", "=", tenant.mode).where("id", "=", id).execute()
        )
        return yield* find(tenant, id)
      }),

    anyConnected: (tenant) =>
      db
        .query((k) =>
          k
            .selectFrom("catalogs")
            .select("id")
            .where("store_id", "=", tenant.storeId)
            .where("mode", "=", tenant.mode)
            .where("connected", "=", 1)
            .limit(1)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => row !== undefined)),

    remove: (tenant, id) =>
      db
        .query((k) =>
          k.deleteFrom("catalogs").where("store_id", "=", tenant.storeId).where("mode", "=", tenant.mode).where("id", "=", id).executeTakeFirst()
        )
        .pipe(Effect.map((r) => Number(r.numDeletedRows) > 0))
  })
})

export const layer = Layer.effect(CatalogRepo.CatalogRepo, make)
