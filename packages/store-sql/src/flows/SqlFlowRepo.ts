/** The FlowRepo port over `flows`, scoped by the tenant; status changes compare-and-set on the status. */
import type { Flow } from "@switchboard/domain"
import { type FlowRepo as Port, FlowRepo, Pagination, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import { scoped, scopedDelete, scopedUpdate } from "../internal/Scoped.js"
import { flowColumns as columns } from "./Tables.js"

export const make: Effect.Effect<Port.FlowRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (tenant: Tenant.Tenant, id: string) =>
    db
      .query((k) => scoped(k, "flows", tenant).selectAll().where("id", "=", id).executeTakeFirst())
      .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), columns.fromRow)))

  return FlowRepo.FlowRepo.of({
    insert: (tenant, flow) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("flows")
            .values(columns.toRow({ ...flow, storeId: tenant.storeId, mode: tenant.mode }))
            .execute()
        )
        .pipe(
          Effect.as(true),
          Effect.catchTag("UniqueViolation", () => Effect.succeed(false))
        ),

    find,

    findByOperatorId: (tenant, operatorFlowId) =>
      db
        .query((k) => scoped(k, "flows", tenant).selectAll().where("operator_flow_id", "=", operatorFlowId).orderBy("id", "desc").executeTakeFirst())
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), columns.fromRow))),

    findByOperatorIds: (tenant, operatorFlowIds) =>
      Effect.gen(function* () {
        const latest = new Map<string, Flow.Flow>()
        for (const chunk of Chunks.chunks([...new Set(operatorFlowIds)], 500)) {
          const rows = yield* db.query((k) =>
            scoped(k, "flows", tenant).selectAll().where("operator_flow_id", "in", chunk).orderBy("id", "desc").execute()
          )
          for (const row of rows) if (!latest.has(row.operator_flow_id)) latest.set(row.operator_flow_id, columns.fromRow(row))
        }
        return latest
      }),

    findById: (id) =>
      db
        .query((k) => k.selectFrom("flows").selectAll().where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), columns.fromRow))),

    list: (tenant, page) =>
      db
        .query((k) =>
          scoped(k, "flows", tenant)
            .selectAll()
            .$if(page.after !== undefined, (q) => q.where("id", "<", page.after!))
            .$if(page.status !== undefined, (q) => q.where("status", "=", page.status!))
            .orderBy("id", "desc")
            .limit(page.limit + 1)
            .execute()
        )
        .pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(columns.fromRow), page.limit))),

    update: (tenant, id, patch, from, now) =>
      Effect.gen(function* () {
        if (from.length === 0) return Option.none()
        // only the patch's fields are read back from the row (the others are undefined)
        const row = columns.toRow(patch as Flow.Flow) as unknown as Record<string, unknown>
        const set: Record<string, unknown> = { updated_at: now }
        for (const [field, value] of Object.entries(patch)) {
          const column = columns.column[field as keyof Flow.Flow]
          if (value !== undefined) set[column] = row[column]
        }
        const result = yield* db.query((k) =>
          scopedUpdate(k, "flows", tenant).set(set).where("id", "=", id).where("status", "in", from).executeTakeFirst()
        )
        if (Number(result.numUpdatedRows) === 0) return Option.none()
        return yield* find(tenant, id)
      }),

    lineage: (tenant, lineageId) =>
      db
        .query((k) => scoped(k, "flows", tenant).selectAll().where("lineage_id", "=", lineageId).orderBy("version", "asc").execute())
        .pipe(Effect.map((rows) => rows.map(columns.fromRow))),

    remove: (tenant, id, from) =>
      from.length === 0
        ? Effect.succeed(false)
        : db
            .query((k) => scopedDelete(k, "flows", tenant).where("id", "=", id).where("status", "in", from).executeTakeFirst())
            .pipe(Effect.map((r) => Number(r.numDeletedRows) > 0))
  })
})

export const layer = Layer.effect(FlowRepo.FlowRepo, make)
