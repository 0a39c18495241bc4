/**
 * The ShippingProfileRepo port over `shipping_profiles`, scoped by the tenant. Making a
 * profile the default unsets the tenant's other default in the same transaction (the
 * partial unique index `shipping_profiles_one_default` refuses two); a tenant's first
 * profile becomes its default.
 */
import { ShippingProfileRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findOne, findPage, scoped, scopedDelete, scopedUpdate } from "../internal/Scoped.js"
import { shippingProfileColumns as columns, shippingProfileSelect as select } from "./Tables.js"

export const make: Effect.Effect<ShippingProfileRepo.ShippingProfileRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, id: string) =>
    findOne(db, (k) => scoped(k, "shipping_profiles", tenant).select(select).where("id", "=", id), columns.fromRow)

  /** Unsets the tenant's default (other than `keep`). Call inside the transaction that sets the new one. */
  const unsetDefault = (tenant: Tenant.Tenant, keep: string) =>
    db.query((k) => scopedUpdate(k, "shipping_profiles", tenant).set({ is_default: 0 }).where("is_default", "=", 1).where("id", "!=", keep).execute())

  const hasAny = (tenant: Tenant.Tenant) =>
    db.query((k) => scoped(k, "shipping_profiles", tenant).select("id").limit(1).executeTakeFirst()).pipe(Effect.map((row) => row !== undefined))

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

    list: (tenant, request) => findPage(db, request, (k) => scoped(k, "shipping_profiles", tenant).select(select), columns.fromRow),

    update: (tenant, id, patch, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          const current = yield* find(tenant, id)
          if (Option.isNone(current)) return Option.none()
          if (patch.isDefault === true) yield* unsetDefault(tenant, id)
          const next = { ...current.value, ...patch, updatedAt: now }
          const row = columns.toRow(next)
          yield* db.query((k) =>
            scopedUpdate(k, "shipping_profiles", tenant)
              .set({
                name: row.name,
                destinations: row.destinations,
                handling_time: row.handling_time,
                is_default: row.is_default,
                updated_at: row.updated_at
              })
              .where("id", "=", id)
              .execute()
          )
          return Option.some(next)
        })
      ),

    remove: (tenant, id) =>
      db
        .query((k) => scopedDelete(k, "shipping_profiles", tenant).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((r) => Number(r.numDeletedRows) > 0))
  })
})

export const layer = Layer.effect(ShippingProfileRepo.ShippingProfileRepo, make)
