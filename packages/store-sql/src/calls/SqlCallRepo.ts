/**
 * The CallRepo port over `calls`, scoped by the tenant. Status changes are one conditional
 * UPDATE on the status read (`update` with `from`); a call the operator announces is
 * inserted once per operator call id (a partial unique index backs the check).
 *
 * A batch of call webhooks (`CallBatches.ts`) reads the calls it names in one query per 500
 * (`findForEvents`, locked on PostgreSQL), inserts its new calls in one multi-row INSERT … ON
 * CONFLICT DO NOTHING (`insertManyFromOperator`, answering the ones stored), and writes its
 * changes in one UPDATE … FROM a VALUES list (`updateMany`), each row conditional on the
 * status and update time it was read with, answering the ids written (RETURNING). The VALUES
 * cells are cast, so PostgreSQL knows their types; SQLite (3.35 or later) reads the same.
 */
import { type Call, CallRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import * as Columns from "../internal/Columns.js"
import { multiRow, namedRows, prepareSql } from "../internal/Prepared.js"
import { BATCH_COUNTS, preparedLists } from "../internal/PreparedLists.js"
import { findAll, findOne, findPage, scoped, scopedUpdate } from "../internal/Scoped.js"
import { SqlDialect } from "../SqlDialect.js"
import { type CallsTable, callColumns as columns, callSelect as select } from "./Tables.js"

/** Rows per statement: well under SQLite's bound-variable limit. */
const CHUNK = 500

/** The cells of one call's change in `updateCalls`' VALUES, in its columns' order. */
const WIDTH = 12

/** One call's change as `updateCalls`' cells: the status and update time read, then the columns written. */
const changeCells = (read: Call.Call, next: Call.Call): Array<unknown> => {
  const row = columns.toRow(next)
  return [
    next.id,
    read.status,
    read.updatedAt,
    row.status,
    row.operator_call_id,
    row.answer_sdp,
    row.end_status,
    next.startedAt,
    next.endedAt,
    next.durationSeconds,
    row.error,
    next.updatedAt
  ]
}

export const make: Effect.Effect<CallRepo.CallRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  /**
   * Each call's own conditional change, in one statement (see the header), compiled once per
   * number of calls: `cells` is `changeCells` of each call, one after the other.
   */
  const updateCalls = preparedLists((tenant: { storeId: string; mode: string }, [cells]) => {
    const text = (v: unknown) => sql`cast(${v} as text)`
    const big = (v: unknown) => sql`cast(${v} as bigint)`
    const rows = Array.from({ length: cells.length / WIDTH }, (_, i) => {
      const c = cells.slice(i * WIDTH, (i + 1) * WIDTH)
      return sql`(${sql.join([
        text(c[0]),
        text(c[1]),
        big(c[2]),
        text(c[3]),
        text(c[4]),
        text(c[5]),
        text(c[6]),
        big(c[7]),
        big(c[8]),
        sql`cast(${c[9]} as integer)`,
        text(c[10]),
        big(c[11])
      ])})`
    })
    const query = sql<{
      readonly id: string
    }>`with v (id, from_status, from_updated_at, status, operator_call_id, answer_sdp, end_status, started_at, ended_at, duration_seconds, error, updated_at) as (values ${sql.join(rows)})
    update calls set
      status = v.status,
      operator_call_id = v.operator_call_id,
      answer_sdp = v.answer_sdp,
      end_status = v.end_status,
      started_at = v.started_at,
      ended_at = v.ended_at,
      duration_seconds = v.duration_seconds,
      error = v.error,
      updated_at = v.updated_at
    from v
    where calls.id = v.id and calls.store_id = ${tenant.storeId} and calls.mode = ${tenant.mode}
      and calls.status = v.from_status and calls.updated_at = v.from_updated_at
    returning calls.id`
    return { compile: () => query.compile(db.kysely) }
  })

  /** One call's change of `updateCalls`, compiled once: where UPDATE … FROM reads the whole table (`SqlDialect.updateFromValues`). */
  const updateCallStatement = prepareSql(
    db.kysely,
    (p: Record<string, unknown>) =>
      sql`update calls set
      status = ${p.c3},
      operator_call_id = ${p.c4},
      answer_sdp = ${p.c5},
      end_status = ${p.c6},
      started_at = ${p.c7},
      ended_at = ${p.c8},
      duration_seconds = ${p.c9},
      error = ${p.c10},
      updated_at = ${p.c11}
    where id = ${p.c0} and store_id = ${p.storeId} and mode = ${p.mode} and status = ${p.c1} and updated_at = ${p.c2}`
  )
  const updateCall = ({ storeId, mode, cells }: { storeId: string; mode: string; cells: ReadonlyArray<unknown> }) => {
    const params: Record<string, unknown> = { storeId, mode }
    for (let i = 0; i < WIDTH; i++) params[`c${i}`] = cells[i]
    return updateCallStatement(params)
  }

  /** The calls of a batch's events, by operator call ids and by our ids, locked where the store can; compiled once per list lengths. */
  const forEvents = preparedLists((tenant: { storeId: string; mode: string }, [byOperator, byId]) =>
    scoped(db.kysely, "calls", tenant)
      .select(select)
      .where((eb) =>
        eb.or([...(byOperator.length === 0 ? [] : [eb("operator_call_id", "in", byOperator)]), ...(byId.length === 0 ? [] : [eb("id", "in", byId)])])
      )
      .orderBy("id")
      .$if(dialect.lockRows, (q) => q.forUpdate())
  )

  /** The INSERT of the operator's new calls (every column, in `select`'s order), a call already stored by operator call id skipped. */
  const insertCalls = multiRow(
    select.length,
    (rows) =>
      db.kysely
        .insertInto("calls")
        .values(namedRows<CallsTable>(select, rows))
        .onConflict((oc) => oc.columns(["store_id", "mode", "operator_call_id"]).where("operator_call_id", "is not", null).doNothing())
        .returning("id"),
    BATCH_COUNTS
  )
  const callRow = Columns.tenantTuple(select, columns.toTuple(select))

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

    findForEvents: (tenant, operatorCallIds, ids) =>
      Effect.gen(function* () {
        const found = new Map<string, Call.Call>()
        const keys: Array<readonly ["operator_call_id" | "id", string]> = [
          ...[...new Set(operatorCallIds)].map((v) => ["operator_call_id", v] as const),
          ...[...new Set(ids)].map((v) => ["id", v] as const)
        ]
        for (const chunk of Chunks.chunks(keys, CHUNK)) {
          const byOperator = chunk.filter(([c]) => c === "operator_call_id").map(([, v]) => v)
          const byId = chunk.filter(([c]) => c === "id").map(([, v]) => v)
          const { rows } = yield* db.execute(forEvents(tenant, [byOperator, byId]))
          const calls = rows.map(columns.fromRow)
          for (const call of calls) found.set(call.id, call)
        }
        return [...found.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      }),

    insertManyFromOperator: (tenant, calls) =>
      Effect.gen(function* () {
        const stored = new Set<Call.CallId>()
        for (const chunk of Chunks.chunks(calls, CHUNK)) {
          const { rows } = yield* db.execute(insertCalls(chunk.map((call) => callRow(call, tenant))))
          for (const row of rows) stored.add(row.id as Call.CallId)
        }
        return stored
      }),

    updateMany: (tenant, changes) =>
      Effect.gen(function* () {
        const written = new Set<Call.CallId>()
        if (!dialect.updateFromValues) {
          for (const { read, next } of changes) {
            const result = yield* db.execute(updateCall({ storeId: tenant.storeId, mode: tenant.mode, cells: changeCells(read, next) }))
            if ((result.numAffectedRows ?? 0n) > 0n) written.add(read.id)
          }
          return written
        }
        for (const chunk of Chunks.chunks(changes, CHUNK)) {
          const { rows } = yield* db.execute(updateCalls(tenant, [chunk.flatMap(({ read, next }) => changeCells(read, next))]))
          for (const row of rows) written.add(row.id as Call.CallId)
        }
        return written
      }),

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
