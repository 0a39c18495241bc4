/**
 * Outbound messages sent through `POST /chat/messages`.
 *
 * Status: `pending` (recorded, not yet accepted) -> `accepted` (the operator took it, we
 * have its wamid) -> `sent` -> `delivered` -> `read`; or `failed` from pending, accepted or
 * sent. Status webhooks may arrive twice or out of order: a status only ever moves forward
 * (`read` before `delivered` leaves `read`), and `failed` is final.
 */
import { Schema } from "effect"
import type { Mode } from "../shared/Tenant.js"

export const Status = Schema.Literal("pending", "accepted", "sent", "delivered", "read", "failed")
export type Status = typeof Status.Type

const RANK: Record<Status, number> = { pending: 0, accepted: 1, sent: 2, delivered: 3, read: 4, failed: 5 }

/** The status after an operator report, or undefined when the report changes nothing. */
export const advance = (current: Status, reported: string): Status | undefined => {
  if (!(reported in RANK) || reported === "pending") return undefined
  const next = reported as Status
  if (current === "failed") return undefined
  if (next === "failed") return current === "delivered" || current === "read" ? undefined : "failed"
  return RANK[next] > RANK[current] ? next : undefined
}

/** The statuses from which `advance` can reach `to` (for conditional updates in SQL). */
export const predecessors = (to: Status): ReadonlyArray<Status> =>
  to === "failed"
    ? ["pending", "accepted", "sent"]
    : (Object.keys(RANK) as Array<Status>).filter((s) => s !== "failed" && RANK[s] < RANK[to])

export interface MessageError {
  readonly code: number
  readonly title: string
}

export interface Message {
  readonly id: string
  readonly storeId: string
  readonly mode: Mode
  readonly to: string
  readonly type: "text" | "template" | "interactive" | "flow"
  /** The request's content (text, template, interactive, flow) as given. */
  readonly content: unknown
  readonly status: Status
  readonly operatorMessageId: string | null
  readonly error: MessageError | null
  readonly flowToken: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const MessageResource = Schema.Struct({
  id: Schema.String,
  to: Schema.String,
  type: Schema.Literal("text", "template", "interactive", "flow"),
  status: Status,
  operator_message_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.Struct({ code: Schema.Number, message: Schema.String })),
  flow_token: Schema.optional(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "Message" })
export type MessageResource = typeof MessageResource.Type

export const toResource = (m: Message): MessageResource => ({
  id: m.id,
  to: m.to,
  type: m.type,
  status: m.status,
  operator_message_id: m.operatorMessageId,
  error: m.error ? { code: m.error.code, message: m.error.title } : null,
  ...(m.flowToken !== null ? { flow_token: m.flowToken } : {}),
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString()
})
