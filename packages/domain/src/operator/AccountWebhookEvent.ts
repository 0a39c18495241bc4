/**
 * The operator's account webhooks about the messaging limit and the number's quality
 * (issue 30), routed by the business account (`entry[].id`):
 * - `phone_number_quality_update`: `{display_phone_number, event, current_limit}`;
 * - `business_capability_update`: `{max_daily_conversations_per_business}` (-1: unlimited;
 *   the older `max_daily_conversation_per_phone` when it is the only one).
 * Tolerant like `WebhookEvent.parse`: a value without its fields is skipped.
 */
/** `phone_number_quality_update`: the number was flagged (or unflagged) for quality, with its messaging limit tier. */
export interface NumberQualityUpdate {
  readonly _tag: "NumberQualityUpdate"
  readonly wabaId: string
  readonly displayPhoneNumber: string
  /** `FLAGGED`, `UNFLAGGED`, `DOWNGRADE`, `UPGRADE`, ... */
  readonly event: string
  readonly currentLimit: string | null
}

/** `business_capability_update`: the business portfolio's messaging limit (`max_daily_conversations_per_business`, -1 unlimited). */
export interface CapabilityUpdate {
  readonly _tag: "CapabilityUpdate"
  readonly wabaId: string
  readonly maxDailyConversations: number
}

const str = (u: unknown): string | undefined => (typeof u === "string" && u.length > 0 ? u : undefined)

export const accountEventsOf = (field: string, wabaId: string, value: Record<string, unknown>): Array<NumberQualityUpdate | CapabilityUpdate> => {
  if (field === "phone_number_quality_update") {
    const event = str(value.event)
    return event === undefined
      ? []
      : [
          {
            _tag: "NumberQualityUpdate",
            wabaId,
            displayPhoneNumber: str(value.display_phone_number) ?? "",
            event,
            currentLimit: str(value.current_limit) ?? null
          }
        ]
  }
  const perDay = Number(value.max_daily_conversations_per_business ?? value.max_daily_conversation_per_phone)
  return Number.isFinite(perDay) ? [{ _tag: "CapabilityUpdate", wabaId, maxDailyConversations: perDay }] : []
}

/** A message status's `pricing` (§2.7) as `MessageStatus.pricing`: spread into the event, nothing when it has none. */
export const pricingOf = (u: unknown): { readonly pricing?: { readonly billable: boolean; readonly category: string } } => {
  const pricing = typeof u === "object" && u !== null ? (u as Record<string, unknown>) : undefined
  const category = str(pricing?.category)
  return pricing !== undefined && typeof pricing.billable === "boolean" && category !== undefined
    ? { pricing: { billable: pricing.billable, category } }
    : {}
}

/** The tags of the events routed by the business account (`WebhookEvent.isAccountEvent`). */
export const ACCOUNT_EVENT_TAGS: ReadonlySet<string> = new Set([
  "TemplateStatus",
  "TemplateCategoryUpdate",
  "TemplateQualityUpdate",
  "NumberQualityUpdate",
  "CapabilityUpdate",
  "FlowEvent"
])
