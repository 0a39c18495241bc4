/**
 * The CallPermissionRepo port over `call_permissions`, scoped by the tenant. Every change is
 * one conditional statement on the row's `version` (an insert that does nothing when the row
 * exists, or an update guarded by the version read), so of concurrent changes from one
 * version exactly one is written, on both dialects.
 */
import { CallRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findOne, scoped, scopedUpdate } from "../internal/Scoped.js"
import { permissionColumns as columns, permissionSelect as select } from "./Tables.js"

export const make: Effect.Effect<CallRepo.CallPermissionRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, phone: string) =>
    findOne(db, (k) => scoped(k, "call_permissions", tenant).select(select).where("phone", "=", phone), columns.fromRow)

  return CallRepo.CallPermissionRepo.of({
    find,
    compareAndSet: (tenant, read, patch) =>
      Effect.gen(function* () {
        const next = { ...read, ...patch, storeId: tenant.storeId, mode: tenant.mode, version: read.version + 1 }
        const row = columns.toRow(next)
        const written =
          read.version === 0
            ? yield* db.query((k) =>
                k
                  .insertInto("call_permissions")
                  .values(row)
                  .onConflict((oc) => oc.columns(["store_id", "mode", "phone"]).doNothing())
                  .returning(select)
                  .executeTakeFirst()
              )
            : yield* db.query((k) => {
                const { store_id: _s, mode: _m, phone: _p, created_at: _c, ...changes } = row
                return scopedUpdate(k, "call_permissions", tenant)
                  .set(changes)
                  .where("phone", "=", read.phone)
                  .where("version", "=", read.version)
                  .returning(select)
                  .executeTakeFirst()
              })
        return Option.map(Option.fromNullable(written), columns.fromRow)
      })
  })
})

export const layer = Layer.effect(CallRepo.CallPermissionRepo, make)
