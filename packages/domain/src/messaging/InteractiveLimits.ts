/**
 * The operator's limits on interactive messages, checked before a send reaches it (so a
 * caller gets a 400 naming the field instead of the operator's refusal after the message was
 * recorded). GRAPH_API.md §5.4, §6.5, §8 and Meta's "Share products with customers" guide:
 *
 * - flow messages: the button text (`flow.cta`, or `flow_cta` of a raw `flow` interactive)
 *   1 to 30 characters;
 * - `voice_call`: `ttl_minutes` a whole number from 1 to 43,200, `display_text` at most 20;
 * - `product`: `action.catalog_id` and `action.product_retailer_id`;
 * - `product_list`: a `header` of type `text`, a body, `action.catalog_id`, 1 to 10 sections
 *   each with at least one product (a `title` on each when there are several), at most 30
 *   products in all.
 *
 * Whether the catalog is connected and the products exist is the operator's to say.
 */
import type { FieldIssue } from "../shared/Errors.js"
import type * as Message from "./Message.js"

export const FLOW_CTA_MAX = 30
export const CALL_BUTTON_TEXT_MAX = 20
export const TTL_MINUTES_MIN = 1
export const TTL_MINUTES_MAX = 43_200
export const PRODUCT_LIST_SECTIONS_MAX = 10
export const PRODUCT_LIST_ITEMS_MAX = 30

type Json = Record<string, unknown>
const objectOf = (u: unknown): Json | undefined => (typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Json) : undefined)
const text = (u: unknown): u is string => typeof u === "string" && u.trim().length > 0
const id = (u: unknown): boolean => text(u) || (typeof u === "number" && Number.isFinite(u))

const ctaIssue = (cta: unknown, path: string): ReadonlyArray<FieldIssue> =>
  text(cta) && cta.length <= FLOW_CTA_MAX ? [] : [{ path, message: `must be 1 to ${FLOW_CTA_MAX} characters` }]

const voiceCall = (action: Json): ReadonlyArray<FieldIssue> => {
  const parameters = objectOf(action.parameters) ?? {}
  const issues: Array<FieldIssue> = []
  const ttl = parameters.ttl_minutes
  if (ttl !== undefined && !(typeof ttl === "number" && Number.isInteger(ttl) && ttl >= TTL_MINUTES_MIN && ttl <= TTL_MINUTES_MAX)) {
    issues.push({
      path: "interactive.action.parameters.ttl_minutes",
      message: `must be a whole number of minutes from ${TTL_MINUTES_MIN} to ${TTL_MINUTES_MAX}`
    })
  }
  const display = parameters.display_text
  if (display !== undefined && !(text(display) && display.length <= CALL_BUTTON_TEXT_MAX)) {
    issues.push({ path: "interactive.action.parameters.display_text", message: `must be 1 to ${CALL_BUTTON_TEXT_MAX} characters` })
  }
  return issues
}

const product = (action: Json): ReadonlyArray<FieldIssue> => [
  ...(id(action.catalog_id) ? [] : [{ path: "interactive.action.catalog_id", message: "is required" }]),
  ...(id(action.product_retailer_id) ? [] : [{ path: "interactive.action.product_retailer_id", message: "is required" }])
]

const productList = (interactive: Json, action: Json): ReadonlyArray<FieldIssue> => {
  const issues: Array<FieldIssue> = []
  const header = objectOf(interactive.header)
  if (header?.type !== "text" || !text(header.text)) issues.push({ path: "interactive.header", message: "is required, of type text with its text" })
  if (!text(objectOf(interactive.body)?.text)) issues.push({ path: "interactive.body.text", message: "is required" })
  if (!id(action.catalog_id)) issues.push({ path: "interactive.action.catalog_id", message: "is required" })
  const sections = action.sections
  if (!Array.isArray(sections) || sections.length === 0 || sections.length > PRODUCT_LIST_SECTIONS_MAX) {
    issues.push({ path: "interactive.action.sections", message: `must hold 1 to ${PRODUCT_LIST_SECTIONS_MAX} sections` })
    return issues
  }
  let items = 0
  sections.forEach((raw: unknown, i: number) => {
    const section = objectOf(raw)
    if (sections.length > 1 && !text(section?.title)) {
      issues.push({ path: `interactive.action.sections.${i}.title`, message: "is required when there are several sections" })
    }
    const products = section?.product_items
    if (!Array.isArray(products) || products.length === 0) {
      issues.push({ path: `interactive.action.sections.${i}.product_items`, message: "must hold at least one product" })
      return
    }
    products.forEach((item: unknown, j: number) => {
      if (!id(objectOf(item)?.product_retailer_id)) {
        issues.push({ path: `interactive.action.sections.${i}.product_items.${j}.product_retailer_id`, message: "is required" })
      }
    })
    items += products.length
  })
  if (items > PRODUCT_LIST_ITEMS_MAX) {
    issues.push({ path: "interactive.action.sections", message: `must hold at most ${PRODUCT_LIST_ITEMS_MAX} products in all (has ${items})` })
  }
  return issues
}

/** The limits a message breaks; none when it keeps them (or is of a type without such limits). */
export const check = (input: Message.SendMessage): ReadonlyArray<FieldIssue> => {
  if (input.type === "flow") return ctaIssue(input.flow.cta, "flow.cta")
  if (input.type !== "interactive") return []
  const interactive = input.interactive as Json
  const action = objectOf(interactive.action) ?? {}
  switch (interactive.type) {
    case "flow":
      return ctaIssue(objectOf(action.parameters)?.flow_cta, "interactive.action.parameters.flow_cta")
    case "voice_call":
      return voiceCall(action)
    case "product":
      return product(action)
    case "product_list":
      return productList(interactive, action)
    default:
      return []
  }
}
