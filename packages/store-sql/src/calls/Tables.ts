/**
 * The call tables (migration 0013) as Kysely sees them, and their column maps: how each
 * field of `CallPermission.Permission` and `Call.Call` is stored, declared once (see
 * `internal/Columns.ts`). Same conventions as every table: epoch-millisecond integers, JSON
 * as text.
 */
import { Call, CallPermission } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

const { epoch, integer, json, nullable, text } = Columns

export interface CallPermissionsTable extends Columns.TenantRow, Columns.StampedRow {
  /** E.164; the key with store_id and mode. */
  readonly phone: string
  readonly status: string
  readonly expires_at: number | string | null
  /** JSON array of epoch ms: the requests that may still count against the budget. */
  readonly request_times: string
  readonly budget_reset_at: number | string | null
  readonly last_request_message_id: string | null
  /** Compare-and-set version. */
  readonly version: number | string
}

export interface CallsTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly phone: string
  readonly direction: string
  readonly status: string
  /** Unique per (store_id, mode) when set. */
  readonly operator_call_id: string | null
  readonly offer_sdp: string
  readonly answer_sdp: string | null
  readonly payload: string | null
  readonly end_status: string | null
  readonly started_at: number | string | null
  readonly ended_at: number | string | null
  readonly duration_seconds: number | string | null
  /** JSON `{ code, message }`. */
  readonly error: string | null
}

export interface CallSettingsTable extends Columns.TenantRow {
  /** JSON: the operator's `calling` object as set, without SIP passwords. */
  readonly settings: string
  /** JSON `{ "<hostname>": "<password>" }`: SIP passwords, never returned. */
  readonly sip_secrets: string
  readonly updated_at: number | string
}

export interface CallTables {
  readonly call_permissions: CallPermissionsTable
  readonly calls: CallsTable
  readonly call_settings: CallSettingsTable
}

export const permissionColumns = Columns.map<CallPermission.Permission, CallPermissionsTable>("call_permissions", {
  ...Columns.tenant,
  phone: ["phone", text],
  status: ["status", text],
  expiresAt: ["expires_at", nullable(epoch)],
  requestTimes: ["request_times", json(CallPermission.Permission.fields.requestTimes)],
  budgetResetAt: ["budget_reset_at", nullable(epoch)],
  lastRequestMessageId: ["last_request_message_id", text],
  version: ["version", integer],
  ...Columns.stamps
})

export const permissionSelect = [
  "store_id",
  "mode",
  "phone",
  "status",
  "expires_at",
  "request_times",
  "budget_reset_at",
  "last_request_message_id",
  "version",
  "created_at",
  "updated_at"
] as const

export const callColumns = Columns.map<Call.Call, CallsTable>("calls", {
  ...Columns.owned,
  phone: ["phone", text],
  direction: ["direction", text],
  status: ["status", text],
  operatorCallId: ["operator_call_id", text],
  offerSdp: ["offer_sdp", text],
  answerSdp: ["answer_sdp", text],
  payload: ["payload", text],
  endStatus: ["end_status", text],
  startedAt: ["started_at", nullable(epoch)],
  endedAt: ["ended_at", nullable(epoch)],
  durationSeconds: ["duration_seconds", nullable(integer)],
  error: ["error", nullable(json(Call.CallError))],
  ...Columns.stamps
})

export const callSelect = [
  "id",
  "store_id",
  "mode",
  "phone",
  "direction",
  "status",
  "operator_call_id",
  "offer_sdp",
  "answer_sdp",
  "payload",
  "end_status",
  "started_at",
  "ended_at",
  "duration_seconds",
  "error",
  "created_at",
  "updated_at"
] as const
