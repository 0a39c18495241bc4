/**
 * The operator's Calling API (GRAPH_API.md §6): one capability of the operator, one tag
 * (see `README.md` in this folder). Permissions (§6.1), the call actions on
 * `POST /{phone_number_id}/calls` (§6.3, B.5), and the sandbox's customer side of calls
 * (the emulator places a call, answers a permission request).
 *
 * Implemented over HTTP by `@switchboard/operator-client` (`CallClient`); the sandbox is the
 * emulator behind the same tag.
 *
 * Errors: the call actions are writes, never retried after an answer that may hide their
 * acceptance. A refusal with one of the calling codes (138000–138018) that names the call's
 * own problem is its named error (`CallErrors.CallRefusal`; for the 5-calls cap with the next
 * allowed time); the call rate limits (138002, 138005) are `OperatorUnavailable` rate_limited; 138006 (no permission) is `CallPermissionRequired`; any other refusal is
 * `OperatorRejected` with its code; no usable answer is `OperatorUnavailable`.
 */
import { Context, type Effect } from "effect"
import type { CallPermissionRequired, CallRefusal } from "./CallErrors.js"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

/** The operator's view of a user's call permission (§6.1). */
export interface OperatorPermission {
  readonly status: string
  /** Epoch ms; null when the operator gave none. */
  readonly expiresAt: number | null
}

export type CallActionError = CallRefusal | CallPermissionRequired | OperatorRejected | OperatorUnavailable

export class CallOperator extends Context.Tag("@switchboard/domain/CallOperator")<
  CallOperator,
  {
    /** `GET /{phone_number_id}/call_permissions?user_wa_id=…`: the operator's record of the permission. */
    readonly getPermission: (account: OperatorAccount, phone: string) => Effect.Effect<OperatorPermission, OperatorUnavailable>
    /** `connect` with our offer to `phone` (E.164): answers the operator's call id. */
    readonly connect: (
      account: OperatorAccount,
      input: { readonly to: string; readonly sdp: string; readonly callbackData?: string | undefined }
    ) => Effect.Effect<{ readonly callId: string }, CallActionError>
    /** `pre_accept` or `accept` with our answer SDP. */
    readonly answer: (
      account: OperatorAccount,
      input: { readonly callId: string; readonly action: "pre_accept" | "accept"; readonly sdp: string }
    ) => Effect.Effect<void, CallActionError>
    /** `reject` or `terminate`. */
    readonly end: (
      account: OperatorAccount,
      input: { readonly callId: string; readonly action: "reject" | "terminate" }
    ) => Effect.Effect<void, CallActionError>
    /** `POST /{phone_number_id}/settings` with `{ calling }` (SIP passwords included): the number's call settings. */
    readonly setSettings: (account: OperatorAccount, calling: Record<string, unknown>) => Effect.Effect<void, OperatorRejected | OperatorUnavailable>
    /** The number's health: the operator's `health_status` (or its status and quality when it gives none). */
    readonly getHealth: (account: OperatorAccount) => Effect.Effect<{ readonly status: string; readonly detail: string | null }, OperatorUnavailable>
    /** Sandbox only: a customer answers the last permission request (`accept` or `reject`); the reply webhook follows. */
    readonly sandboxPermissionReply: (
      account: OperatorAccount,
      input: { readonly from: string; readonly response: "accept" | "reject" }
    ) => Effect.Effect<void, OperatorUnavailable | OperatorRejected>
    /** Sandbox only: a customer calls the number with `sdp` as offer; the connect webhook follows. Answers the call id. */
    readonly sandboxPlaceCall: (
      account: OperatorAccount,
      input: { readonly from: string; readonly sdp: string; readonly payload?: string | undefined }
    ) => Effect.Effect<{ readonly callId: string }, OperatorUnavailable | OperatorRejected>
  }
>() {}
