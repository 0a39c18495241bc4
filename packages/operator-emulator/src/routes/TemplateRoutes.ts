/**
 * Message templates (GRAPH_API.md §4): create, list and delete by name under
 * `/{waba_id}/message_templates`, and the control API's status changes
 * (`POST /templates/status`). The rules of templates live in `Templates.ts`.
 */
import { GraphErrors } from "../GraphError.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"
import { templateEvents } from "../Templates.js"
import type { TemplateStatus } from "../Templates.js"

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
            language: query.get("language")
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

export const controlEdges: ReadonlyArray<ControlEdge> = [
  { method: "POST", path: "/templates/status", handle: (ctx, request) => ok(setStatus(ctx, request.body())) }
]
