/**
 * The FlowEndpointRepo port over `flow_endpoint_calls` and `flow_keys`, scoped by the tenant.
 *
 * The hosted endpoint's log of requests is written off the request's path: `recordCall` keeps
 * the row, and the rows kept within `RECORD_BATCH_MS` are written together, in one statement
 * (a group that fails, say a row of a store deleted meanwhile, is written row by row). `calls`
 * writes what is kept first, so a read in this process sees every call recorded before it; the
 * scope's end writes the rest. Another process may see a call up to `RECORD_BATCH_MS` late.
 */
import { type Flow, type FlowEndpointRepo as Port, FlowEndpointRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option, Runtime, type Scope } from "effect"
import { Database } from "../Database.js"
import { chunks } from "../internal/Chunks.js"
import { multiRow, prepare } from "../internal/Prepared.js"
import { findOne, scoped } from "../internal/Scoped.js"

/** How long a recorded call waits for others, to be written with them. */
export const RECORD_BATCH_MS = 20
/** Rows in one statement at most. */
const RECORD_BATCH_ROWS = 200

export const make: Effect.Effect<Port.FlowEndpointRepo["Type"], never, Database | Scope.Scope> = Effect.gen(function* () {
  const db = yield* Database
  const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())

  /** Calls, one row per (id, store_id, mode, flow_id, action, http_status, ok, latency_ms, error, at). */
  const insertCalls = multiRow(10, (rows) =>
    db.kysely.insertInto("flow_endpoint_calls").values(
      rows.map(([id, store_id, mode, flow_id, action, http_status, ok, latency_ms, error, at]) => ({
        id,
        store_id,
        mode,
        flow_id,
        action,
        http_status,
        ok,
        latency_ms,
        error,
        at
      }))
    )
  )
  let kept: Array<ReadonlyArray<unknown>> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let written: Promise<void> = Promise.resolve()
  const writeGroup = (rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
    db
      .execute(insertCalls(rows))
      .pipe(
        Effect.catchAllDefect(() =>
          Effect.forEach(
            rows,
            (row) =>
              db
                .execute(insertCalls([row]))
                .pipe(Effect.catchAllDefect((defect) => Effect.logWarning("a flow endpoint call could not be recorded", { id: row[0], defect }))),
            { discard: true }
          )
        )
      )
  /** Writes the rows kept so far (after any write under way); answers when they are written. */
  const flush = (): Promise<void> => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const rows = kept
    kept = []
    if (rows.length > 0) {
      written = written.then(() => runPromise(Effect.forEach(chunks(rows, RECORD_BATCH_ROWS), writeGroup, { discard: true }))).catch(() => undefined)
    }
    return written
  }
  yield* Effect.addFinalizer(() => Effect.promise(flush))

  const findKey: Port.FlowEndpointRepo["Type"]["findKey"] = (tenant) =>
    findOne(
      db,
      (k) => scoped(k, "flow_keys", tenant).selectAll(),
      (r) => ({ phoneNumberId: r.phone_number_id, publicKey: r.public_key, privateKey: r.private_key, createdAt: Number(r.created_at) })
    )

  // the hosted endpoint's statements, compiled once (one of each per operator request)
  const targetOf = prepare((p: { id: string }) =>
    db.kysely
      .selectFrom("flows")
      .leftJoin("flow_keys", (join) => join.onRef("flow_keys.store_id", "=", "flows.store_id").onRef("flow_keys.mode", "=", "flows.mode"))
      .select(["flows.id", "flows.store_id", "flows.mode", "flows.endpoint_url", "flows.json", "flow_keys.private_key"])
      .where("flows.id", "=", p.id)
  )
  return FlowEndpointRepo.FlowEndpointRepo.of({
    recordCall: (tenant, call) =>
      Effect.sync(() => {
        kept.push([
          call.id,
          tenant.storeId,
          tenant.mode,
          call.flowId,
          call.action,
          call.httpStatus,
          call.ok ? 1 : 0,
          Math.round(call.latencyMs),
          call.error,
          call.at
        ])
        timer ??= setTimeout(flush, RECORD_BATCH_MS)
      }),

    target: (flowId) =>
      Effect.map(db.execute(targetOf({ id: flowId })), ({ rows }) => {
        const row = rows[0]
        return row === undefined
          ? Option.none()
          : Option.some({
              flowId: row.id as Flow.FlowId,
              tenant: { storeId: row.store_id as Tenant.StoreId, mode: row.mode as Tenant.Mode },
              endpointUrl: row.endpoint_url,
              json: row.json,
              privateKey: row.private_key
            })
      }),

    calls: (tenant, flowId, since, until) =>
      // inside a transaction the kept rows wait (on SQLite their write would wait for this one's connection)
      Effect.flatMap(db.inTransaction, (open) => (open ? Effect.void : Effect.promise(flush))).pipe(
        Effect.zipRight(
          db.query((k) =>
            scoped(k, "flow_endpoint_calls", tenant)
              .selectAll()
              .where("flow_id", "=", flowId)
              .where("at", ">=", since)
              .where("at", "<", until)
              .orderBy("at", "asc")
              .execute()
          )
        ),
        Effect.map((rows) =>
          rows.map((r) => ({
            id: r.id,
            flowId,
            action: r.action,
            httpStatus: Number(r.http_status),
            ok: r.ok === true || r.ok === 1,
            latencyMs: Number(r.latency_ms),
            error: r.error,
            at: Number(r.at)
          }))
        )
      ),

    findKey,

    saveKey: (tenant, key) =>
      Effect.gen(function* () {
        yield* db
          .queryUnique((k) =>
            k
              .insertInto("flow_keys")
              .values({
                store_id: tenant.storeId,
                mode: tenant.mode,
                phone_number_id: key.phoneNumberId,
                public_key: key.publicKey,
                private_key: key.privateKey,
                created_at: key.createdAt
              })
              .execute()
          )
          .pipe(Effect.catchTag("UniqueViolation", () => Effect.void))
        return Option.getOrElse(yield* findKey(tenant), () => key)
      })
  })
})

export const layer = Layer.scoped(FlowEndpointRepo.FlowEndpointRepo, make)
