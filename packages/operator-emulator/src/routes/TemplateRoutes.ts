/**
 * Message templates (GRAPH_API.md §4): create, list and delete by name under
 * `/{waba_id}/message_templates`, and the control API's status changes
 * (`POST /templates/status`, `/templates/quality`, `/templates/category`). The rules of
 * templates live in `Templates.ts`, the list's in `TemplateList.ts`.
 */
import { GraphErrors } from "../GraphError.js"
import { checkRichTemplate } from "../RichTemplates.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"
import { qualityScores, templateCategories, templateEvents } from "../Templates.js"
import type { QualityScore, TemplateCategory, TemplateRecord, TemplateStatus } from "../Templates.js"

/** The WABA of a templates edge (created on first use); a phone number id has no templates. */
const wabaOf = (ctx: EmulatorContext, request: GraphRequest): string => {
  const wabaId = request.params.wabaId
  if (ctx.accounts.phoneNumber(wabaId) !== undefined) throw GraphErrors.nonexistingField("message_templates", wabaId)
  ctx.accounts.ensureWaba(wabaId)
  return wabaId
}

const PATH = "/:wabaId/message_templates"

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: PATH,
    handle: (ctx, request) => {
      const wabaId = wabaOf(ctx, request)
      checkRichTemplate(ctx.media, request.body())
      const template = ctx.templates.create(wabaId, request.body(), ctx.config.templateReviewDelayMs)
      return ok({ id: template.id, status: template.status, category: template.category })
    }
  },
  {
    method: "GET",
    path: PATH,
    handle: (ctx, request) => {
      const wabaId = wabaOf(ctx, request)
      const { query, version } = request
      return ok(
        ctx.templates.list(
          wabaId,
          {
            limit: query.get("limit"),
            after: query.get("after"),
            before: query.get("before"),
            status: query.get("status"),
            name: query.get("name"),
            category: query.get("category"),
            language: query.get("language"),
            quality_score: query.get("quality_score"),
            content: query.get("content"),
            name_or_content: query.get("name_or_content"),
            fields: query.get("fields"),
            summary: query.get("summary")
          },
          (cursor) => {
            const next = new URLSearchParams(query)
            next.delete("after")
            next.delete("before")
            if (cursor.after !== undefined) next.set("after", cursor.after)
            if (cursor.before !== undefined) next.set("before", cursor.before)
            if (!next.has("limit")) next.set("limit", "25")
            return `${ctx.url}/${version}/${wabaId}/message_templates?${next.toString()}`
          }
        )
      )
    }
  },
  {
    method: "DELETE",
    path: PATH,
    handle: (ctx, request) => {
      const wabaId = wabaOf(ctx, request)
      const name = request.query.get("name")
      if (name === null || name.length === 0) throw GraphErrors.invalidParameter("The parameter name is required.")
      const hsmId = request.query.get("hsm_id") ?? undefined
      if (ctx.templates.deleteByName(wabaId, name, hsmId) === 0) throw GraphErrors.templateNameNotFound(name)
      return ok({ success: true })
    }
  },
  {
    method: "*",
    path: PATH,
    handle: (ctx, request) => {
      wabaOf(ctx, request)
      throw GraphErrors.unknownPath("/message_templates")
    }
  }
]

/** Sets the status of a template's languages, as the operator's review or quality system would. */
const setStatus = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const wabaId = requiredString(body, "waba_id")
  const name = requiredString(body, "name")
  const language = optionalString(body, "language")
  const event = requiredString(body, "event").toUpperCase() as TemplateStatus
  if (!templateEvents.includes(event)) throw new ControlError(400, `event must be one of ${templateEvents.join(", ")}`)
  const changed = ctx.templates.setStatus(wabaId, name, language, event, optionalString(body, "reason"))
  if (changed.length === 0) {
    throw new ControlError(404, `no template ${name}${language === undefined ? "" : ` in ${language}`} in WABA ${wabaId}`)
  }
  return { ok: true, templates: changed.map((t) => ({ id: t.id, name: t.name, language: t.language, status: t.status })) }
}

const changed = (list: ReadonlyArray<TemplateRecord>, wabaId: string, name: string, language: string | undefined) => {
  if (list.length === 0) throw new ControlError(404, `no template ${name}${language === undefined ? "" : ` in ${language}`} in WABA ${wabaId}`)
  return {
    ok: true,
    templates: list.map((t) => ({ id: t.id, name: t.name, language: t.language, category: t.category, quality_score: t.qualityScore ?? "UNKNOWN" }))
  }
}

/** Rates a template's quality, as the operator's quality system would (`message_template_quality_update`). */
const setQuality = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const wabaId = requiredString(body, "waba_id")
  const name = requiredString(body, "name")
  const language = optionalString(body, "language")
  const score = requiredString(body, "score").toUpperCase() as QualityScore
  if (!qualityScores.includes(score)) throw new ControlError(400, `score must be one of ${qualityScores.join(", ")}`)
  return changed(ctx.templates.setQuality(wabaId, name, language, score), wabaId, name, language)
}

/**
 * Re-categorises a template (`template_category_update`): at once, or announced only when
 * `impending_at` (epoch seconds) is given.
 */
const setCategory = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const wabaId = requiredString(body, "waba_id")
  const name = requiredString(body, "name")
  const language = optionalString(body, "language")
  const category = requiredString(body, "category").toUpperCase() as TemplateCategory
  if (!templateCategories.includes(category)) throw new ControlError(400, `category must be one of ${templateCategories.join(", ")}`)
  const impending = body.impending_at
  if (impending !== undefined && (typeof impending !== "number" || !Number.isFinite(impending))) {
    throw new ControlError(400, "impending_at must be epoch seconds")
  }
  const impendingAt = impending === undefined ? undefined : impending * 1000
  return changed(ctx.templates.setCategory(wabaId, name, language, category, impendingAt), wabaId, name, language)
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/templates/status", handle: (ctx, request) => ok(setStatus(ctx, request.body())) },
  { method: "POST", path: "/templates/quality", handle: (ctx, request) => ok(setQuality(ctx, request.body())) },
  { method: "POST", path: "/templates/category", handle: (ctx, request) => ok(setCategory(ctx, request.body())) }
]
