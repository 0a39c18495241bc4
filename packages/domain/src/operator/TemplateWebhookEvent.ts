/**
 * The operator's template webhooks (GRAPH_API.md §2.8, Appendix A.8, A.9) turned into
 * events routed by the business account (`entry[].id`): `message_template_status_update`,
 * `template_category_update` and `message_template_quality_update`.
 *
 * Tolerant like `WebhookEvent.parse`: a value without a template name, or without the
 * field its event turns on, is skipped.
 */
import type * as Time from "../shared/Time.js"
import { epoch, obj, str } from "./WebhookFields.js"

type TemplateCategory = "UTILITY" | "MARKETING" | "AUTHENTICATION"

export interface TemplateStatus {
  readonly _tag: "TemplateStatus"
  readonly wabaId: string
  readonly name: string
  readonly language: string
  readonly event: string
  readonly reason: string | null
  readonly category: TemplateCategory | undefined
}

/**
 * `template_category_update` (§2.8, A.8). Completed: the template's category is now
 * `category` (it was `previousCategory`). Impending (`upcomingCategory` set): the operator
 * will change it to `upcomingCategory` at `effectiveAt`; `category` is the one it has now.
 */
export interface TemplateCategoryUpdate {
  readonly _tag: "TemplateCategoryUpdate"
  readonly wabaId: string
  readonly name: string
  readonly language: string
  readonly category: TemplateCategory
  readonly previousCategory: TemplateCategory | null
  readonly upcomingCategory: TemplateCategory | null
  readonly effectiveAt: Time.Millis | null
}

type QualityScore = "GREEN" | "YELLOW" | "RED" | "UNKNOWN"

/** `message_template_quality_update` (§2.8, A.9). */
export interface TemplateQualityUpdate {
  readonly _tag: "TemplateQualityUpdate"
  readonly wabaId: string
  readonly name: string
  readonly language: string
  readonly score: QualityScore
  readonly previousScore: QualityScore | null
}

export type TemplateEvent = TemplateStatus | TemplateCategoryUpdate | TemplateQualityUpdate

const CATEGORIES = new Set(["UTILITY", "MARKETING", "AUTHENTICATION"])
const category = (u: unknown): TemplateCategory | null => {
  const c = str(u)?.toUpperCase()
  return c !== undefined && CATEGORIES.has(c) ? (c as TemplateCategory) : null
}
const SCORES = new Set(["GREEN", "YELLOW", "RED", "UNKNOWN"])
const score = (u: unknown): QualityScore | null => {
  const q = str(u)?.toUpperCase()
  return q !== undefined && SCORES.has(q) ? (q as QualityScore) : null
}

/** The template a template webhook names: its name and language. */
const templateOf = (value: Record<string, unknown>) => {
  const name = str(value.message_template_name)
  return name ? { name, language: str(value.message_template_language) ?? "" } : undefined
}

/** The template event of one change value of `field`, or none. */
export const templateEventsOf = (field: string, wabaId: string, value: Record<string, unknown>, receivedAt: Time.Millis): Array<TemplateEvent> => {
  const template = templateOf(value)
  if (!template) return []
  switch (field) {
    case "message_template_status_update": {
      const event = str(value.event)
      if (!event) return []
      const info = obj(value.rejection_info)
      const reason = str(value.reason) ?? null
      return [
        {
          _tag: "TemplateStatus",
          wabaId,
          ...template,
          event,
          reason: reason === null || reason === "NONE" ? null : info?.reason ? `${reason}: ${str(info.reason)}` : reason,
          category: category(value.message_template_category) ?? undefined
        }
      ]
    }
    case "template_category_update": {
      const now = category(value.new_category)
      if (now === null) return []
      const upcoming = category(value.correct_category)
      return [
        {
          _tag: "TemplateCategoryUpdate",
          wabaId,
          ...template,
          category: now,
          previousCategory: category(value.previous_category),
          upcomingCategory: upcoming,
          effectiveAt: upcoming !== null && value.category_update_timestamp !== undefined ? epoch(value.category_update_timestamp, receivedAt) : null
        }
      ]
    }
    case "message_template_quality_update": {
      const now = score(value.new_quality_score)
      if (now === null) return []
      return [{ _tag: "TemplateQualityUpdate", wabaId, ...template, score: now, previousScore: score(value.previous_quality_score) }]
    }
    default:
      return []
  }
}
