/**
 * The operator's call webhooks (`field: "calls"`, GRAPH_API.md §6.6, Appendix A.11) turned
 * into `CallEvent`s: `calls[]` entries (`connect` with a session, `terminate` with its end
 * status and times) and `statuses[]` entries of `type: "call"` (RINGING, ACCEPTED, REJECTED).
 * Parsing is tolerant like `WebhookEvent.parse`: entries without an id are skipped.
 */
import type * as Time from "../shared/Time.js"
import { arr, obj, str } from "./WebhookFields.js"

export interface CallEvent {
  readonly _tag: "CallEvent"
  readonly phoneNumberId: string
  /** The operator's call id (`wacid…`). */
  readonly callId: string
  readonly kind: "connect" | "terminate" | "status"
  /** The customer's wa_id (the caller of a user-initiated call, the callee of ours). */
  readonly customer: string | null
  readonly direction: "USER_INITIATED" | "BUSINESS_INITIATED" | null
  readonly timestamp: Time.Millis
  readonly session: { readonly sdpType: string; readonly sdp: string } | null
  /** terminate: COMPLETED | FAILED; status: RINGING | ACCEPTED | REJECTED. */
  readonly status: string | null
  readonly startTime: Time.Millis | null
  readonly endTime: Time.Millis | null
  readonly durationSeconds: number | null
  readonly callbackData: string | null
  /** The call button's payload, echoed (`cta_payload`). */
  readonly payload: string | null
  readonly error: { readonly code: number; readonly message: string } | null
}

const seconds = (u: unknown): Time.Millis | null => {
  const n = Number(u)
  return u !== undefined && u !== null && Number.isFinite(n) && n > 0 ? n * 1000 : null
}
const errorOf = (u: unknown) => {
  const e = obj(arr(u)[0])
  return e ? { code: Number(e.code) || 0, message: str(obj(e.error_data)?.details) ?? str(e.message) ?? str(e.title) ?? "failed" } : null
}

/** The call events of one `calls` change value. */
export const callEventsOf = (value: Record<string, unknown>, receivedAt: Time.Millis): Array<CallEvent> => {
  const phoneNumberId = str(obj(value.metadata)?.phone_number_id)
  if (!phoneNumberId) return []
  const events: Array<CallEvent> = []
  const valueError = errorOf(value.errors)
  for (const raw of arr(value.calls)) {
    const c = obj(raw)
    const callId = str(c?.id)
    const event = str(c?.event)
    if (!c || !callId || (event !== "connect" && event !== "terminate")) continue
    const direction = str(c.direction)
    const session = obj(c.session)
    const sdp = str(session?.sdp)
    const userInitiated = direction !== "BUSINESS_INITIATED"
    events.push({
      _tag: "CallEvent",
      phoneNumberId,
      callId,
      kind: event,
      customer: (userInitiated ? str(c.from) : str(c.to)) ?? null,
      direction: direction === "USER_INITIATED" || direction === "BUSINESS_INITIATED" ? direction : null,
      timestamp: seconds(c.timestamp) ?? receivedAt,
      session: sdp === undefined ? null : { sdpType: str(session?.sdp_type) ?? "", sdp },
      status: str(c.status) ?? null,
      startTime: seconds(c.start_time),
      endTime: seconds(c.end_time),
      durationSeconds: c.duration === undefined || c.duration === null || !Number.isFinite(Number(c.duration)) ? null : Number(c.duration),
      callbackData: str(c.biz_opaque_callback_data) ?? null,
      payload: str(c.cta_payload) ?? null,
      error: errorOf(c.errors) ?? valueError
    })
  }
  for (const raw of arr(value.statuses)) {
    const s = obj(raw)
    const callId = str(s?.id)
    if (!s || !callId || (s.type !== undefined && s.type !== "call")) continue
    events.push({
      _tag: "CallEvent",
      phoneNumberId,
      callId,
      kind: "status",
      customer: str(s.recipient_id) ?? null,
      direction: "BUSINESS_INITIATED",
      timestamp: seconds(s.timestamp) ?? receivedAt,
      session: null,
      status: str(s.status)?.toUpperCase() ?? null,
      startTime: null,
      endTime: null,
      durationSeconds: null,
      callbackData: str(s.biz_opaque_callback_data) ?? null,
      payload: null,
      error: errorOf(s.errors)
    })
  }
  return events
}
