/**
 * What calls tell the caller, on its webhooks: the call events (each emitted in the
 * transaction of the change it reports, with the call as the API shows it) and the
 * permission's changes (`call_permission.updated`, and under its older name
 * `call.permission_updated`, kept for the endpoints subscribed to it: the same data).
 */
import { Effect } from "effect"
import type { Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Call from "./Call.js"
import * as CallPermission from "./CallPermission.js"

/** The caller webhook events calls emit. */
export const callerEvents = [
  "call.ringing",
  "call.accepted",
  "call.rejected",
  "call.ended",
  "call_permission.updated",
  "call.permission_updated"
] as const
export type CallerEvent = (typeof callerEvents)[number]

/** The event a call's new status reports, if any (`failed` ends the call, so it is `call.ended`). */
export const eventOf = (status: Call.Status): CallerEvent | undefined => {
  switch (status) {
    case "ringing":
      return "call.ringing"
    case "accepted":
      return "call.accepted"
    case "rejected":
      return "call.rejected"
    case "failed":
    case "ended":
      return "call.ended"
    default:
      return undefined
  }
}

/** Records the event of the call's status (none for `calling`, `pre_accepted`). */
export const emitStatus = (call: Call.Call) => {
  const type = eventOf(call.status)
  return type === undefined ? Effect.void : Webhooks.emit(Call.tenantOf(call), type, Call.toJson(call))
}

/**
 * What a permission change was: the customer (or the operator) `granted` it, the customer
 * `declined` a request, the operator `revoked` it (reported without permission while we
 * held one).
 */
export type PermissionChange = "granted" | "declined" | "revoked"

/** The change from `previous` (the status as the API showed it before) to the view's status. */
export const changeOf = (previous: string, status: string): PermissionChange =>
  status === "no_permission" ? (previous === "no_permission" ? "declined" : "revoked") : "granted"

/**
 * `call_permission.updated` (and `call.permission_updated`, its older name) with the
 * permission as the API shows it now, its status before, what changed (`change`) and what
 * changed it (`source`: `reply_accept`, `reply_reject`, `operator`); a reply's event names
 * the customer's message (`reply_message_id`), the same for a redelivered webhook.
 */
export const emitPermission = (
  tenant: Tenant,
  view: CallPermission.View,
  change: { readonly previousStatus: string; readonly change: PermissionChange; readonly source: string; readonly replyMessageId?: string }
) =>
  Effect.gen(function* () {
    const data = {
      ...CallPermission.toJson(view),
      previous_status: change.previousStatus,
      change: change.change,
      source: change.source,
      ...(change.replyMessageId === undefined ? {} : { reply_message_id: change.replyMessageId })
    }
    yield* Webhooks.emit(tenant, "call_permission.updated", data)
    yield* Webhooks.emit(tenant, "call.permission_updated", data)
  })
