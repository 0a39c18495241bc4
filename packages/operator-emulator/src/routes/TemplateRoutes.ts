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

/** The templates a control request names: a WABA, a name, and optionally one language. */
const targetOf = (body: Record<string, unknown>) => ({
  wabaId: requiredString(body, "waba_id"),
  name: requiredString(body, "name"),
  language: optionalString(body, "language")
})

/** The required `field`, upper case, which must be one of `allowed`. */
const oneOf = <T extends string>(body: Record<string, unknown>, field: string, allowed: ReadonlyArray<T>): T => {
  const value = requiredString(body, field).toUpperCase() as T
  if (!allowed.includes(value)) throw new ControlError(400, `${field} must be one of ${allowed.join(", ")}`)
  return value
}

/** The templates a control request changed; none is a 404. */
const found = <A>(list: ReadonlyArray<A>, target: ReturnType<typeof targetOf>): ReadonlyArray<A> => {
  const { wabaId, name, language } = target
  if (list.length === 0) throw new ControlError(404, `no template ${name}${language === undefined ? "" : ` in ${language}`} in WABA ${wabaId}`)
  return list
}

/** Sets the status of a template's languages, as the operator's review or quality system would. */
const setStatus = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const target = targetOf(body)
  const event = oneOf<TemplateStatus>(body, "event", templateEvents)
  const list = found(ctx.templates.setStatus(target.wabaId, target.name, target.language, event, optionalString(body, "reason")), target)
  return { ok: true, templates: list.map((t) => ({ id: t.id, name: t.name, language: t.language, status: t.status })) }
}

const changed = (list: ReadonlyArray<TemplateRecord>, target: ReturnType<typeof targetOf>) => ({
  ok: true,
  templates: found(list, target).map((t) => ({
    id: t.id,
    name: t.name,
    language: t.language,
    category: t.category,
    quality_score: t.qualityScore ?? "UNKNOWN"
  }))
})

/** Rates a template's quality, as the operator's quality system would (`message_template_quality_update`). */
const setQuality = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const target = targetOf(body)
  const score = oneOf<QualityScore>(body, "score", qualityScores)
  return changed(ctx.templates.setQuality(target.wabaId, target.name, target.language, score), target)
}

/**
 * Re-categorises a template (`template_category_update`): at once, or announced only when
 * `impending_at` (epoch seconds) is given.
 */
const setCategory = (ctx: EmulatorContext, body: Record<string, unknown>): unknown => {
  const target = targetOf(body)
  const category = oneOf<TemplateCategory>(body, "category", templateCategories)
  const impending = body.impending_at
  if (impending !== undefined && (typeof impending !== "number" || !Number.isFinite(impending))) {
    throw new ControlError(400, "impending_at must be epoch seconds")
  }
  const impendingAt = impending === undefined ? undefined : impending * 1000
  return changed(ctx.templates.setCategory(target.wabaId, target.name, target.language, category, impendingAt), target)
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/templates/status", handle: (ctx, request) => ok(setStatus(ctx, request.body())) },
  { method: "POST", path: "/templates/quality", handle: (ctx, request) => ok(setQuality(ctx, request.body())) },
  { method: "POST", path: "/templates/category", handle: (ctx, request) => ok(setCategory(ctx, request.body())) }
]
