/**
 * Flow routes (spec §4.11): create, list, read, edit, put the Flow JSON, publish, deprecate,
 * delete, and versions. Every change is a mirrored write (`FlowMirrors.ts`, run by
 * `shared/Mirror.ts`): made at the operator (on the tenant's account: the sandbox for test
 * keys) outside any transaction and recorded once the operator took it; a refusal is
 * `OperatorRejected`, an unreachable operator `OperatorUnavailable`, and then nothing
 * changed here. The state machine (`Flow.transition`) is asked before the operator is
 * called, and the write is a compare-and-set from the statuses it allows. Publishing and
 * deprecating emit `flow.published` and `flow.deprecated` in the transaction of the write
 * (a version deprecated by the publishing of another of its lineage too, naming it in
 * `replaced_by`). Versioning's rules are `FlowVersions`.
 */
import { Effect, Either } from "effect"
import * as FlowMirrors from "./FlowMirrors.js"
import * as Mirror from "../shared/Mirror.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import { accountFor } from "../stores/Store.js"
import * as Flow from "./Flow.js"
import { FlowJsonInvalid } from "./FlowErrors.js"
import * as FlowJson from "./FlowJson.js"
import * as FlowJsonFix from "./FlowJsonFix.js"
import { type FlowPatch, FlowRepo } from "./FlowRepo.js"
import { CallerEndpoint, FlowCrypto, secretOf } from "./FlowCrypto.js"

const RESOURCE = "flow"

/** The tenant's flow `id`; 404 `resource_not_found` for a malformed id, another tenant's or an unknown one. */
export const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(FlowRepo, (repo) => Id.lookup(Flow.FlowId, RESOURCE, id, (flowId) => repo.find(tenant, flowId)))

export const caller = Effect.map(CurrentStore, ({ store, tenant }) => ({ tenant, account: accountFor(store, tenant.mode) }))

/** Fails with the state machine's refusal when `operation` is not allowed on `flow`. */
const allowed = (flow: Flow.Flow, operation: Flow.Operation) =>
  Either.match(Flow.transition(flow.status, operation), { onLeft: Effect.fail, onRight: Effect.succeed })

/** `POST /chat/flows`: a DRAFT, version 1 of its lineage, created at the operator (a mirrored write, `FlowMirrors.create`). */
export const create = (input: typeof Flow.CreateFlow.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const id = yield* Flow.FlowId.generate
    return yield* Mirror.run(FlowMirrors.create, { tenant, account, prepare: Effect.succeed({ id, name: input.name, categories: input.categories }) })
  })

/** `GET /chat/flows`: newest first, optionally by status. */
export const list = (query: { readonly limit: number; readonly cursor?: Flow.FlowId | undefined; readonly status?: Flow.Status | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* FlowRepo).list(tenant, { limit: query.limit, after: query.cursor, status: query.status })
    return Pagination.pageOf(slice, Flow.FlowId.schema, (f) => f.id)
  })

/** `GET /chat/flows/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** `PATCH /chat/flows/{id}`: a DRAFT's name and categories. */
export const update = (id: string, input: typeof Flow.UpdateFlow.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    yield* allowed(flow, "update")
    const patch: FlowPatch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.categories !== undefined ? { categories: input.categories } : {})
    }
    if (Object.keys(patch).length === 0) return flow
    const { name, categories } = input
    return yield* Mirror.run(FlowMirrors.update, {
      tenant,
      account,
      prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId, name, categories })
    })
  })

/**
 * Reads, fixes (with `autoFix`) and validates a Flow JSON sent as an object or as text.
 * Answers the text to store and the fixes, or `FlowJsonInvalid` with every error (positioned
 * in the text when it came as text) and the fixes tried.
 */
export const prepareJson = (input: unknown, autoFix: boolean, context: FlowJson.Context) => {
  const parsed = typeof input === "string" ? FlowJson.parseText(input) : { doc: input, spans: new Map() }
  if ("error" in parsed) return Either.left(new FlowJsonInvalid({ errors: [parsed], fixesTried: [] }))
  const { doc, fixes } = autoFix ? FlowJsonFix.autoFix(parsed.doc, context) : { doc: parsed.doc, fixes: [] }
  const errors = FlowJson.positioned(FlowJson.validate(doc, context), parsed.spans)
  if (errors.length > 0) return Either.left(new FlowJsonInvalid({ errors, fixesTried: fixes }))
  const text = typeof input === "string" && fixes.length === 0 ? input : JSON.stringify(doc, null, 2)
  const version = FlowJson.isObject(doc) && typeof doc.version === "string" ? doc.version : null
  return Either.right({ text, version, fixes })
}

/** `PUT /chat/flows/{id}/json`: a DRAFT's Flow JSON, validated here and then given to the operator. */
export const putJson = (id: string, input: typeof Flow.PutJson.Type) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    yield* allowed(flow, "update")
    const prepared = yield* Either.match(prepareJson(input.json, input.autoFix, { hasEndpoint: flow.endpointUrl !== null }), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    })
    const stored = yield* Mirror.run(FlowMirrors.putJson, {
      tenant,
      account,
      prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId, json: prepared.text, jsonVersion: prepared.version })
    })
    return { ...stored, fixesApplied: prepared.fixes }
  })

/** `GET /chat/flows/{id}/json`: the stored Flow JSON (null before one is put). */
export const getJson = (id: string) =>
  Effect.map(get(id), (flow) => ({
    id: flow.id,
    json: flow.json === null ? null : (JSON.parse(flow.json) as unknown),
    jsonVersion: flow.jsonVersion
  }))

/**
 * `POST /chat/flows/{id}/publish`: a DRAFT with a valid Flow JSON. The other published
 * versions of its lineage (`FlowVersions.replacedBy`: its predecessor first) are deprecated
 * in the same step unless `deprecate_previous` is false.
 */
export const publish = (id: string, input: typeof Flow.Publish.Type = { deprecate_previous: true }) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    yield* allowed(flow, "publish")
    if (flow.json === null)
      return yield* Effect.fail(Errors.ValidationFailed.of("json", "the flow has no Flow JSON yet: PUT /chat/flows/{id}/json first"))
    const errors = FlowJson.check(flow.json, { hasEndpoint: flow.endpointUrl !== null }).errors
    if (errors.length > 0) return yield* Effect.fail(new FlowJsonInvalid({ errors, fixesTried: [] }))
    if (flow.endpointUrl !== null) {
      const reason = yield* healthCheck(flow.id, flow.endpointUrl)
      if (reason !== undefined) {
        return yield* Effect.fail(
          new Errors.InvalidState({ resource: RESOURCE, status: flow.status, operation: `publish (its endpoint failed the health check: ${reason})` })
        )
      }
    }
    const { published, chained } = yield* Mirror.run(FlowMirrors.publish, {
      tenant,
      account,
      prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId, deprecatePrevious: input.deprecate_previous })
    })
    // the predecessors' deprecations committed with the publish: finished here, or by the sweep after a crash
    for (const step of chained) yield* Mirror.complete(FlowMirrors.deprecate, step.id, step.payload, { tenant, account })
    return published
  })

/** The caller's endpoint answers a signed `ping` with `{"data": {"status": "active"}}`; otherwise the reason. */
const healthCheck = (flowId: string, url: string) =>
  Effect.gen(function* () {
    const crypto = yield* FlowCrypto
    const answer = yield* Effect.either(
      (yield* CallerEndpoint).exchange(url, secretOf(crypto, flowId), { version: "3.0", action: "ping", flow_id: flowId })
    )
    if (answer._tag === "Left") return `no answer (${answer.left})`
    if (answer.right.status < 200 || answer.right.status > 299) return `HTTP ${answer.right.status}`
    try {
      const body = JSON.parse(answer.right.body)
      return body?.data?.status === "active" ? undefined : 'the answer is not {"data": {"status": "active"}}'
    } catch {
      return "the answer is not JSON"
    }
  })

/** `POST /chat/flows/{id}/deprecate`: a published flow (PUBLISHED, THROTTLED or BLOCKED). */
export const deprecate = (id: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    yield* allowed(flow, "deprecate")
    return yield* Mirror.run(FlowMirrors.deprecate, {
      tenant,
      account,
      prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId, replacedBy: null })
    })
  })

/** `DELETE /chat/flows/{id}`: a DRAFT only. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    yield* allowed(flow, "delete")
    return yield* Mirror.run(FlowMirrors.remove, { tenant, account, prepare: Effect.succeed({ id: flow.id, operatorFlowId: flow.operatorFlowId }) })
  })

/**
 * `POST /chat/flows/{id}/versions`: a new DRAFT copied from the flow (name, categories, JSON,
 * endpoint), naming it as predecessor, numbered after the lineage's highest version. A
 * concurrent twin that took the same number first makes this one take the next
 * (`FlowVersions`): both are created, with distinct numbers.
 */
export const newVersion = (id: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const source = yield* lookup(tenant, id)
    const newId = yield* Flow.FlowId.generate
    return yield* Mirror.run(FlowMirrors.newVersion, { tenant, account, prepare: Effect.succeed({ id: newId, source }) })
  })

/** The position of a version in its lineage's list: its number (`seq:<n>` in the cursor). */
export const VersionPosition = Pagination.Sequence("version")

/** `GET /chat/flows/{id}/versions`: a page of the versions of the flow's lineage, oldest first. */
export const versions = (id: string, query: { readonly limit: number; readonly cursor?: number | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const flow = yield* lookup(tenant, id)
    const lineage = yield* (yield* FlowRepo).lineage(tenant, flow.lineageId)
    return Pagination.pageOfAll(lineage, query, VersionPosition, (version) => version.version)
  })
