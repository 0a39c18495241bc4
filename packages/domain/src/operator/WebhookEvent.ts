/**
 * The operator's webhook envelope (GRAPH_API.md §2.4) turned into the events we act on.
 * Parsing is tolerant: fields and `field` values we do not use are ignored, as the operator
 * adds them over time. The body was verified before it got here.
 */
export interface InboundMessage {
  readonly _tag: "InboundMessage"
  readonly phoneNumberId: string
  /** The customer's wa_id (digits). */
  readonly from: string
  readonly profileName: string | null
  /** The operator's message id (wamid): the dedupe key. */
  readonly messageId: string
  readonly timestamp: Date
  readonly type: string
  readonly text: string | null
  /** The whole message object, for types a later module reads (order, interactive...). */
  readonly raw: Record<string, unknown>
}

export interface MessageStatus {
  readonly _tag: "MessageStatus"
  readonly phoneNumberId: string
  readonly messageId: string
  readonly status: string
  readonly timestamp: Date
  readonly recipientId: string
  readonly callbackData: string | null
  readonly error: { readonly code: number; readonly title: string } | null
}

export interface TemplateStatus {
  readonly _tag: "TemplateStatus"
  readonly wabaId: string
  readonly name: string
  readonly language: string
  readonly event: string
  readonly reason: string | null
  readonly category: "UTILITY" | "MARKETING" | "AUTHENTICATION" | undefined
}

/** The customer's marketing preference (`user_preferences`). */
export interface MarketingPreference {
  readonly _tag: "MarketingPreference"
  readonly phoneNumberId: string
  readonly waId: string
  readonly optedOut: boolean
}

export type WebhookEvent = InboundMessage | MessageStatus | TemplateStatus | MarketingPreference

const obj = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined
const arr = (u: unknown): Array<unknown> => (Array.isArray(u) ? u : [])
const str = (u: unknown): string | undefined => (typeof u === "string" ? u : typeof u === "number" ? String(u) : undefined)
const epoch = (u: unknown): Date => {
  const n = Number(u)
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : new Date()
}
const CATEGORIES = new Set(["UTILITY", "MARKETING", "AUTHENTICATION"])

/** The events of one webhook body; `undefined` when the body is not an operator envelope at all. */
export const parse = (body: unknown): Array<WebhookEvent> | undefined => {
  const envelope = obj(body)
  if (!envelope || !Array.isArray(envelope.entry)) return undefined
  const events: Array<WebhookEvent> = []
  for (const entry of arr(envelope.entry)) {
    const e = obj(entry)
    const wabaId = str(e?.id) ?? ""
    for (const change of arr(e?.changes)) {
      const c = obj(change)
      const value = obj(c?.value)
      if (!value) continue
      switch (c?.field) {
        case "messages": {
          const phoneNumberId = str(obj(value.metadata)?.phone_number_id)
          if (!phoneNumberId) break
          const names = new Map<string, string>()
          for (const contact of arr(value.contacts)) {
            const k = obj(contact)
            const waId = str(k?.wa_id)
            const name = str(obj(k?.profile)?.name)
            if (waId && name) names.set(waId, name)
          }
          for (const message of arr(value.messages)) {
            const m = obj(message)
            const from = str(m?.from)
            const id = str(m?.id)
            if (!m || !from || !id) continue
            events.push({
              _tag: "InboundMessage",
              phoneNumberId,
              from,
              profileName: names.get(from) ?? null,
              messageId: id,
              timestamp: epoch(m.timestamp),
              type: str(m.type) ?? "unknown",
              text: str(obj(m.text)?.body) ?? str(obj(m.button)?.text) ?? null,
              raw: m
            })
          }
          for (const status of arr(value.statuses)) {
            const s = obj(status)
            const id = str(s?.id)
            const st = str(s?.status)
            if (!s || !id || !st) continue
            const err = obj(arr(s.errors)[0])
            events.push({
              _tag: "MessageStatus",
              phoneNumberId,
              messageId: id,
              status: st,
              timestamp: epoch(s.timestamp),
              recipientId: str(s.recipient_id) ?? "",
              callbackData: str(s.biz_opaque_callback_data) ?? null,
              error: err ? { code: Number(err.code) || 0, title: str(err.title) ?? str(err.message) ?? "failed" } : null
            })
          }
          break
        }
        case "message_template_status_update": {
          const name = str(value.message_template_name)
          const event = str(value.event)
          if (!name || !event) break
          const category = str(value.message_template_category)
          const info = obj(value.rejection_info)
          const reason = str(value.reason) ?? null
          events.push({
            _tag: "TemplateStatus",
            wabaId,
            name,
            language: str(value.message_template_language) ?? "",
            event,
            reason: reason === null || reason === "NONE" ? null : info?.reason ? `${reason}: ${str(info.reason)}` : reason,
            category: category && CATEGORIES.has(category) ? (category as TemplateStatus["category"]) : undefined
          })
          break
        }
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
