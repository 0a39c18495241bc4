/**
 * Call routes (spec §4.8): the permission of a customer and its request, and the sandbox
 * customer's answer (test keys only). Schemas come from the domain: handlers return what
 * the use cases answer and these schemas encode it.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { CallPermission, CallSandbox } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
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

const SandboxReplyAccepted = Schema.Struct({
  accepted: Schema.Literal(true),
  phone: Schema.String,
  response: Schema.Literal("accept", "reject"),
  permission: CallPermission.PermissionResource
}).annotations({ identifier: "SandboxCallPermissionReplyAccepted" })

export class CallsGroup extends HttpApiGroup.make("calls")
  .add(
    HttpApiEndpoint.get("permission", "/calls/permissions/:phone")
      .setPath(PhonePath)
      .addSuccess(CallPermission.PermissionResource)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.post("requestPermission", "/calls/permissions")
      .setPayload(CallPermission.RequestPermission)
      .addSuccess(CallPermission.PermissionRequestSent, { status: 202 })
      .addError(ApiError.CallPermissionRequestLimited)
      .addError(ApiError.OutsideCustomerWindow)
      .addError(ApiError.RecipientOptedOut)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.InvalidState)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.post("sandboxPermissionReply", "/sandbox/call-permission-replies")
      .setPayload(CallSandbox.PermissionReply)
      .addSuccess(SandboxReplyAccepted, { status: 202 })
      .addError(ApiError.Forbidden)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { calls: "Voice calls: permissions with their request budget, the call lifecycle, settings, health and analytics" },
    operations: {
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
