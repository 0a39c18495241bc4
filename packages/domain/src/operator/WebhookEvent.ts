/**
 * The operator's webhook envelope (GRAPH_API.md §2.4) turned into the events we act on.
 * Parsing is tolerant: fields and `field` values we do not use are ignored, as the operator
 * adds them over time; a body whose `object` is not `whatsapp_business_account` is not an
 * envelope at all. The body was verified before it got here. Times are epoch milliseconds.
 */
import type * as Time from "../shared/Time.js"
import { type CallEvent, callEventsOf } from "./CallWebhookEvent.js"
import { type CapabilityUpdate, type NumberQualityUpdate, ACCOUNT_EVENT_TAGS, accountEventsOf, pricingOf } from "./AccountWebhookEvent.js"
import { type FlowEvent, flowEventsOf } from "./FlowWebhookEvent.js"
import { type TemplateCategoryUpdate, type TemplateQualityUpdate, type TemplateStatus, templateEventsOf } from "./TemplateWebhookEvent.js"
import { arr, epoch, obj, str } from "./WebhookFields.js"

export type { CallEvent } from "./CallWebhookEvent.js"
export type { FlowEvent } from "./FlowWebhookEvent.js"
export type { CapabilityUpdate, NumberQualityUpdate } from "./AccountWebhookEvent.js"
export type { TemplateCategoryUpdate, TemplateQualityUpdate, TemplateStatus } from "./TemplateWebhookEvent.js"

/** What a customer chose on an interactive message (button or list) or a template's quick-reply button. */
export interface Reply {
  /** The id we gave the button or row (`button_reply.id`, `list_reply.id`), or the quick reply's payload. */
  readonly id: string
  /** The label the customer saw. */
  readonly title: string
  /** The list row's description, when it had one. */
  readonly description: string | null
}

/** A customer's message: it opens (or renews) their 24-hour window. */
export interface InboundMessage {
  readonly _tag: "InboundMessage"
  readonly phoneNumberId: string
  /** The customer's wa_id (digits). */
  readonly from: string
  readonly profileName: string | null
  /** The operator's message id (wamid): the dedupe key. */
  readonly messageId: string
  readonly timestamp: Time.Millis
  readonly type: string
  /** The text: a text's body, or the label of the button or row chosen. */
  readonly text: string | null
  /** What was chosen, for a reply to buttons or a list (`interactive` button/list replies, template `button` taps). */
  readonly reply: Reply | null
  /** The whole message object, for types a later module reads (order, interactive...). */
  readonly raw: Record<string, unknown>
}

/** The message types that are the operator's notices in the `messages` field, not a customer's message. */
export const NOTICE_TYPES = ["system", "revoke", "edit", "unsupported"] as const
export type NoticeKind = (typeof NOTICE_TYPES)[number]

/**
 * A notice of the operator in the `messages` field (§2.6): `system` (the customer changed
 * number or identity), `revoke` (a message was deleted), `edit` (a message was edited),
 * `unsupported` (a message type the operator does not deliver). Never a customer message:
 * it opens no window and is never taken for a keyword.
 */
export interface OperatorNotice {
  readonly _tag: "OperatorNotice"
  readonly phoneNumberId: string
  /** The customer's wa_id, when the notice names one. */
  readonly from: string | null
  /** The notice's own id (wamid). */
  readonly messageId: string
  readonly timestamp: Time.Millis
  readonly kind: NoticeKind
  /** What it says: the system notice's body, an edit's new text, an unsupported message's error. */
  readonly text: string | null
  /** The message a revoke or an edit is about. */
  readonly originalMessageId: string | null
  readonly raw: Record<string, unknown>
}

export interface MessageStatus {
  readonly _tag: "MessageStatus"
  readonly phoneNumberId: string
  readonly messageId: string
  readonly status: string
  readonly timestamp: Time.Millis
  readonly recipientId: string
  readonly callbackData: string | null
  readonly error: { readonly code: number; readonly title: string } | null
  /** The status's `pricing` (per-message pricing, GRAPH_API.md §2.7), when it carries one. */
  readonly pricing?: { readonly billable: boolean; readonly category: string } | undefined
}

/** The customer's marketing preference (`user_preferences`). */
export interface MarketingPreference {
  readonly _tag: "MarketingPreference"
  readonly phoneNumberId: string
  readonly waId: string
  readonly optedOut: boolean
}

/**
 * A payment status (`statuses[]` with `type: "payment"`): the operator captured, or failed to
 * capture, the customer's payment of the order whose reference is `referenceId` (the cart
 * message's wamid). `amount` is in minor units of `currency` (the operator's `value` over
 * its `offset`, scaled to the currency's minor unit by the commerce module).
 */
export interface PaymentStatus {
  readonly _tag: "PaymentStatus"
  readonly phoneNumberId: string
  readonly referenceId: string
  readonly status: string
  /** The operator's amount: `value / offset` in major units. */
  readonly value: number
  readonly offset: number
  readonly currency: string
  readonly transactionId: string
  readonly error: string | null
  readonly timestamp: Time.Millis
  /** The payment's refunds and their outcomes (`transaction.refunds[]`: `id`, `status` `pending` | `completed` | `failed`); empty for a payment's own status. */
  readonly refunds: ReadonlyArray<{ readonly id: string; readonly status: string }>
}

export type WebhookEvent =
  | InboundMessage
  | PaymentStatus
  | OperatorNotice
  | MessageStatus
  | TemplateStatus
  | TemplateCategoryUpdate
  | TemplateQualityUpdate
  | NumberQualityUpdate
  | CapabilityUpdate
  | MarketingPreference
  | CallEvent
  | FlowEvent

/** The events routed by the business account (WABA) rather than by the phone number. */
export type AccountEvent = TemplateStatus | TemplateCategoryUpdate | TemplateQualityUpdate | NumberQualityUpdate | CapabilityUpdate | FlowEvent
export const isAccountEvent = (event: WebhookEvent): event is AccountEvent => ACCOUNT_EVENT_TAGS.has(event._tag)

const isNotice = (type: string | undefined): type is NoticeKind => (NOTICE_TYPES as ReadonlyArray<string | undefined>).includes(type)

/** What was chosen in a reply: an interactive `button_reply` / `list_reply`, or a template's quick-reply `button`. */
const replyOf = (m: Record<string, unknown>): Reply | null => {
  const interactive = obj(m.interactive)
  const chosen = obj(interactive?.button_reply) ?? obj(interactive?.list_reply)
  if (chosen) {
    const id = str(chosen.id)
    return id === undefined ? null : { id, title: str(chosen.title) ?? "", description: str(chosen.description) ?? null }
  }
  const button = obj(m.button)
  if (button) {
    const text = str(button.text) ?? ""
    return { id: str(button.payload) ?? text, title: text, description: null }
  }
  return null
}

/** A notice's own text: a system notice's body, an edit's new text or caption, an unsupported message's error. */
const noticeText = (kind: NoticeKind, m: Record<string, unknown>): string | null => {
  switch (kind) {
    case "system":
      return str(obj(m.system)?.body) ?? null
    case "edit": {
      const edited = obj(obj(m.edit)?.message)
      const type = str(edited?.type)
      return str(obj(edited?.text)?.body) ?? (type ? str(obj(edited?.[type])?.caption) : undefined) ?? null
    }
    case "revoke":
      return null
    case "unsupported": {
      const error = obj(arr(m.errors)[0])
      return str(error?.title) ?? str(error?.message) ?? null
    }
  }
}

const messagesOf = (value: Record<string, unknown>, events: Array<WebhookEvent>, receivedAt: Time.Millis): void => {
  const phoneNumberId = str(obj(value.metadata)?.phone_number_id)
  if (!phoneNumberId) return
  const names = new Map<string, string>()
  for (const contact of arr(value.contacts)) {
    const k = obj(contact)
    const waId = str(k?.wa_id)
    const name = str(obj(k?.profile)?.name)
    if (waId && name) names.set(waId, name)
  }
  for (const message of arr(value.messages)) {
    const m = obj(message)
    const id = str(m?.id)
    if (!m || !id) continue
    const type = str(m.type)
    if (isNotice(type)) {
      events.push({
        _tag: "OperatorNotice",
        phoneNumberId,
        from: str(m.from) ?? null,
        messageId: id,
        timestamp: epoch(m.timestamp, receivedAt),
        kind: type,
        text: noticeText(type, m),
        originalMessageId: str(obj(m[type])?.original_message_id) ?? null,
        raw: m
      })
      continue
    }
    const from = str(m.from)
    if (!from) continue
    const reply = replyOf(m)
    events.push({
      _tag: "InboundMessage",
      phoneNumberId,
      from,
      profileName: names.get(from) ?? null,
      messageId: id,
      timestamp: epoch(m.timestamp, receivedAt),
      type: type ?? "unknown",
      text: str(obj(m.text)?.body) ?? reply?.title ?? null,
      reply,
      raw: m
    })
  }
  for (const status of arr(value.statuses)) {
    const s = obj(status)
    const id = str(s?.id)
    const st = str(s?.status)
    if (!s || !id || !st) continue
    if (s.type === "payment") {
      const payment = obj(s.payment)
      const amount = obj(payment?.amount)
      const transaction = obj(payment?.transaction)
      const err = obj(transaction?.error) ?? obj(arr(s.errors)[0])
      events.push({
        _tag: "PaymentStatus",
        phoneNumberId,
        referenceId: str(payment?.reference_id) ?? id,
        status: st,
        value: Number(amount?.value) || 0,
        offset: Number(amount?.offset) || 100,
        currency: str(payment?.currency) ?? str(amount?.currency) ?? "",
        transactionId: str(transaction?.id) ?? id,
        error: err ? (str(err.reason) ?? str(err.title) ?? str(err.message) ?? "failed") : null,
        timestamp: epoch(s.timestamp, receivedAt),
        refunds: arr(transaction?.refunds).flatMap((r) => {
          const refund = obj(r)
          const rid = str(refund?.id)
          const rstatus = str(refund?.status)
          return rid && rstatus ? [{ id: rid, status: rstatus }] : []
        })
      })
      continue
    }
    const err = obj(arr(s.errors)[0])
    events.push({
      _tag: "MessageStatus",
      ...pricingOf(s.pricing),
      phoneNumberId,
      messageId: id,
      status: st,
      timestamp: epoch(s.timestamp, receivedAt),
      recipientId: str(s.recipient_id) ?? "",
      callbackData: str(s.biz_opaque_callback_data) ?? null,
      error: err ? { code: Number(err.code) || 0, title: str(err.title) ?? str(err.message) ?? "failed" } : null
    })
  }
}

/**
 * The events of one webhook body; `undefined` when the body is not an operator envelope at
 * all. An event without a readable timestamp is dated `receivedAt` (when the body arrived).
 */
export const parse = (body: unknown, receivedAt: Time.Millis): Array<WebhookEvent> | undefined => {
  const envelope = obj(body)
  if (envelope?.object !== "whatsapp_business_account" || !Array.isArray(envelope.entry)) return undefined
  const events: Array<WebhookEvent> = []
  for (const entry of arr(envelope.entry)) {
    const e = obj(entry)
    const wabaId = str(e?.id) ?? ""
    for (const change of arr(e?.changes)) {
      const c = obj(change)
      const value = obj(c?.value)
      if (!value) continue
      switch (c?.field) {
        case "messages":
          messagesOf(value, events, receivedAt)
          break
        case "message_template_status_update":
        case "template_category_update":
        case "message_template_quality_update":
          events.push(...templateEventsOf(c.field as string, wabaId, value, receivedAt))
          break
        case "phone_number_quality_update":
        case "business_capability_update":
          events.push(...accountEventsOf(c.field as string, wabaId, value))
          break
        case "calls":
          events.push(...callEventsOf(value, receivedAt))
          break
        case "flows":
          events.push(...flowEventsOf(wabaId, value))
          break
        case "user_preferences": {
          const phoneNumberId = str(obj(value.metadata)?.phone_number_id)
          if (!phoneNumberId) break
          for (const pref of arr(value.user_preferences)) {
            const p = obj(pref)
            const waId = str(p?.wa_id)
            if (!waId || p?.category !== "marketing_messages") continue
            events.push({ _tag: "MarketingPreference", phoneNumberId, waId, optedOut: p.value === "stop" })
          }
          break
        }
      }
    }
  }
  return events
}
