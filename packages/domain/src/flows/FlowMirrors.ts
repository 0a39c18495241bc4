/**
 * The flow routes' changes at the operator, as mirrored writes (`shared/Mirror.ts`): prepared
 * (an outbox row, in a transaction), made at the operator outside any transaction, and
 * recorded in the settle's transaction. The pending record of each is the outbox row: the
 * flow changes here once the operator took the change.
 *
 * Publishing chains a second write: its settle (the flow PUBLISHED, `flow.published`) commits
 * with one `deprecate` write per published predecessor (`FlowVersions.replacedBy`), which the
 * route then finishes inline (`Mirror.complete`); after a crash between the two, the sweep
 * finishes them. Calls the operator takes no key for and would refuse twice (create, publish,
 * deprecate) have a `recover`: the sweep looks at the operator's flow list first.
 */
import { Effect, Either, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Flow from "./Flow.js"
import { FlowOperator } from "./FlowOperator.js"
import { type FlowPatch, FlowRepo } from "./FlowRepo.js"
import * as FlowVersions from "./FlowVersions.js"

/** The operator's status of one of its flows (none when it has no such flow). */
const operatorStatus = (account: OperatorAccount, operatorFlowId: string) =>
  Effect.flatMap(FlowOperator, (op) =>
    Effect.map(op.listFlows(account), (flows) => Option.fromNullable(flows.find((f) => f.id === operatorFlowId)?.status))
  )

/** The refusal for `operation` on the flow as it is now: unknown, the state machine's, or a concurrent change. */
const refused = (tenant: Tenant, id: Flow.FlowId, operation: Flow.Operation) =>
  Effect.gen(function* () {
    const now = yield* (yield* FlowRepo).find(tenant, id)
    if (Option.isNone(now)) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "flow", id }))
    const allowed = Flow.transition(now.value.status, operation)
    if (Either.isLeft(allowed)) return yield* Effect.fail(allowed.left)
    return yield* Effect.fail(new Errors.InvalidState({ resource: "flow", status: now.value.status, operation }))
  })

/** Applies `patch` while the flow's status allows `operation`, or fails with the refusal. */
const change = (tenant: Tenant, id: Flow.FlowId, operation: Flow.Operation, patch: FlowPatch) =>
  Effect.gen(function* () {
    const updated = yield* (yield* FlowRepo).update(tenant, id, patch, Flow.sources(operation), yield* Time.now)
    return Option.isSome(updated) ? updated.value : yield* refused(tenant, id, operation)
  })

/** The data of `flow.published` and `flow.deprecated`: the flow after the change and its status before. */
const eventData = (flow: Flow.Flow, previousStatus: Flow.Status) => ({
  flow_id: flow.id,
  name: flow.name,
  version: flow.version,
  lineage_id: flow.lineageId,
  previous_version_id: flow.previousVersionId,
  operator_flow_id: flow.operatorFlowId,
  previous_status: previousStatus,
  status: flow.status,
  changed_at: Time.toIso(flow.updatedAt)
})

/** Publishes or deprecates the flow here, with its caller event (in the settle's transaction). */
const setStatus = (tenant: Tenant, id: Flow.FlowId, operation: "publish" | "deprecate", replacedBy: Flow.FlowId | null) =>
  Effect.gen(function* () {
    const before = yield* (yield* FlowRepo).find(tenant, id)
    if (Option.isNone(before)) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "flow", id }))
    const updated = yield* change(tenant, id, operation, { status: operation === "publish" ? "PUBLISHED" : "DEPRECATED" })
    yield* operation === "publish"
      ? Webhooks.emit(tenant, "flow.published", eventData(updated, before.value.status))
      : Webhooks.emit(tenant, "flow.deprecated", { ...eventData(updated, before.value.status), replaced_by: replacedBy })
    return updated
  })

const Created = Schema.Struct({ id: Flow.FlowId.schema, name: Schema.String, categories: Schema.Array(Schema.String) })

/** `POST /chat/flows`: a DRAFT, version 1 of its lineage, created at the operator, then here. */
export const create = Mirror.kind({
  kind: "flows.create",
  payload: Created,
  call: (p: typeof Created.Type, { account }) =>
    Effect.flatMap(FlowOperator, (op) => op.createFlow(account, { name: p.name, categories: p.categories })),
  // the operator takes no key for a create: a flow of this name it has and we have not recorded is the one a crash left
  recover: (p, { account, tenant }) => unrecordedDraft(tenant, account, p.name),
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

const Versioned = Schema.Struct({ id: Flow.FlowId.schema, source: Flow.Flow })

/** The operator's flow a crashed new version left: a DRAFT of the source's name that no version here records. */
const unrecordedDraft = (tenant: Tenant, account: OperatorAccount, name: string) =>
  Effect.gen(function* () {
    const repo = yield* FlowRepo
    const named = (yield* (yield* FlowOperator).listFlows(account)).filter((f) => f.name === name && f.status === "DRAFT")
    for (const candidate of [...named].reverse()) {
      if (Option.isNone(yield* repo.findByOperatorId(tenant, candidate.id))) return Option.some(candidate.id)
    }
    return Option.none<string>()
  })

/** The source's Flow JSON on the operator's new flow: its validation errors (none without a Flow JSON). */
const copyJson = (account: OperatorAccount, operatorFlowId: string, json: string | null) =>
  json === null
    ? Effect.succeed({ operatorFlowId, validationErrors: [] as Flow.Flow["validationErrors"] })
    : Effect.map(
        Effect.flatMap(FlowOperator, (op) => op.putJson(account, operatorFlowId, json)),
        (validationErrors) => ({
          operatorFlowId,
          validationErrors: validationErrors as Flow.Flow["validationErrors"]
        })
      )

/**
 * `POST /chat/flows/{id}/versions`: a DRAFT cloned at the operator from the source version
 * (as it was when asked: the payload holds it) with its Flow JSON, then stored here numbered
 * one past its lineage (`FlowVersions.draftFrom`; a number a concurrent twin took is skipped).
 */
export const newVersion = Mirror.kind({
  kind: "flows.new_version",
  payload: Versioned,
  call: (p: typeof Versioned.Type, { account }) =>
    Effect.gen(function* () {
      const operatorFlowId = yield* (yield* FlowOperator).createFlow(account, {
        name: p.source.name,
        categories: p.source.categories,
        cloneFlowId: p.source.operatorFlowId
      })
      return yield* copyJson(account, operatorFlowId, p.source.json)
    }),
  // the operator takes no key for a create: the clone a crash left is found by name, and its Flow JSON put again (a put replaces)
  recover: (p, { account, tenant }) =>
    Effect.gen(function* () {
      const found = yield* unrecordedDraft(tenant, account, p.source.name)
      if (Option.isNone(found)) return Option.none()
      return Option.some(yield* copyJson(account, found.value, p.source.json))
    }),
  settle: (p, made, { tenant }) =>
    Effect.gen(function* () {
      const repo = yield* FlowRepo
      const fields = { id: p.id, operatorFlowId: made.operatorFlowId, validationErrors: made.validationErrors, now: yield* Time.now }
      const insert = (versions: ReadonlyArray<Flow.Flow>): Effect.Effect<Flow.Flow> =>
        Effect.gen(function* () {
          const flow = FlowVersions.draftFrom(p.source, versions, fields)
          if (yield* repo.insert(tenant, flow)) return flow
          // a concurrent new version took this number: take the next (each retry means another version was stored)
          const current = yield* repo.lineage(tenant, p.source.lineageId)
          if (!current.some((f) => f.version === flow.version)) return yield* Effect.dieMessage(`flow version ${flow.version} refused but not taken`)
          return yield* insert(current)
        })
      return yield* insert(yield* repo.lineage(tenant, p.source.lineageId))
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
  settle: (p, _answer, { tenant }) =>
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

const Target = Schema.Struct({ id: Flow.FlowId.schema, operatorFlowId: Schema.String })

const Json = Schema.extend(Target, Schema.Struct({ json: Schema.String, jsonVersion: Schema.NullOr(Schema.String) }))

/** `PUT /chat/flows/{id}/json`: a DRAFT's Flow JSON (validated here), uploaded to the operator, then stored with its validation errors. */
export const putJson = Mirror.kind({
  kind: "flows.json",
  payload: Json,
  call: (p: typeof Json.Type, { account }) => Effect.flatMap(FlowOperator, (op) => op.putJson(account, p.operatorFlowId, p.json)),
  settle: (p, validationErrors, { tenant }) =>
    change(tenant, p.id, "update", { json: p.json, jsonVersion: p.jsonVersion, validationErrors: validationErrors as Flow.Flow["validationErrors"] })
})

const Deprecation = Schema.extend(Target, Schema.Struct({ replacedBy: Schema.NullOr(Flow.FlowId.schema) }))

/**
 * `POST /chat/flows/{id}/deprecate`, and the second step of a publish (`replacedBy` naming
 * the version published): deprecated at the operator, then here with `flow.deprecated`.
 */
export const deprecate = Mirror.kind({
  kind: "flows.deprecate",
  payload: Deprecation,
  call: (p: typeof Deprecation.Type, { account }) => Effect.flatMap(FlowOperator, (op) => op.deprecate(account, p.operatorFlowId)),
  // the operator refuses to deprecate twice: a flow it shows DEPRECATED took the call
  recover: (p, { account }) =>
    Effect.map(operatorStatus(account, p.operatorFlowId), (status) =>
      Option.isSome(status) && status.value === "DEPRECATED" ? Option.some<void>(undefined) : Option.none<void>()
    ),
  settle: (p, _answer, { tenant }) => setStatus(tenant, p.id, "deprecate", p.replacedBy)
})

const Publication = Schema.extend(Target, Schema.Struct({ deprecatePrevious: Schema.Boolean }))

/** A deprecation the publish's settle committed, for the route to finish inline. */
export interface Chained {
  readonly id: string
  readonly payload: typeof Deprecation.Type
}

/**
 * `POST /chat/flows/{id}/publish`: published at the operator, then here (`flow.published`),
 * with the deprecation of each published predecessor chained as a mirrored write of its own.
 */
export const publish = Mirror.kind({
  kind: "flows.publish",
  payload: Publication,
  call: (p: typeof Publication.Type, { account }) => Effect.flatMap(FlowOperator, (op) => op.publish(account, p.operatorFlowId)),
  // the operator publishes a DRAFT once: a flow it shows published took the call
  recover: (p, { account }) =>
    Effect.map(operatorStatus(account, p.operatorFlowId), (status) =>
      Option.isSome(status) && status.value !== "DRAFT" ? Option.some<void>(undefined) : Option.none<void>()
    ),
  settle: (p, _answer, { tenant }) =>
    Effect.gen(function* () {
      const published = yield* setStatus(tenant, p.id, "publish", null)
      const chained: Array<Chained> = []
      if (p.deprecatePrevious) {
        for (const previous of FlowVersions.replacedBy(yield* (yield* FlowRepo).lineage(tenant, published.lineageId), published)) {
          const payload = { id: previous.id, operatorFlowId: previous.operatorFlowId, replacedBy: published.id }
          chained.push({ id: yield* Mirror.enqueue(deprecate, tenant, payload), payload })
        }
      }
      return { published, chained: chained as ReadonlyArray<Chained> }
    })
})

/** `DELETE /chat/flows/{id}`: a DRAFT, deleted at the operator (a flow it no longer has counts as deleted), then here. */
export const remove = Mirror.kind({
  kind: "flows.delete",
  payload: Target,
  call: (p: typeof Target.Type, { account }) => Effect.flatMap(FlowOperator, (op) => op.deleteFlow(account, p.operatorFlowId)),
  settle: (p, _answer, { tenant }) =>
    Effect.gen(function* () {
      if (!(yield* (yield* FlowRepo).remove(tenant, p.id, Flow.sources("delete")))) return yield* refused(tenant, p.id, "delete")
      return { id: p.id, deleted: true as const }
    })
})

const Endpoint = Schema.extend(Target, Schema.Struct({ endpointUri: Schema.NullOr(Schema.String), endpointUrl: Schema.NullOr(Schema.String) }))

/** `PUT /chat/flows/{id}/endpoint`: the operator given our hosted URL (`endpointUri`, or none), then the caller's URL stored while a DRAFT. */
export const endpoint = Mirror.kind({
  kind: "flows.endpoint",
  payload: Endpoint,
  call: (p: typeof Endpoint.Type, { account }) =>
    Effect.flatMap(FlowOperator, (op) => op.updateFlow(account, p.operatorFlowId, { endpointUri: p.endpointUri })),
  settle: (p, _answer, { tenant }) =>
    Effect.gen(function* () {
      const updated = yield* (yield* FlowRepo).update(tenant, p.id, { endpointUrl: p.endpointUrl }, ["DRAFT"], yield* Time.now)
      if (Option.isSome(updated)) return updated.value
      return yield* Effect.fail(new Errors.InvalidState({ resource: "flow", status: "changed", operation: "update" }))
    })
})

const EncryptionKey = Schema.Struct({ publicKey: Schema.String })

/**
 * The tenant's public key registered with the operator for the data endpoint (`FlowEndpoint`
 * stores the key pair in the prepare, the first saved winning a race, and registers the stored
 * one: twins register the same key). A registration replaces the number's key, so a sweep's
 * second call is harmless; a refused one is answered, and the next endpoint change registers
 * the stored key again.
 */
export const encryptionKey = Mirror.kind({
  kind: "flows.encryption_key",
  payload: EncryptionKey,
  call: (p: typeof EncryptionKey.Type, { account }) => Effect.flatMap(FlowOperator, (op) => op.setEncryptionKey(account, p.publicKey)),
  settle: () => Effect.void
})

/** Every flow mirror kind (the flows module registers them). */
export const kinds = [create, newVersion, update, putJson, publish, deprecate, remove, endpoint, encryptionKey] as const
