/**
 * What calls tell the caller, on its webhooks: the call events (each emitted in the
 * transaction of the change it reports, with the call as the API shows it) and the
 * permission's changes.
 */
import { Effect } from "effect"
import type { Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Call from "./Call.js"
import * as CallPermission from "./CallPermission.js"

/** The caller webhook events calls emit. */
export const callerEvents = ["call.ringing", "call.accepted", "call.rejected", "call.ended", "call.permission_updated"] as const
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

/** `call.permission_updated` with the permission as the API shows it now, and what changed it. */
export const emitPermission = (tenant: Tenant, view: CallPermission.View, source: string) =>
  Webhooks.emit(tenant, "call.permission_updated", { ...CallPermission.toJson(view), source })
