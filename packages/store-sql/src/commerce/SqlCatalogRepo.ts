/** The CatalogRepo port over `catalogs`, scoped by the tenant. */
import { type CatalogRepo as Port, CatalogRepo, Errors, type Tenant } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { findOne, findPage, scoped, scopedDelete, scopedUpdate } from "../internal/Scoped.js"
import { catalogColumns as columns } from "./Tables.js"

export const make: Effect.Effect<Port.CatalogRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, id: string) =>
    findOne(db, (k) => scoped(k, "catalogs", tenant).selectAll().where("id", "=", id), columns.fromRow)

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

    claimed: (operatorCatalogId) =>
      db
        .query((k) => k.selectFrom("catalog_owners").select("store_id").where("operator_catalog_id", "=", operatorCatalogId).executeTakeFirst())
        .pipe(Effect.map((row) => row !== undefined)),

    find,

    list: (tenant, request) => findPage(db, request, (k) => scoped(k, "catalogs", tenant).selectAll(), columns.fromRow),

    update: (tenant, id, patch, now) =>
      Effect.gen(function* () {
        const set = {
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.connected !== undefined ? { connected: patch.connected ? 1 : 0 } : {}),
          updated_at: now
        }
        yield* db.query((k) => scopedUpdate(k, "catalogs", tenant).set(set).where("id", "=", id).execute())
        return yield* find(tenant, id)
      }),

    anyConnected: (tenant) =>
      db
        .query((k) => scoped(k, "catalogs", tenant).select("id").where("connected", "=", 1).limit(1).executeTakeFirst())
        .pipe(Effect.map((row) => row !== undefined)),

    remove: (tenant, id) =>
      db
        .query((k) => scopedDelete(k, "catalogs", tenant).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((r) => Number(r.numDeletedRows) > 0))
  })
})

export const layer = Layer.effect(CatalogRepo.CatalogRepo, make)
