/**
 * What the operator's webhooks do to call permissions (run by the inbox, never by a route):
 * a customer's `call_permission_reply` (Appendix A.4) updates their permission. The same
 * message also reaches messaging, which records it and opens the customer's window.
 */
import { Effect } from "effect"
import { modesOf } from "../messaging/InboundEvents.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Phone from "../shared/Phone.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Permissions from "./Permissions.js"

const obj = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined

/** The reply an inbound message carries, if it is a call permission reply. */
export const replyOf = (raw: Record<string, unknown>) => {
  const interactive = obj(raw.interactive)
  if (interactive?.type !== "call_permission_reply") return undefined
  const reply = obj(interactive.call_permission_reply)
  const response = reply?.response
  if (response !== "accept" && response !== "reject") return undefined
  const expiry = Number(reply?.expiration_timestamp)
  return {
    response,
    expiresAt: Number.isFinite(expiry) && expiry > 0 ? expiry * 1000 : null,
    permanent: reply?.is_permanent === true || reply?.permission_type === "permanent"
  } as const
}

/** A customer answered a permission request: their permission in each mode of the account. */
export const onInboundMessage = (store: Store, kind: AccountKind, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    const reply = replyOf(event.raw)
    if (reply === undefined) return
    const phone = Phone.fromWaId(event.from)
    if (phone === undefined) return yield* Effect.logWarning("call permission reply from an invalid wa_id", { from: event.from })
    for (const mode of modesOf(store, kind)) {
      yield* Permissions.applyReply({ storeId: store.id, mode }, phone, { ...reply, at: event.timestamp, messageId: event.messageId })
    }
  })
