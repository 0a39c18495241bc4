/**
 * Message templates of each WABA (GRAPH_API.md §4): creation with the operator's validation
 * (`TemplateValidation.ts`), time-based review, list (`TemplateList.ts`), delete by name,
 * status changes, quality ratings and re-categorisation.
 *
 * Lifecycle: `PENDING --(review delay)--> APPROVED | REJECTED`; later, from the control API,
 * `APPROVED | PAUSED | DISABLED | REJECTED | FLAGGED`. The review decision is fixed at creation and
 * applied lazily: whichever comes first, the review timer or a read after the review time,
 * settles the template and fires the `message_template_status_update` webhook exactly once.
 */
import { GraphErrors } from "./GraphError.js"
import { type TemplateListQuery, listTemplates } from "./TemplateList.js"
import { parseTemplateCreate } from "./TemplateValidation.js"

export type TemplateCategory = "UTILITY" | "MARKETING" | "AUTHENTICATION"
export type TemplateStatus = "PENDING" | "APPROVED" | "REJECTED" | "PAUSED" | "DISABLED" | "FLAGGED"
export type ParameterFormat = "POSITIONAL" | "NAMED"
export type QualityScore = "GREEN" | "YELLOW" | "RED" | "UNKNOWN"
export const qualityScores: ReadonlyArray<QualityScore> = ["GREEN", "YELLOW", "RED", "UNKNOWN"]
export const templateCategories: ReadonlyArray<TemplateCategory> = ["UTILITY", "MARKETING", "AUTHENTICATION"]

/** Status events the control API may set. */
export const templateEvents: ReadonlyArray<TemplateStatus> = ["APPROVED", "PAUSED", "DISABLED", "REJECTED", "FLAGGED"]

/** `rejection_info` of a rejected template. */
export interface RejectionInfo {
  readonly reason: string
  readonly recommendation: string
}

/** The outcome of a review, decided at creation. */
export interface ReviewDecision {
  readonly status: "APPROVED" | "REJECTED"
  readonly reason: string
  readonly rejectionInfo?: RejectionInfo
}

/** A stored template (one name in one language). JSON-safe: it is persisted as is. */
export interface TemplateRecord {
  readonly id: string
  /** Creation order, for stable listing and cursors. */
  readonly seq: number
  readonly wabaId: string
  readonly name: string
  readonly language: string
  category: TemplateCategory
  readonly parameterFormat: ParameterFormat
  readonly components: ReadonlyArray<unknown>
  /** Distinct placeholders in the BODY text: the parameters a send must supply. */
  readonly bodyParams: number
  /** Distinct placeholders in a TEXT HEADER (0 or 1). */
  readonly headerParams: number
  readonly createdAt: number
  readonly reviewAt: number
  status: TemplateStatus
  /** `reason` of the last status change (`NONE` when there is none). */
  reason: string
  /** The quality rating (GREEN, YELLOW, RED); absent is UNKNOWN. */
  qualityScore?: QualityScore
  rejectionInfo?: RejectionInfo
  /** Set while the review is pending. */
  pendingDecision?: ReviewDecision
}

/** The `value` of the `message_template_status_update` webhook for the template's current status (Appendix A.7). */
export const statusUpdateValue = (t: TemplateRecord, now: number): Record<string, unknown> => {
  const value: Record<string, unknown> = {
    event: t.status,
    message_template_id: Number(t.id),
    message_template_name: t.name,
    message_template_language: t.language,
    message_template_category: t.category,
    reason: t.reason
  }
  if (t.status === "REJECTED" && t.rejectionInfo !== undefined) value.rejection_info = t.rejectionInfo
  if (t.status === "DISABLED") value.disable_info = { disable_date: Math.floor(now / 1000) }
  if (t.status === "PAUSED") {
    value.other_info = { title: "FIRST_PAUSE", description: "Your message template has been paused because of low quality." }
  }
  return value
}

// ---------------------------------------------------------------------------------------------
// Store

/** What the state file keeps of the templates. */
export interface TemplatesSnapshot {
  readonly nextId: number
  readonly nextSeq: number
  readonly templates: ReadonlyArray<TemplateRecord>
}

/** Callbacks of the store. */
export interface TemplateHooks {
  readonly now: () => number
  /** The template's status changed (review or control API): send its status webhook. */
  readonly onStatus: (template: TemplateRecord) => void
  /** Another template webhook (`template_category_update`, `message_template_quality_update`) to send. */
  readonly onNotice: (template: TemplateRecord, field: string, value: Record<string, unknown>) => void
  /** Something to persist changed. */
  readonly onChange: () => void
}

export class TemplateStore {
  private readonly byWaba = new Map<string, TemplateRecord[]>()
  private readonly byId = new Map<string, TemplateRecord>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private nextId = 100_000_000_000_000 + Math.floor(Math.random() * 800_000_000_000_000)
  private nextSeq = 1

  constructor(private readonly hooks: TemplateHooks) {}

  /** Creates a PENDING template from a request body and schedules its review. */
  create(wabaId: string, body: unknown, reviewDelayMs: number): TemplateRecord {
    const draft = parseTemplateCreate(body)
    const existing = this.byWaba.get(wabaId) ?? []
    if (existing.some((t) => t.name === draft.name && t.language === draft.language)) {
      throw GraphErrors.templateExists(draft.name, draft.language)
    }
    const now = this.hooks.now()
    const template: TemplateRecord = {
      id: String(this.nextId++),
      seq: this.nextSeq++,
      wabaId,
      name: draft.name,
      language: draft.language,
      category: draft.category,
      parameterFormat: draft.parameterFormat,
      components: draft.components,
      bodyParams: draft.bodyParams,
      headerParams: draft.headerParams,
      createdAt: now,
      reviewAt: now + reviewDelayMs,
      status: "PENDING",
      reason: "NONE",
      pendingDecision: draft.decision
    }
    existing.push(template)
    this.byWaba.set(wabaId, existing)
    this.byId.set(template.id, template)
    this.scheduleReview(template)
    this.hooks.onChange()
    return template
  }

  private scheduleReview(template: TemplateRecord): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        // Timers may fire a millisecond before the wall clock reaches reviewAt: then wait again.
        if (this.hooks.now() < template.reviewAt) this.scheduleReview(template)
        else this.settle(template)
      },
      Math.max(0, template.reviewAt - this.hooks.now())
    )
    this.timers.add(timer)
  }

  /** Applies the review decision if its time has come; fires the webhook once. */
  private settle(template: TemplateRecord): TemplateRecord {
    const decision = template.pendingDecision
    if (decision === undefined || this.hooks.now() < template.reviewAt) return template
    if (this.byId.get(template.id) !== template) return template
    template.pendingDecision = undefined
    template.status = decision.status
    template.reason = decision.reason
    template.rejectionInfo = decision.rejectionInfo
    this.hooks.onStatus(template)
    this.hooks.onChange()
    return template
  }

  /** A template by id (settled). */
  get(id: string): TemplateRecord | undefined {
    const template = this.byId.get(id)
    return template === undefined ? undefined : this.settle(template)
  }

  /** The template of a WABA with this name and language (settled). */
  find(wabaId: string, name: string, language: string): TemplateRecord | undefined {
    const template = this.byWaba.get(wabaId)?.find((t) => t.name === name && t.language === language)
    return template === undefined ? undefined : this.settle(template)
  }

  /** One page of a WABA's templates (see `TemplateList.ts`); `pageUrl` builds the `paging` links. */
  list(wabaId: string, query: TemplateListQuery, pageUrl: (cursor: { after?: string; before?: string }) => string): Record<string, unknown> {
    return listTemplates(
      (this.byWaba.get(wabaId) ?? []).map((t) => this.settle(t)),
      query,
      pageUrl
    )
  }

  /** Deletes all languages of a name (or only the one with `hsmId`); returns how many were deleted. */
  deleteByName(wabaId: string, name: string, hsmId?: string): number {
    const templates = this.byWaba.get(wabaId) ?? []
    const doomed = templates.filter((t) => t.name === name && (hsmId === undefined || t.id === hsmId))
    if (doomed.length === 0) return 0
    this.byWaba.set(
      wabaId,
      templates.filter((t) => !doomed.includes(t))
    )
    for (const t of doomed) this.byId.delete(t.id)
    this.hooks.onChange()
    return doomed.length
  }

  /**
   * Sets the status of a WABA's templates with this name (one language, or all) as the operator
   * would later in their life, cancelling any pending review; fires one webhook per template.
   */
  setStatus(wabaId: string, name: string, language: string | undefined, event: TemplateStatus, reason?: string): TemplateRecord[] {
    const matches = (this.byWaba.get(wabaId) ?? []).filter((t) => t.name === name && (language === undefined || t.language === language))
    for (const template of matches) {
      template.pendingDecision = undefined
      template.status = event
      template.reason = reason ?? "NONE"
      template.rejectionInfo =
        event === "REJECTED" && reason !== undefined ? { reason, recommendation: "Edit the template and submit it again." } : undefined
      this.hooks.onStatus(template)
    }
    if (matches.length > 0) this.hooks.onChange()
    return matches
  }

  private named(wabaId: string, name: string, language: string | undefined): TemplateRecord[] {
    return (this.byWaba.get(wabaId) ?? []).filter((t) => t.name === name && (language === undefined || t.language === language))
  }

  /** Rates the quality of a WABA's templates with this name (one language, or all); one quality webhook per template. */
  setQuality(wabaId: string, name: string, language: string | undefined, score: QualityScore): TemplateRecord[] {
    const matches = this.named(wabaId, name, language)
    for (const template of matches) {
      const previous = template.qualityScore ?? "UNKNOWN"
      template.qualityScore = score
      this.hooks.onNotice(template, "message_template_quality_update", {
        previous_quality_score: previous,
        new_quality_score: score,
        message_template_id: Number(template.id),
        message_template_name: template.name,
        message_template_language: template.language
      })
    }
    if (matches.length > 0) this.hooks.onChange()
    return matches
  }

  /**
   * Re-categorises a WABA's templates with this name (Appendix A.8): at once (a completed
   * notice with `previous_category`), or announced only (`impendingAt`, epoch ms: a notice with
   * `correct_category` and `category_update_timestamp`, the category unchanged).
   */
  setCategory(wabaId: string, name: string, language: string | undefined, category: TemplateCategory, impendingAt?: number): TemplateRecord[] {
    const matches = this.named(wabaId, name, language)
    for (const template of matches) {
      const base = {
        message_template_id: Number(template.id),
        message_template_name: template.name,
        message_template_language: template.language
      }
      if (impendingAt !== undefined) {
        this.hooks.onNotice(template, "template_category_update", {
          ...base,
          correct_category: category,
          new_category: template.category,
          category_update_timestamp: Math.floor(impendingAt / 1000)
        })
        continue
      }
      const previous = template.category
      template.category = category
      this.hooks.onNotice(template, "template_category_update", { ...base, previous_category: previous, new_category: category })
    }
    if (matches.length > 0) this.hooks.onChange()
    return matches
  }

  snapshot(): TemplatesSnapshot {
    const templates: TemplateRecord[] = []
    for (const list of this.byWaba.values()) templates.push(...list)
    return { nextId: this.nextId, nextSeq: this.nextSeq, templates }
  }

  /** Loads persisted templates; pending reviews are rescheduled (or settled at once if overdue). */
  restore(snapshot: TemplatesSnapshot): void {
    this.nextId = Math.max(this.nextId, snapshot.nextId)
    this.nextSeq = Math.max(this.nextSeq, snapshot.nextSeq)
    const sorted = [...snapshot.templates].sort((a, b) => a.seq - b.seq)
    for (const template of sorted) {
      const list = this.byWaba.get(template.wabaId) ?? []
      list.push(template)
      this.byWaba.set(template.wabaId, list)
      this.byId.set(template.id, template)
      if (template.pendingDecision !== undefined) this.scheduleReview(template)
    }
  }

  /** Stops the review timers. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
