/** The FlowEndpointRepo port over `flow_endpoint_calls` and `flow_keys`, scoped by the tenant. */
import { type FlowEndpointRepo as Port, FlowEndpointRepo } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findOne, scoped } from "../internal/Scoped.js"

export const make: Effect.Effect<Port.FlowEndpointRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const findKey: Port.FlowEndpointRepo["Type"]["findKey"] = (tenant) =>
    findOne(
      db,
      (k) => scoped(k, "flow_keys", tenant).selectAll(),
      (r) => ({ phoneNumberId: r.phone_number_id, publicKey: r.public_key, privateKey: r.private_key, createdAt: Number(r.created_at) })
    )

  return FlowEndpointRepo.FlowEndpointRepo.of({
    recordCall: (tenant, call) =>
      db
        .query((k) =>
          k
            .insertInto("flow_endpoint_calls")
            .values({
              id: call.id,
              store_id: tenant.storeId,
              mode: tenant.mode,
              flow_id: call.flowId,
              action: call.action,
              http_status: call.httpStatus,
              ok: call.ok ? 1 : 0,
              latency_ms: Math.round(call.latencyMs),
              error: call.error,
              at: call.at
            })
            .execute()
        )
        .pipe(Effect.asVoid),

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
