/**
 * The flow routes' changes at the operator, as mirrored writes (`shared/Mirror.ts`): prepared
 * (an outbox row, in a transaction), made at the operator outside any transaction, and
 * recorded in the settle's transaction. The pending record of a create is the outbox row: the
 * flow is written once the operator took it.
 */
import { Effect, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import * as Time from "../shared/Time.js"
import * as Flow from "./Flow.js"
import { FlowOperator } from "./FlowOperator.js"
import { type FlowPatch, FlowRepo } from "./FlowRepo.js"

const Created = Schema.Struct({ id: Flow.FlowId.schema, name: Schema.String, categories: Schema.Array(Schema.String) })

/** `POST /chat/flows`: a DRAFT, version 1 of its lineage, created at the operator, then here. */
export const create = Mirror.kind({
  kind: "flows.create",
  payload: Created,
  call: (p: typeof Created.Type, { account }) =>
    Effect.flatMap(FlowOperator, (op) => op.createFlow(account, { name: p.name, categories: p.categories })),
  settle: (p, operatorFlowId: string, { tenant }) =>
    Effect.gen(function* () {
      const now = yield* Time.now
      const flow: Flow.Flow = {
        id: p.id,
        storeId: tenant.storeId,
        mode: tenant.mode,
        name: p.name,
        categories: p.categories as Flow.Flow["categories"],
        status: "DRAFT",
        version: 1,
        previousVersionId: null,
        lineageId: p.id,
        json: null,
        jsonVersion: null,
        validationErrors: [],
        endpointUrl: null,
        operatorFlowId,
        createdAt: now,
        updatedAt: now
      }
      yield* (yield* FlowRepo).insert(tenant, flow)
      return flow
    })
})

const Updated = Schema.Struct({
  id: Flow.FlowId.schema,
  operatorFlowId: Schema.String,
  name: Schema.optional(Schema.String),
  categories: Schema.optional(Schema.Array(Schema.String))
})

/** `PATCH /chat/flows/{id}`: a DRAFT's name and categories, at the operator, then here while it is still a DRAFT. */
export const update = Mirror.kind({
  kind: "flows.update",
  payload: Updated,
  call: (p: typeof Updated.Type, { account }) =>
    Effect.flatMap(FlowOperator, (op) =>
      op.updateFlow(account, p.operatorFlowId, { name: p.name, categories: p.categories as Flow.Flow["categories"] | undefined })
    ),
  settle: (p, _: void, { tenant }) =>
    Effect.gen(function* () {
      const patch: FlowPatch = {
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.categories !== undefined ? { categories: p.categories as Flow.Flow["categories"] } : {})
      }
      const updated = yield* (yield* FlowRepo).update(tenant, p.id, patch, Flow.sources("update"), yield* Time.now)
      if (Option.isSome(updated)) return updated.value
      const now = yield* (yield* FlowRepo).find(tenant, p.id)
      return yield* Effect.fail(
        Option.isNone(now)
          ? new Errors.ResourceNotFound({ resource: "flow", id: p.id })
          : new Errors.InvalidState({ resource: "flow", status: now.value.status, operation: "update" })
      )
    })
})

/** Every flow mirror kind (the flows module registers them). */
export const kinds = [create, update] as const
