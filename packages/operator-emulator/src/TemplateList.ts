/**
 * `GET /{waba_id}/message_templates` (GRAPH_API.md §4.1, §1.2): filters (`status`,
 * `category`, `language`, `quality_score`, `name`, `content`, `name_or_content`), cursor
 * paging in creation order, `fields` (the id and the fields asked for, as the Graph does)
 * and `summary` (`total_count`, `message_template_count`, `message_template_limit`).
 */
import { GraphErrors } from "./GraphError.js"
import type { TemplateRecord } from "./Templates.js"

/** Query of `GET /{waba}/message_templates`. */
export interface TemplateListQuery {
  readonly limit?: string | null
  readonly after?: string | null
  readonly before?: string | null
  readonly status?: string | null
  readonly name?: string | null
  readonly category?: string | null
  readonly language?: string | null
  readonly quality_score?: string | null
  readonly content?: string | null
  readonly name_or_content?: string | null
  readonly fields?: string | null
  readonly summary?: string | null
}

/** The most templates a WABA may hold (GRAPH_API.md §4.3), answered as `message_template_limit`. */
export const TEMPLATE_LIMIT = 250

const SUMMARY_FIELDS = ["total_count", "message_template_count", "message_template_limit"] as const

/** Every field a template has, as the list's default view shows it plus `quality_score`. */
export const templateFields = (t: TemplateRecord): Record<string, unknown> => {
  const view: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    language: t.language,
    status: t.status,
    category: t.category,
    parameter_format: t.parameterFormat,
    components: t.components,
    quality_score: { score: t.qualityScore ?? "UNKNOWN", date: Math.floor(t.createdAt / 1000) }
  }
  if (t.status === "REJECTED") view.rejected_reason = t.reason
  return view
}

/** The template object as the list shows it without `fields` (no quality score). */
export const templateView = (t: TemplateRecord): Record<string, unknown> => {
  const { quality_score: _, ...view } = templateFields(t)
  return view
}

/**
 * The view with only `fields` (comma list; a nested selection such as `components{type}`
 * keeps the whole field) and the id, which the Graph always answers. Unknown fields are absent.
 */
export const selectFields = (t: TemplateRecord, fields: string | null | undefined): Record<string, unknown> => {
  if (fields === null || fields === undefined || fields.trim() === "") return templateView(t)
  const all = templateFields(t)
  const wanted = new Set(["id", ...topLevel(fields)])
  return Object.fromEntries(Object.entries(all).filter(([key]) => wanted.has(key)))
}

/** The top-level names of a `fields` list, skipping nested `{...}` and modifiers `.x(...)`. */
const topLevel = (fields: string): string[] => {
  const names: string[] = []
  let depth = 0
  let current = ""
  for (const ch of fields) {
    if (ch === "{" || ch === "(") depth++
    else if (ch === "}" || ch === ")") depth--
    else if (ch === "," && depth === 0) {
      names.push(current)
      current = ""
    } else if (depth === 0) current += ch
  }
  names.push(current)
  return names.map((name) => name.trim().split(".")[0]).filter((name) => name.length > 0)
}

const encodeCursor = (seq: number): string => Buffer.from(`seq:${seq}`).toString("base64url")
const decodeCursor = (cursor: string): number => {
  const match = /^seq:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (match === null) throw GraphErrors.invalidParameter(`Invalid cursor ${cursor}.`)
  return Number(match[1])
}

const splitList = (value: string | null | undefined): string[] | undefined =>
  value === null || value === undefined || value === ""
    ? undefined
    : value
        .replace(/^\[|\]$/g, "")
        .split(",")
        .map((part) => part.trim().replace(/^"|"$/g, "").toUpperCase())
        .filter((part) => part.length > 0)

/** Every text of a template's components (header, body, footer, button labels and URLs), lower-cased. */
const contentOf = (t: TemplateRecord): string => {
  const texts: string[] = []
  for (const raw of t.components) {
    const component = raw as { text?: unknown; buttons?: unknown }
    if (typeof component?.text === "string") texts.push(component.text)
    if (Array.isArray(component?.buttons)) {
      for (const button of component.buttons as Array<{ text?: unknown; url?: unknown }>) {
        if (typeof button?.text === "string") texts.push(button.text)
        if (typeof button?.url === "string") texts.push(button.url)
      }
    }
  }
  return texts.join("\n").toLowerCase()
}

/** The `summary` object: the counts asked for (`summary=true` asks for all). */
const summaryOf = (value: string, total: number, ofWaba: number): Record<string, number> => {
  const asked = value.toLowerCase() === "true" || value === "1" ? [...SUMMARY_FIELDS] : value.split(",").map((s) => s.trim())
  const counts: Record<string, number> = { total_count: total, message_template_count: ofWaba, message_template_limit: TEMPLATE_LIMIT }
  return Object.fromEntries(asked.filter((key) => key in counts).map((key) => [key, counts[key]]))
}

/**
 * One page of a WABA's templates (given in creation order, settled), filtered, with `paging`
 * (`next`/`previous` links from `pageUrl`, present only when more follow or precede) and
 * `summary` when asked.
 */
export const listTemplates = (
  templates: ReadonlyArray<TemplateRecord>,
  query: TemplateListQuery,
  pageUrl: (cursor: { after?: string; before?: string }) => string
): Record<string, unknown> => {
  let limit = 25
  if (query.limit !== undefined && query.limit !== null && query.limit !== "") {
    limit = Number(query.limit)
    if (!Number.isInteger(limit) || limit < 1) throw GraphErrors.invalidParameter("Param limit must be a positive integer.")
    limit = Math.min(limit, 100)
  }
  const statuses = splitList(query.status)
  const categories = splitList(query.category)
  const qualities = splitList(query.quality_score)
  const languages = query.language ? query.language.split(",").map((l) => l.trim()) : undefined
  const content = query.content ? query.content.toLowerCase() : undefined
  const nameOrContent = query.name_or_content ? query.name_or_content.toLowerCase() : undefined
  const all = templates.filter(
    (t) =>
      (statuses === undefined || statuses.includes(t.status)) &&
      (categories === undefined || categories.includes(t.category)) &&
      (qualities === undefined || qualities.includes(t.qualityScore ?? "UNKNOWN")) &&
      (languages === undefined || languages.includes(t.language)) &&
      (!query.name || t.name === query.name) &&
      (content === undefined || contentOf(t).includes(content)) &&
      (nameOrContent === undefined || t.name.toLowerCase().includes(nameOrContent) || contentOf(t).includes(nameOrContent))
  )
  let start: number
  let end: number
  if (query.after) {
    const afterSeq = decodeCursor(query.after)
    start = all.findIndex((t) => t.seq > afterSeq)
    if (start === -1) start = all.length
    end = Math.min(all.length, start + limit)
  } else if (query.before) {
    const beforeSeq = decodeCursor(query.before)
    end = all.findIndex((t) => t.seq >= beforeSeq)
    if (end === -1) end = all.length
    start = Math.max(0, end - limit)
  } else {
    start = 0
    end = Math.min(all.length, limit)
  }
  const page = all.slice(start, end)
  const answer: Record<string, unknown> = { data: page.map((t) => selectFields(t, query.fields)) }
  if (page.length > 0) {
    const before = encodeCursor(page[0].seq)
    const after = encodeCursor(page[page.length - 1].seq)
    const paging: Record<string, unknown> = { cursors: { before, after } }
    if (end < all.length) paging.next = pageUrl({ after })
    if (start > 0) paging.previous = pageUrl({ before })
    answer.paging = paging
  }
  if (query.summary) answer.summary = summaryOf(query.summary, all.length, templates.length)
  return answer
}
