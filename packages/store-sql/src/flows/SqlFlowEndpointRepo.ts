/** The FlowEndpointRepo port over `flow_endpoint_calls` and `flow_keys`, scoped by the tenant. */
import { type Flow, type FlowEndpointRepo as Port, FlowEndpointRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { prepare } from "../internal/Prepared.js"
import { findOne, scoped } from "../internal/Scoped.js"

export const make: Effect.Effect<Port.FlowEndpointRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

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
  const insertCall = prepare(
    (p: {
      id: string
      storeId: string
      mode: Tenant.Mode
      flowId: string
      action: string
      httpStatus: number
      ok: number
      latencyMs: number
      error: string | null
      at: number
    }) =>
      db.kysely.insertInto("flow_endpoint_calls").values({
        id: p.id,
        store_id: p.storeId,
        mode: p.mode,
        flow_id: p.flowId,
        action: p.action,
        http_status: p.httpStatus,
        ok: p.ok,
        latency_ms: p.latencyMs,
        error: p.error,
        at: p.at
      })
  )

  return FlowEndpointRepo.FlowEndpointRepo.of({
    recordCall: (tenant, call) =>
      db
        .execute(
          insertCall({
            id: call.id,
            storeId: tenant.storeId,
            mode: tenant.mode,
            flowId: call.flowId,
            action: call.action,
            httpStatus: call.httpStatus,
            ok: call.ok ? 1 : 0,
            latencyMs: Math.round(call.latencyMs),
            error: call.error,
            at: call.at
          })
        )
        .pipe(Effect.asVoid),

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
      db
        .query((k) =>
          scoped(k, "flow_endpoint_calls", tenant)
            .selectAll()
            .where("flow_id", "=", flowId)
            .where("at", ">=", since)
            .where("at", "<", until)
            .orderBy("at", "asc")
            .execute()
        )
        .pipe(
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

export const layer = Layer.effect(FlowEndpointRepo.FlowEndpointRepo, make)
