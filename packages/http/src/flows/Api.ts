/**
 * Flow routes (spec §4.11): list, create, read, change and delete drafts, the Flow JSON
 * (with `autoFix`), publish, deprecate, and versions. Every route that names a flow answers
 * 404 `resource_not_found` for a malformed id, an unknown one or another store's, the same
 * answer. Editing anything but a DRAFT answers 409 `flow_published`; a Flow JSON with
 * structural mistakes answers 400 `validation_failed` with each error in `details`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Flow, FlowEndpoint, FlowResponse, FlowSandbox, Flows, FlowStats, Pagination } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const FlowPage = Pagination.PageOf(Flow.FlowResource, "FlowPage")

const time = "2026-05-04T09:30:00.000Z"
const flow = {
  id: "flw_01M85GK8TB3E8BH2R1WY18AD8X",
  name: "Sign up",
  categories: ["SIGN_UP"],
  status: "DRAFT",
  version: 1,
  previous_version_id: null,
  json_version: "7.3",
  validation_errors: [],
  endpoint_url: null,
  operator_flow_id: "1234567890123456",
  created_at: time,
  updated_at: time
}
const json = {
  version: "7.3",
  screens: [
    {
      id: "SIGN_UP",
      title: "Sign up",
      terminal: true,
      layout: {
        type: "SingleColumnLayout",
        children: [
          { type: "TextInput", name: "email", label: "Email", "input-type": "email" },
          { type: "Footer", label: "Join", "on-click-action": { name: "complete", payload: { email: "$" + "{form.email}" } } }
        ]
      }
    }
  ]
}

const response = {
  id: "frs_01M85GN4K2C3D4E5F6G7H8J9KA",
  flow_id: flow.id,
  flow_token: "flt_7QeHk2",
  from: "+15551230001",
  response: { email: "ana@example.com", flow_token: "flt_7QeHk2" },
  operator_message_id: "wamid.HBgLMTU1NTEyMzAwMDE",
  received_at: time
}

export class FlowsGroup extends HttpApiGroup.make("flows")
  .add(
    HttpApiEndpoint.get("list", "/flows")
      .setUrlParams(Pagination.ListParams(Flow.FlowId.schema, { status: Schema.optional(Flow.Status) }))
      .addSuccess(FlowPage)
  )
  .add(Endpoints.create("create", "/flows", Flow.CreateFlow, Flow.FlowResource, [...ApiError.operatorErrors]))
  .add(Endpoints.getOne("get", "/flows/:id", Flow.FlowResource))
  .add(
    Endpoints.update("update", "/flows/:id", Flow.UpdateFlow, Flow.FlowResource, [
      ApiError.ResourceNotFound,
      ApiError.FlowPublished,
      ApiError.InvalidState,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    Endpoints.remove("remove", "/flows/:id", Flow.Deleted, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ApiError.FlowPublished,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    HttpApiEndpoint.put("putJson", "/flows/:id/json")
      .setPath(IdPath)
      .setPayload(Flow.PutJson)
      .addSuccess(Flow.PutJsonResult)
      .pipe(
        ApiError.withErrors(
          ApiError.ResourceNotFound,
          ApiError.FlowPublished,
          ApiError.InvalidState,
          ApiError.FlowJsonInvalid,
          ...ApiError.operatorErrors
        )
      )
  )
  .add(Endpoints.getOne("getJson", "/flows/:id/json", Flow.JsonDocument))
  .add(
    HttpApiEndpoint.post("publish", "/flows/:id/publish")
      .setPath(IdPath)
      .setUrlParams(
        Schema.Struct({
          deprecate_previous: Schema.optional(
            Schema.BooleanFromString.annotations({
              description: "`false` keeps the lineage's other published versions published (default `true`: they are deprecated)"
            })
          )
        })
      )
      .addSuccess(Flow.FlowResource)
      .pipe(
        ApiError.withErrors(
          ApiError.ResourceNotFound,
          ApiError.InvalidState,
          ApiError.FlowPublished,
          ApiError.FlowJsonInvalid,
          ...ApiError.operatorErrors
        )
      )
  )
  .add(
    HttpApiEndpoint.post("deprecate", "/flows/:id/deprecate")
      .setPath(IdPath)
      .addSuccess(Flow.FlowResource)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ApiError.InvalidState, ApiError.FlowPublished, ...ApiError.operatorErrors))
  )
  .add(
    HttpApiEndpoint.post("newVersion", "/flows/:id/versions")
      .setPath(IdPath)
      .addSuccess(Flow.FlowResource, { status: 201 })
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ...ApiError.operatorErrors))
  )
  .add(
    HttpApiEndpoint.get("versions", "/flows/:id/versions")
      .setPath(IdPath)
      .setUrlParams(Pagination.ListParams(Flows.VersionPosition, {}))
      .addSuccess(FlowPage)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("responses", "/flows/:id/responses")
      .setPath(IdPath)
      .setUrlParams(FlowResponse.ListResponses)
      .addSuccess(FlowResponse.FlowResponsePage)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("stats", "/flows/:id/stats")
      .setPath(IdPath)
      .setUrlParams(FlowStats.StatsQuery)
      .addSuccess(FlowStats.FlowStats)
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.put("putEndpoint", "/flows/:id/endpoint")
      .setPath(IdPath)
      .setPayload(Flow.PutEndpoint)
      .addSuccess(FlowEndpoint.PutEndpointResult)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ApiError.FlowPublished, ApiError.InvalidState, ...ApiError.operatorErrors))
  )
  .add(
    HttpApiEndpoint.get("preview", "/flows/:id/preview")
      .setPath(IdPath)
      .addSuccess(
        Schema.Struct({
          preview_url: Schema.String,
          expires_at: Schema.String,
          operator_preview_url: Schema.NullOr(Schema.String),
          operator_expires_at: Schema.NullOr(Schema.String)
        }).annotations({ identifier: "FlowPreview" })
      )
      .addError(ApiError.ResourceNotFound)
  )
  .add(HttpApiEndpoint.get("allResponses", "/flow-responses").setUrlParams(FlowResponse.ListAllResponses).addSuccess(FlowResponse.FlowResponsePage))
  .add(
    Endpoints.accepted("sandboxResponse", "/sandbox/flow-responses", FlowResponse.SandboxFlowResponse, FlowResponse.SandboxFlowResponseAccepted, [
      ApiError.Forbidden,
      ApiError.OperatorUnavailable
    ])
  )
  .add(
    HttpApiEndpoint.post("sandboxDataExchange", "/sandbox/flows/:id/data-exchange")
      .setPath(IdPath)
      .setPayload(FlowSandbox.SandboxDataExchange)
      .addSuccess(FlowSandbox.SandboxDataExchangeResult)
      .pipe(ApiError.withErrors(ApiError.Forbidden, ApiError.ResourceNotFound, ApiError.InvalidState, ApiError.OperatorUnavailable))
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { flows: "Native forms filled in inside the conversation: Flow JSON, versions, publishing" },
    ids: { flows: flow.id, sandbox: flow.id },
    operations: {
      "flows.list": { summary: "List flows", response: { data: [flow], next_cursor: null } },
      "flows.create": {
        summary: "Create a flow",
        description: "A DRAFT, version 1, created at the operator too.",
        request: { name: "Sign up", categories: ["SIGN_UP"] },
        response: { ...flow, json_version: null }
      },
      "flows.get": { summary: "Get a flow", response: flow },
      "flows.update": {
        summary: "Change a draft flow",
        description: "Only a DRAFT: anything else answers 409 `flow_published`.",
        request: { name: "Sign up (2026)" },
        response: { ...flow, name: "Sign up (2026)" }
      },
      "flows.remove": { summary: "Delete a draft flow", response: { id: flow.id, deleted: true } },
      "flows.putJson": {
        summary: "Replace the Flow JSON",
        description:
          "Validated here before the operator sees it. Without `autoFix`, a structural mistake answers 400 `validation_failed` with each error (its JSON pointer `path`, and `line_start`… when the JSON was sent as a string). With `autoFix: true` the common mistakes are corrected and listed in `fixes_applied`.",
        request: { json, autoFix: true },
        response: { ...flow, fixes_applied: [] }
      },
      "flows.getJson": { summary: "Get the Flow JSON", response: { id: flow.id, json, json_version: "7.3" } },
      "flows.publish": {
        summary: "Publish a flow",
        description:
          "Irreversible. The lineage's other published versions (its predecessor among them) are deprecated in the same step unless `deprecate_previous=false`.",
        response: { ...flow, status: "PUBLISHED" }
      },
      "flows.deprecate": { summary: "Deprecate a published flow", response: { ...flow, status: "DEPRECATED" } },
      "flows.newVersion": {
        summary: "Make a new version",
        description: "A new DRAFT copied from the flow (name, categories, Flow JSON, endpoint) that names it as `previous_version_id`.",
        response: { ...flow, id: "flw_01M85GM2Q4B1V9W2X3Y4Z5A6B7", version: 2, previous_version_id: flow.id }
      },
      "flows.versions": { summary: "List a flow's versions", response: { data: [flow], next_cursor: null } },
      "flows.responses": {
        summary: "List a flow's responses",
        description: "Newest first; `flow_token`, `since` and `until` filter. Each response is also sent as the caller event `flow.response`.",
        response: { data: [response], next_cursor: null }
      },
      "flows.stats": {
        summary: "A flow's statistics",
        description:
          "Over `since`..`until` (default: the last 30 days): messages sent, responses, completion rate, the hosted data endpoint's requests, errors, latency and availability, and counts by day.",
        response: {
          flow_id: flow.id,
          since: "2026-04-04T09:30:00.000Z",
          until: time,
          sent: 2,
          responses: 1,
          completion_rate: 0.5,
          endpoint: { requests: 3, errors: 0, error_rate: 0, p50_latency_ms: 41, p90_latency_ms: 88, availability: 1 },
          by_day: [{ date: "2026-05-04", sent: 2, responses: 1, endpoint_requests: 3, endpoint_errors: 0 }]
        }
      },
      "flows.putEndpoint": {
        summary: "Set a draft's data endpoint",
        description:
          "The caller's URL (checked by the SSRF guard). The operator is given this server's own endpoint, which decrypts its requests, forwards them to the URL as plain JSON signed with `endpoint_secret` (Standard Webhooks), checks and encrypts the reply. `url: null` removes it.",
        request: { url: "https://shop.example.com/flow-data" },
        response: {
          ...flow,
          endpoint_url: "https://shop.example.com/flow-data",
          hosted_endpoint_url: `https://switchboard.example.com/chat/flow-endpoint/${flow.id}`,
          endpoint_secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        }
      },
      "flows.preview": {
        summary: "A preview link",
        description:
          "A signed link to this server's own preview page (the screens rendered as HTML, valid a day), in every mode; for live accounts the operator's preview link too.",
        response: {
          preview_url: `https://switchboard.example.com/chat/flow-preview/${flow.id}?expires=1777973400000&signature=3n8Qx…`,
          expires_at: "2026-05-05T09:30:00.000Z",
          operator_preview_url: null,
          operator_expires_at: null
        }
      },
      "flows.allResponses": {
        summary: "List every flow response",
        description: "`unmatched=true` lists the responses whose `flow_token` matched no flow message sent here.",
        response: { data: [{ ...response, flow_id: null, flow_token: "from-elsewhere" }], next_cursor: null }
      },
      "flows.sandboxResponse": {
        summary: "A sandbox customer submits a flow (test keys)",
        description: "The emulator sends the real `nfm_reply` webhook with `response` and the `flow_token` as its `response_json`.",
        request: { phone: "+15551230001", flow_token: "flt_7QeHk2", response: { email: "ana@example.com" } },
        response: { accepted: true, flow_token: "flt_7QeHk2", operator_message_id: "wamid.HBgLMTU1NTEyMzAwMDE" }
      },
      "flows.sandboxDataExchange": {
        summary: "A sandbox customer's client calls the flow's data endpoint (test keys)",
        description:
          "The emulator does what the operator does (GRAPH_API §5.5): encrypts `{version, action, screen, data, flow_token}` with the number's public key (RSA-OAEP, AES-GCM), signs it with the app secret (`X-Hub-Signature-256`) and POSTs it to our hosted endpoint, which forwards it to the flow's `endpoint_url` and encrypts the reply with the inverted IV; the emulator decrypts it. `status` is the hosted endpoint's HTTP status: 200 with `response`, or 421, 427 (unknown `flow_token`), 432, 500 with `error`. `flow_token` is required for every `action` but `ping`.",
        request: {
          phone: "+15551230001",
          action: "data_exchange",
          screen: "SIGN_UP",
          data: { email: "ana@example.com" },
          flow_token: "flt_7QeHk2"
        },
        response: {
          flow_id: flow.id,
          action: "data_exchange",
          flow_token: "flt_7QeHk2",
          status: 200,
          response: { screen: "SUCCESS", data: { extension_message_response: { params: { flow_token: "flt_7QeHk2" } } } },
          error: null,
          latency_ms: 12
        }
      }
    }
  }) {}

/**
 * The hosted data endpoint's refusals (GRAPH_API §5.5), in the error envelope: the statuses
 * the operator reads (421 cannot decrypt, 427 unknown flow token, 432 bad signature) and 500
 * when the caller's endpoint fails. Declared for the document; the handler writes them.
 */
const endpointRefusal = <Extra extends Schema.Struct.Fields>(code: string, status: number, description: string, extra: Extra) =>
  Schema.Struct({ ...extra, error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) }).annotations({
    ...HttpApiSchema.annotations({ status }),
    identifier: code,
    description
  })
const CannotDecrypt = endpointRefusal("cannot_decrypt", 421, "421: the request could not be decrypted", {})
const FlowTokenInvalid = endpointRefusal("flow_token_invalid", 427, "427: a flow token no flow message of ours carried", {
  error_msg: Schema.String
})
const SignatureInvalid = endpointRefusal("signature_invalid", 432, "432: `X-Hub-Signature-256` is missing or wrong", {})
const EndpointFailed = endpointRefusal("endpoint_failed", 500, "500: the caller's endpoint failed or answered what the flow does not declare", {})

/** What needs no API key because it carries its own proof: the signed preview page. */
export class FlowsPublicGroup extends HttpApiGroup.make("flowsPublic")
  .add(
    HttpApiEndpoint.get("previewPage", "/flow-preview/:id")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({ expires: Schema.String, signature: Schema.String }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }))
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.post("dataEndpoint", "/flow-endpoint/:id")
      .setPath(IdPath)
      .setPayload(FlowEndpoint.EndpointRequest)
      .addSuccess(HttpApiSchema.Text())
      .addError(ApiError.ResourceNotFound)
      .addError(CannotDecrypt)
      .addError(FlowTokenInvalid)
      .addError(SignatureInvalid)
      .addError(EndpointFailed)
  )
  .prefix("/chat")
  .annotate(Docs, {
    tags: { flowsPublic: "Flow pages that carry their own proof (no API key)" },
    ids: { "flow-preview": flow.id, "flow-endpoint": flow.id },
    operations: {
      "flowsPublic.dataEndpoint": {
        summary: "The hosted data endpoint (called by the operator)",
        description:
          "Encrypted as GRAPH_API §5.5 says: 200 with the encrypted reply (base64), 432 when `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret) is missing or wrong, 421 when it cannot decrypt, 427 for an unknown flow token, 500 when the caller's endpoint fails or answers a screen or data the flow does not declare.",
        request: { encrypted_flow_data: "b64…", encrypted_aes_key: "b64…", initial_vector: "b64…" },
        response: "b64…"
      },
      "flowsPublic.previewPage": {
        summary: "A flow's preview page",
        description: "The link `GET /chat/flows/{id}/preview` answers: the screens as HTML; a bad or expired signature answers 404.",
        response: '<!doctype html><html><body><section id="SIGN_UP"><h1>Sign up</h1></section></body></html>'
      }
    }
  }) {}
