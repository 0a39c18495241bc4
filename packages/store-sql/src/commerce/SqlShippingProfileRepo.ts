/**
 * The ShippingProfileRepo port over `shipping_profiles`, scoped by the tenant. Making a
 * profile the default unsets the tenant's other default in the same transaction (the
 * partial unique index `shipping_profiles_one_default` refuses two); a tenant's first
 * profile becomes its default.
 */
import { Pagination, ShippingProfileRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { shippingProfileColumns as columns, shippingProfileSelect as select } from "./Tables.js"

export const make: Effect.Effect<ShippingProfileRepo.ShippingProfileRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, id: string) =>
    db
      .query((k) =>
        k
          .selectFrom("shipping_profiles")
          .select(select)
          .where("store_id", "=", tenant.storeId)
          .where("mode", "=", tenant.mode)
          .where("id", "=", id)
          .executeTakeFirst()
      )
      .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), columns.fromRow)))

  /** Unsets the tenant's default (other than `keep`). Call inside the transaction that sets the new one. */
  const unsetDefault = (tenant: Tenant.Tenant, keep: string) =>
    db.query((k) =>
      k
        .updateTable("shipping_profiles")
        .set({ is_default: 0 })
        .where("store_id", "=", tenant.storeId)
        .where("mode", "=", tenant.mode)
        .where("is_default", "=", 1)
        .where("id", "!=", keep)
        .execute()
    )

  const hasAny = (tenant: Tenant.Tenant) =>
    db
      .query((k) =>
        k
          .selectFrom("shipping_profiles")
          .select("id")
          .where("store_id", "=", tenant.storeId)
          .where("mode", "=", tenant.mode)
          .limit(1)
          .executeTakeFirst()
      )
      .pipe(Effect.map((row) => row !== undefined))

  return ShippingProfileRepo.ShippingProfileRepo.of({
    insert: (tenant, profile) =>
      db.withTransaction(
        Effect.gen(function* () {
          const isDefault = profile.isDefault || !(yield* hasAny(tenant))
          if (isDefault) yield* unsetDefault(tenant, profile.id)
          const stored = { ...profile, storeId: tenant.storeId, mode: tenant.mode, isDefault }
          yield* db.query((k) => k.insertInto("shipping_profiles").values(columns.toRow(stored)).execute())
          return stored
        })
      ),

    find,

    list: (tenant, page) =>
      db
        .query((k) =>
          k
            .selectFrom("shipping_profiles")
            .select(select)
            .where("store_id", "=", tenant.storeId)
            .where("mode", "=", tenant.mode)
            .$if(page.after !== undefined, (q) => q.where("id", "<", page.after!))
            .orderBy("id", "desc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(columns.fromRow), page.limit))),

    update: (tenant, id, patch, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          const current = yield* find(tenant, id)
          if (Option.isNone(current)) return Option.none()
          if (patch.isDefault === true) yield* unsetDefault(tenant, id)
          const next = { ...current.value, ...patch, updatedAt: now }
          const row = columns.toRow(next)
          yield* db.query((k) =>
            k
              .updateTable("shipping_profiles")
              .set({
                name: row.name,
                destinations: row.destinations,
                handling_time: row.handling_time,
                is_default: row.is_default,
                updated_at: row.updated_at
              })
              .where("store_id", "=", tenant.storeId)
              .where("mode", "=", tenant.mode)
              .where("id", "=", id)
              .execute()
          )
          return Option.some(next)
        })
      ),

    remove: (tenant, id) =>
      db
        .query((k) =>
          k
            .deleteFrom("shipping_profiles")
            .where("store_id", "=", tenant.storeId)
            .where("mode", "=", tenant.mode)
            .where("id", "=", id)
            .executeTakeFirst()
        )
        .pipe(Effect.map((r) => Number(r.numDeletedRows) > 0))
  })
})

export const layer = Layer.effect(ShippingProfileRepo.ShippingProfileRepo, make)
