/**
 * The domain's `FlowOperator` over the Graph API (GRAPH_API.md §5.1): `GET /{WABA_ID}/flows`
 * (the list, all pages), `POST /{WABA_ID}/flows`
 * (a write: not retried after a lost answer), `POST /{FLOW_ID}` (metadata, endpoint),
 * `POST /{FLOW_ID}/assets` (the Flow JSON uploaded as multipart/form-data: `file`, `name`,
 * `asset_type: FLOW_JSON`), `publish`,
 * `deprecate`, `DELETE /{FLOW_ID}`, the preview link (`GET /{FLOW_ID}?fields=preview`), and
 * the phone number's business public key (`POST /{PHONE_NUMBER_ID}/whatsapp_business_encryption`).
 * Everything but creation is idempotent and retried by the shared `GraphApi`.
 */
import { FlowOperator, type Store } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import { GraphApi } from "./GraphApi.js"
import { deleteObject, runDecoded } from "./internal/answers.js"
import * as Graph from "./internal/graph.js"

const CreatedAnswer = Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number) })
const ValidationError = Schema.Struct({
  error: Schema.optionalWith(Schema.String, { default: () => "UNKNOWN" }),
  error_type: Schema.optionalWith(Schema.String, { default: () => "UNKNOWN" }),
  message: Schema.optionalWith(Schema.String, { default: () => "" }),
  line_start: Schema.optional(Schema.Number),
  line_end: Schema.optional(Schema.Number),
  column_start: Schema.optional(Schema.Number),
  column_end: Schema.optional(Schema.Number)
})
const AssetsAnswer = Schema.Struct({ validation_errors: Schema.optionalWith(Schema.Array(ValidationError), { default: () => [] }) })
const FlowsPage = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.Union(Schema.String, Schema.Number), name: Schema.String, status: Schema.String })),
  paging: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        cursors: Schema.optional(Schema.NullOr(Schema.Struct({ after: Schema.optional(Schema.NullOr(Schema.String)) }))),
        next: Schema.optional(Schema.NullOr(Schema.String))
      })
    )
  )
})
/** A safety stop for a paging loop that would never end. */
const MAX_PAGES = 200
const PreviewAnswer = Schema.Struct({ preview: Schema.Struct({ preview_url: Schema.String, expires_at: Schema.String }) })

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<FlowOperator.FlowOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const post = (account: Store.OperatorAccount, segments: ReadonlyArray<string>, json: unknown) =>
    Effect.flatMap(api.endpointFor(account), (endpoint) =>
      Effect.mapError(api.run(Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, ...segments), { json }), "idempotent"), Graph.toDomainError)
    )
  return FlowOperator.FlowOperator.of({
    createFlow: (account, flow) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const call = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.wabaId, "flows"), {
          json: {
            name: flow.name,
            categories: flow.categories,
            ...(flow.cloneFlowId === undefined ? {} : { clone_flow_id: flow.cloneFlowId })
          }
        })
        const created = yield* runDecoded(api, call, "write", Graph.toDomainError, CreatedAnswer, "flow creation")
        return String(created.id)
      }),

    // the list pages with `paging.cursors.after` while `paging.next` is given (GRAPH_API.md §5.1)
    listFlows: (account) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const url = Graph.graphUrl(endpoint, account.wabaId, "flows")
        const flows: Array<FlowOperator.OperatorFlow> = []
        let after: string | undefined
        for (let page = 0; page < MAX_PAGES; page++) {
          const query: Record<string, string> = { fields: "id,name,status", limit: "100", ...(after === undefined ? {} : { after }) }
          const answer = yield* runDecoded(
            api,
            Graph.request(endpoint, "GET", url, { query }),
            "idempotent",
            Graph.toDomainError,
            FlowsPage,
            "flow list"
          )
          flows.push(...answer.data.map((f) => ({ id: String(f.id), name: f.name, status: f.status })))
          const next = answer.paging?.cursors?.after ?? undefined
          if (answer.paging?.next == null || answer.data.length === 0 || next === undefined || next === after) return flows
          after = next
        }
        return yield* Effect.fail(Graph.unavailable({ kind: "unreachable", reason: `the flow list did not end after ${MAX_PAGES} pages` }))
      }),

    updateFlow: (account, flowId, metadata) =>
      post(account, [flowId], {
        ...(metadata.name === undefined ? {} : { name: metadata.name }),
        ...(metadata.categories === undefined ? {} : { categories: metadata.categories }),
        ...(metadata.endpointUri === undefined ? {} : { endpoint_uri: metadata.endpointUri ?? "" })
      }).pipe(Effect.asVoid),

    // the documented upload: multipart/form-data with the JSON as the file `flow.json`
    putJson: (account, flowId, json) =>
      Effect.flatMap(api.endpointFor(account), (endpoint) => {
        const upload = Graph.multipartRequest(endpoint, Graph.graphUrl(endpoint, flowId, "assets"), [
          { name: "name", value: "flow.json" },
          { name: "asset_type", value: "FLOW_JSON" },
          { name: "file", value: json, filename: "flow.json", contentType: "application/json" }
        ])
        return runDecoded(api, upload, "idempotent", Graph.toDomainError, AssetsAnswer, "flow assets").pipe(Effect.map((a) => a.validation_errors))
      }),

    publish: (account, flowId) => post(account, [flowId, "publish"], {}).pipe(Effect.asVoid),

    deprecate: (account, flowId) => post(account, [flowId, "deprecate"], {}).pipe(Effect.asVoid),

    deleteFlow: (account, flowId) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        yield* deleteObject(api, endpoint, flowId)
      }),

    preview: (account, flowId) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const read = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, flowId), { query: { fields: "preview.invalidate(false)" } })
        const answer = yield* runDecoded(api, read, "idempotent", Graph.toDomainError, PreviewAnswer, "flow preview")
        return { previewUrl: answer.preview.preview_url, expiresAt: Date.parse(answer.preview.expires_at) }
      }),

    setEncryptionKey: (account, publicKeyPem) =>
      post(account, [account.phoneNumberId, "whatsapp_business_encryption"], { business_public_key: publicKeyPem }).pipe(Effect.asVoid)
  })
})

/** `FlowOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<FlowOperator.FlowOperator, never, GraphApi> = Layer.effect(FlowOperator.FlowOperator, make)
