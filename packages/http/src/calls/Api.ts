/**
 * Call routes (spec §4.8): the permission of a customer and its request, and the sandbox
 * customer's answer (test keys only). Schemas come from the domain: handlers return what
 * the use cases answer and these schemas encode it.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Call, CallButton, CallInsights, CallPermission, CallSandbox, CallSettings } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const PhonePath = Schema.Struct({ phone: Schema.String })

const time = "2026-05-04T09:30:00.000Z"
const permission = {
  phone: "+15551230099",
  status: "temporary",
  expires_at: "2026-05-11T09:30:00.000Z",
  can_start_call: true,
  can_request_permission: false,
  limits: [
    { period: "PT24H", max: 1, used: 1, frees_at: "2026-05-05T09:00:00.000Z" },
    { period: "P7D", max: 2, used: 1, frees_at: null }
  ],
  next_request_allowed_at: "2026-05-05T09:00:00.000Z",
  updated_at: time
}

const CodecSummary = Schema.Struct({
  payload_type: Schema.Number,
  name: Schema.String,
  clock_rate: Schema.Number,
  channels: Schema.NullOr(Schema.Number)
})
const SdpSummary = Schema.Struct({
  codecs: Schema.Array(CodecSummary),
  direction: Schema.NullOr(Schema.String),
  fingerprint_algorithm: Schema.NullOr(Schema.String),
  key_exchange: Schema.NullOr(Schema.Literal("DTLS", "SDES")),
  ice_ufrag: Schema.NullOr(Schema.String),
  candidates: Schema.Array(Schema.String),
  sdp: Schema.String
}).annotations({ identifier: "CallSdpSummary" })
const CallMedia = Schema.Struct({
  id: Call.CallId.schema,
  status: Call.Status,
  negotiated_codecs: Schema.Array(Schema.String),
  offer: Schema.NullOr(SdpSummary),
  answer: Schema.NullOr(SdpSummary)
}).annotations({ identifier: "CallMedia" })
const SandboxCallPlaced = Schema.Struct({
  accepted: Schema.Literal(true),
  operator_call_id: Schema.String,
  call_id: Schema.NullOr(Call.CallId.schema)
}).annotations({ identifier: "SandboxCallPlaced" })

/** What refuses a call: its permission, a call already on, the limits, calling off for the number, a customer who cannot be called, the operator. */
const callingErrors = [
  ApiError.CallPermissionRequired,
  ApiError.CallInProgress,
  ApiError.CallLimitReached,
  ApiError.CallingNotEnabled,
  ApiError.CustomerNotCallable,
  ...ApiError.operatorErrors
] as const

/** What refuses a change of a call: an unknown call, one in the wrong state, and what refuses a call. */
const callErrors = [ApiError.ResourceNotFound, ApiError.InvalidState, ...callingErrors] as const

const control = <const Name extends "reject" | "terminate">(name: Name) =>
  HttpApiEndpoint.post(name, `/calls/:id/${name}`)
    .setPath(IdPath)
    .addSuccess(Call.CallResource)
    .pipe(ApiError.withErrors(...callErrors))

const answer = <const Name extends "preAccept" | "accept">(name: Name, path: string) =>
  HttpApiEndpoint.post(name, `/calls/:id/${path}`)
    .setPath(IdPath)
    .setPayload(Call.Answer)
    .addSuccess(Call.CallResource)
    .pipe(ApiError.withErrors(...callErrors))

const call = {
  id: "call_01M85GK8TB3E8BH2R1WY18AD8X",
  phone: "+15551230099",
  direction: "user_initiated",
  status: "ended",
  operator_call_id: "wacid.HBgLMTU1NTEyMzAwOTkVAgARGBI",
  payload: null,
  end_status: "COMPLETED",
  started_at: time,
  ended_at: "2026-05-04T09:32:05.000Z",
  duration_seconds: 125,
  error: null,
  created_at: time,
  updated_at: "2026-05-04T09:32:05.000Z"
}
/** The example's call hours, in a request and in the answer. */
const hours = {
  timezone_id: "America/New_York",
  weekly_operating_hours: [
    { day_of_week: "MONDAY", open_time: "0900", close_time: "1200" },
    { day_of_week: "MONDAY", open_time: "1300", close_time: "1700" }
  ],
  holiday_schedule: [{ date: "2026-12-25" }]
}
const settings = {
  status: "ENABLED",
  call_icon_visibility: "DEFAULT",
  call_icons: { restrict_to_user_countries: [] },
  call_hours: { status: "ENABLED", ...hours },
  callback_permission_status: "DISABLED",
  srtp_key_exchange_protocol: "DTLS",
  sip: { status: "DISABLED", servers: [{ hostname: "sip.example.com", port: 5061, app_id: null, password_set: true }] },
  updated_at: time
}
const analyticsCounts = {
  total: 4,
  business_initiated: 3,
  user_initiated: 1,
  connected: 2,
  rejected: 1,
  failed: 1,
  unanswered: 0,
  in_progress: 0,
  connected_rate: 0.5,
  duration_seconds: { total: 190, average: 95, p50: 65, p90: 125 }
}
const sdpSummary = {
  codecs: [{ payload_type: 111, name: "opus", clock_rate: 48000, channels: 2 }],
  direction: "sendrecv",
  fingerprint_algorithm: "sha-256",
  key_exchange: "DTLS",
  ice_ufrag: "8hhY",
  candidates: ["1 1 udp 2122260223 192.0.2.10 54400 typ host generation 0"],
  sdp: "v=0\r\n..."
}

const SandboxReplyAccepted = Schema.Struct({
  accepted: Schema.Literal(true),
  phone: Schema.String,
  response: Schema.Literal("accept", "reject"),
  permission: CallPermission.PermissionResource
}).annotations({ identifier: "SandboxCallPermissionReplyAccepted" })

export class CallsGroup extends HttpApiGroup.make("calls")
  .add(Endpoints.list("list", "/calls", Call.CallId.schema, Call.ListFilters, Call.CallResource, "CallPage"))
  .add(Endpoints.create("connect", "/calls/connect", Call.Connect, Call.CallResource, [...callingErrors]))
  .add(Endpoints.create("button", "/calls/button", CallButton.SendButton, CallButton.ButtonSent, [...ApiError.sendErrors]))
  .add(
    HttpApiEndpoint.post("deeplink", "/calls/deeplink")
      .setPayload(CallButton.MakeDeepLink)
      .addSuccess(CallButton.DeepLink)
      .addError(ApiError.Forbidden)
  )
  .add(HttpApiEndpoint.get("settings", "/calls/settings").addSuccess(CallSettings.CallSettingsResource))
  .add(
    HttpApiEndpoint.patch("updateSettings", "/calls/settings")
      .setPayload(CallSettings.UpdateCallSettings)
      .addSuccess(CallSettings.CallSettingsResource)
      .pipe(ApiError.withErrors(...ApiError.operatorErrors))
  )
  .add(HttpApiEndpoint.get("health", "/calls/health").addSuccess(CallInsights.Health))
  .add(HttpApiEndpoint.get("analytics", "/calls/analytics").setUrlParams(CallInsights.AnalyticsQuery).addSuccess(CallInsights.Analytics))
  .add(Endpoints.getOne("get", "/calls/:id", Call.CallResource))
  .add(Endpoints.getOne("media", "/calls/:id/media", CallMedia))
  .add(answer("preAccept", "pre-accept"))
  .add(answer("accept", "accept"))
  .add(control("reject"))
  .add(control("terminate"))
  .add(
    HttpApiEndpoint.get("permission", "/calls/permissions/:phone")
      .setPath(PhonePath)
      .addSuccess(CallPermission.PermissionResource)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    Endpoints.accepted("requestPermission", "/calls/permissions", CallPermission.RequestPermission, CallPermission.PermissionRequestSent, [
      ApiError.CallPermissionRequestLimited,
      ...ApiError.sendErrors
    ])
  )
  .add(
    Endpoints.accepted("sandboxPermissionReply", "/sandbox/call-permission-replies", CallSandbox.PermissionReply, SandboxReplyAccepted, [
      ApiError.Forbidden,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    Endpoints.accepted("sandboxCall", "/sandbox/calls", CallSandbox.PlaceCall, SandboxCallPlaced, [ApiError.Forbidden, ...ApiError.operatorErrors])
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { calls: "Voice calls: permissions with their request budget, the call lifecycle, settings, health and analytics" },
    ids: { calls: call.id },
    operations: {
      "calls.list": {
        summary: "List calls",
        description: "Newest first; filter by `status`, `direction` and `phone`.",
        response: { data: [call], next_cursor: null }
      },
      "calls.connect": {
        summary: "Start a business-initiated call",
        description:
          "Sends our SDP offer to the customer. Needs a valid permission at call time (409 `call_permission_required`). The call then runs `calling` → `ringing` → `accepted` | `rejected` | `failed` → `ended` as the operator reports it. A bad SDP is 400 `validation_failed` naming what is missing.",
        request: { phone: "+15551230099", sdp: { type: "offer", sdp: "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n..." } },
        response: {
          ...call,
          direction: "business_initiated",
          status: "calling",
          payload: null,
          end_status: null,
          started_at: null,
          ended_at: null,
          duration_seconds: null
        }
      },
      "calls.get": { summary: "Get a call", response: call },
      "calls.settings": { summary: "Get the call settings", response: settings },
      "calls.updateSettings": {
        summary: "Change the call settings",
        description:
          "The operator's `calling` fields at the top level, in either casing; answered in upper case. Mirrored to the operator's phone settings. Call hours: an IANA `timezone_id`, at most 2 non-overlapping ranges a day (`HHMM`, opening before closing), at most 20 holidays. SIP passwords are kept as secrets and never answered.",
        request: {
          status: "enabled",
          call_hours: { status: "enabled", ...hours },
          sip: { status: "disabled", servers: [{ hostname: "sip.example.com", port: 5061, password: "s3cret" }] }
        },
        response: settings
      },
      "calls.health": {
        summary: "Can calls work now, and why not",
        response: {
          can_call: true,
          reasons: [],
          operator: { health_status: "AVAILABLE", detail: "phone number CONNECTED, quality GREEN" },
          calling_enabled: true,
          webhooks: { call_events_seen: true, last_call_event_at: time },
          recent_failures: [{ operator_code: 138003, count: 1, last_at: time }],
          call_hours: { enabled: true, timezone_id: "America/New_York", open_now: true }
        }
      },
      "calls.analytics": {
        summary: "Call analytics from our call records",
        description:
          "Over `since`..`until` (default: the last 7 days), by `day` or `hour`: counts by direction and outcome, the connected rate, and total, average, p50 and p90 durations.",
        response: {
          since: "2026-05-04T00:00:00.000Z",
          until: "2026-05-05T00:00:00.000Z",
          granularity: "day",
          totals: analyticsCounts,
          buckets: [{ start: "2026-05-04T00:00:00.000Z", ...analyticsCounts }],
          operator: null
        }
      },
      "calls.button": {
        summary: "Send a call button",
        description:
          "The interactive `voice_call` message, inside the customer's 24-hour window only (409 `outside_customer_window`). The customer starts the call, so no permission is needed; `payload` comes back as the call's `payload`.",
        request: {
          phone: "+15551230099",
          body: "Questions about your order? Call us.",
          display_text: "Call us",
          ttl_minutes: 1440,
          payload: "order-42"
        },
        response: {
          message_id: "msg_01M85GK8TB3E8BH2R1WY18AD8X",
          operator_message_id: "wamid.HBgLMTU1NTEyMzAwOTkVAgARGBI",
          phone: "+15551230099",
          status: "accepted"
        }
      },
      "calls.deeplink": {
        summary: "Make a call link to the store's number",
        description: "A link for an e-mail, an invoice or a web page that opens WhatsApp on a call to the store's business number.",
        request: { payload: "invoice-1001" },
        response: { url: "https://wa.me/call/15551230001?biz_payload=invoice-1001", phone_number: "+15551230001", payload: "invoice-1001" }
      },
      "calls.media": {
        summary: "Get a call's negotiated media",
        description:
          "The codecs both sides offer, the directions, the DTLS fingerprint's algorithm, the ICE candidates, and the raw offer and answer.",
        response: { id: call.id, status: "ended", negotiated_codecs: ["opus"], offer: sdpSummary, answer: sdpSummary }
      },
      "calls.preAccept": {
        summary: "Pre-accept a user-initiated call",
        description: "Sends our SDP answer while the call still rings, so media connects before accept.",
        request: { sdp: { type: "answer", sdp: "v=0\r\n..." } },
        response: { ...call, status: "pre_accepted", end_status: null, started_at: null, ended_at: null, duration_seconds: null }
      },
      "calls.accept": {
        summary: "Accept a user-initiated call",
        request: { sdp: { type: "answer", sdp: "v=0\r\n..." } },
        response: { ...call, status: "accepted", end_status: null, ended_at: null, duration_seconds: null }
      },
      "calls.reject": {
        summary: "Reject a user-initiated call",
        response: { ...call, status: "rejected", end_status: null, started_at: null, ended_at: null, duration_seconds: null }
      },
      "calls.terminate": { summary: "End a call", description: "From any live status; 409 `invalid_state` otherwise.", response: call },
      "calls.sandboxCall": {
        summary: "Sandbox: a customer calls the store",
        description:
          "Test keys only. The emulator places the call with the given (or an example) offer; answers once the `ringing` call is recorded.",
        request: { phone: "+15551230099" },
        response: { accepted: true, operator_call_id: "wacid.HBgLMTU1NTEyMzAwOTkVAgARGBI", call_id: call.id }
      },
      "calls.permission": {
        summary: "Get a customer's call permission and request budget",
        description:
          "Computed from our record of requests and replies (refreshed from the operator for live accounts). A temporary permission lapses at `expires_at`; the budget is 1 request per 24 h and 2 per 7 days.",
        response: permission
      },
      "calls.requestPermission": {
        summary: "Ask a customer for call permission",
        description:
          "Inside the customer's 24-hour window: the interactive `call_permission_request`. Outside: the named approved template, else 409 `outside_customer_window`. Over the budget: 409 `call_permission_request_limited` with `next_allowed_at`, and nothing is sent.",
        request: { phone: "+15551230099", body: "May we call you about your order?" },
        response: {
          phone: "+15551230099",
          message_id: "wamid.HBgLMTU1NTEyMzAwOTkVAgARGBI",
          sent_via: "interactive",
          sent_at: time,
          permission: { ...permission, status: "no_permission", expires_at: null, can_start_call: false }
        }
      },
      "calls.sandboxPermissionReply": {
        summary: "Sandbox: the customer answers a call permission request",
        description: "Test keys only. The emulator sends the customer's `call_permission_reply`; answers once it has been applied.",
        request: { phone: "+15551230099", response: "accept" },
        response: { accepted: true, phone: "+15551230099", response: "accept", permission }
      }
    }
  }) {}
