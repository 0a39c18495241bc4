/**
 * The CallRepo port over `calls`, scoped by the tenant. Status changes are one conditional
 * UPDATE on the status read (`update` with `from`); a call the operator announces is
 * inserted once per operator call id (a partial unique index backs the check).
 */
import { CallRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findAll, findOne, findPage, scoped, scopedUpdate } from "../internal/Scoped.js"
import { callColumns as columns, callSelect as select } from "./Tables.js"

export const make: Effect.Effect<CallRepo.CallRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const findBy = (tenant: Tenant.Tenant, column: "id" | "operator_call_id", value: string) =>
    findOne(db, (k) => scoped(k, "calls", tenant).select(select).where(column, "=", value), columns.fromRow)

  return CallRepo.CallRepo.of({
    insert: (tenant, call) =>
      db
        .query((k) =>
          k
            .insertInto("calls")
            .values(columns.toRow({ ...call, storeId: tenant.storeId, mode: tenant.mode }))
            .execute()
        )
        .pipe(Effect.asVoid),

    insertFromOperator: (tenant, call) =>
      db.withTransaction(
        Effect.gen(function* () {
          const existing = call.operatorCallId === null ? Option.none() : yield* findBy(tenant, "operator_call_id", call.operatorCallId)
          if (Option.isSome(existing)) return { call: existing.value, created: false }
          const stored = { ...call, storeId: tenant.storeId, mode: tenant.mode }
          const inserted = yield* Effect.either(db.queryUnique((k) => k.insertInto("calls").values(columns.toRow(stored)).execute()))
          if (inserted._tag === "Right") return { call: stored, created: true }
          const raced = yield* findBy(tenant, "operator_call_id", call.operatorCallId!)
          return Option.isSome(raced) ? { call: raced.value, created: false } : yield* Effect.die(inserted.left)
        })
      ),

    find: (tenant, id) => findBy(tenant, "id", id),
    findByOperatorId: (tenant, operatorCallId) => findBy(tenant, "operator_call_id", operatorCallId),

    list: (tenant, request) =>
      findPage(
        db,
        request,
        (k) =>
          scoped(k, "calls", tenant)
            .select(select)
            .$if(request.status !== undefined, (q) => q.where("status", "=", request.status!))
            .$if(request.direction !== undefined, (q) => q.where("direction", "=", request.direction!))
            .$if(request.phone !== undefined, (q) => q.where("phone", "=", request.phone!)),
        columns.fromRow
      ),

    update: (tenant, id, from, patch) =>
      Effect.gen(function* () {
        if (from.length === 0) return Option.none()
        const current = yield* findBy(tenant, "id", id)
        if (Option.isNone(current) || !from.includes(current.value.status)) return Option.none()
        const next = { ...current.value, ...patch }
        const { id: _i, store_id: _s, mode: _m, created_at: _c, ...changes } = columns.toRow(next)
        const changed = yield* db.query((k) =>
          scopedUpdate(k, "calls", tenant)
            .set(changes)
            .where("id", "=", id)
            .where("status", "=", current.value.status)
            .where("updated_at", "=", current.value.updatedAt)
            .executeTakeFirst()
        )
        return Number(changed.numUpdatedRows) > 0 ? Option.some(next) : Option.none()
      }),

    createdBetween: (tenant, since, until, limit) =>
      findAll(
        db,
        (k) =>
          scoped(k, "calls", tenant)
            .select(select)
            .where("created_at", ">=", since)
            .where("created_at", "<", until)
            .orderBy("created_at", "asc")
            .limit(limit),
        columns.fromRow
      )
  })
})

export const layer = Layer.effect(CallRepo.CallRepo, make)
