/**
 * The rules of the richer template components (issue 32; GRAPH_API.md §4.2): media and
 * location headers, named parameters (`parameter_format: NAMED`), carousels and
 * limited-time offers. `Template.validate` calls these for the components that need them.
 *
 * Operator facts used (pywa's template fixtures and Meta's template guides):
 *   - IMAGE / VIDEO / DOCUMENT headers carry no text and need `example.header_handle` (here
 *     `example.header_media`, our media, uploaded for its handle at creation); an IMAGE is a
 *     JPEG or PNG, a VIDEO an MP4, a DOCUMENT a PDF. A LOCATION header has no text and no example.
 *   - NAMED placeholders are lower-case letters, digits and underscores, starting with a
 *     letter; each has an example in `body_text_named_params` / `header_text_named_params`.
 *   - A CAROUSEL holds 2 to 10 cards; each card has one media header (IMAGE or VIDEO), a
 *     body of at most 160 characters, and one or two buttons (QUICK_REPLY, URL,
 *     PHONE_NUMBER); every card has the same header format and the same buttons in order.
 *   - A LIMITED_TIME_OFFER's text is at most 16 characters; the template is MARKETING and has no footer.
 */
import type { FieldIssue } from "../shared/Errors.js"

/** What these rules read of a component (`Template.Component` and `Template.CardComponent` are such; kept structural so no import loop runs through Template.ts). */
export interface Comp {
  readonly type: string
  readonly format?: string | undefined
  readonly text?: string | undefined
  readonly example?: { readonly header_media?: string | undefined; readonly header_handle?: ReadonlyArray<string> | undefined } | undefined
  readonly buttons?: ReadonlyArray<{ readonly type: string }> | undefined
  readonly limited_time_offer?: { readonly text: string; readonly has_expiration?: boolean | undefined } | undefined
}
type Component = Comp
type CardComponent = Comp
interface TemplateData {
  readonly category: string
  readonly components: ReadonlyArray<Comp>
}

const NAME = /^[a-z][a-z0-9_]*$/
const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g

/** The names in a text's placeholders, in order of appearance (duplicates kept). */
export const namedPlaceholders = (text: string): Array<string> => Array.from(text.matchAll(PLACEHOLDER), (m) => m[1])

/** Whether the template's placeholders are names (a synced template's format follows from its text). */
export const isNamed = (components: ReadonlyArray<Component>): boolean =>
  components.some(
    (c) => (c.type === "BODY" || c.type === "HEADER") && c.text !== undefined && namedPlaceholders(c.text).some((p) => !/^\d+$/.test(p))
  )

/** The distinct names a text asks for, in order. */
export const namesOf = (text: string | undefined): ReadonlyArray<string> => (text === undefined ? [] : [...new Set(namedPlaceholders(text))])

/** Checks a text's named placeholders and their examples; answers their count. */
export const checkNamed = (
  path: string,
  text: string,
  examples: ReadonlyArray<{ readonly param_name: string; readonly example: string }> | undefined,
  examplesPath: string,
  issues: Array<FieldIssue>,
  edges: boolean
): number => {
  const names = namesOf(text)
  const bad = names.filter((n) => !NAME.test(n))
  if (bad.length > 0) {
    issues.push({
      path,
      message: `named placeholders are lower-case letters, digits and underscores, starting with a letter (found ${bad.map((n) => `{{${n}}}`).join(", ")})`
    })
    return 0
  }
  const trimmed = text.trim()
  if (names.length > 0 && edges && (/^\{\{[^}]*\}\}/.test(trimmed) || /\{\{[^}]*\}\}$/.test(trimmed))) {
    issues.push({ path, message: "text may not start or end with a placeholder" })
  }
  if (/\}\}\s*\{\{/.test(text)) issues.push({ path, message: "placeholders may not be adjacent" })
  const given = new Map((examples ?? []).map((e) => [e.param_name, e.example]))
  const missing = names.filter((n) => !given.get(n)?.trim())
  if (missing.length > 0) issues.push({ path: examplesPath, message: `must give an example for ${missing.map((n) => `"${n}"`).join(", ")}` })
  const extra = [...given.keys()].filter((n) => !names.includes(n))
  if (extra.length > 0) issues.push({ path: examplesPath, message: `names no placeholder of the text: ${extra.map((n) => `"${n}"`).join(", ")}` })
  return names.length
}

/** A media or location header: no text; a media header's example names our media (or the operator's handle). */
export const checkMediaHeader = (path: string, c: Component | CardComponent, issues: Array<FieldIssue>): void => {
  if (c.text !== undefined) issues.push({ path: `${path}.text`, message: `a ${c.format} header has no text` })
  if (c.format === "LOCATION") {
    if (c.example !== undefined) issues.push({ path: `${path}.example`, message: "a LOCATION header takes no example" })
    return
  }
  const media = c.example?.header_media
  const handle = c.example?.header_handle
  if (media === undefined && (handle === undefined || handle.length !== 1)) {
    issues.push({
      path: `${path}.example.header_media`,
      message: `is required: the id of an uploaded media (med_…) for the ${c.format} header's example`
    })
  }
}

const CARD_BUTTONS = new Set(["QUICK_REPLY", "URL", "PHONE_NUMBER"])
export const CARD_BODY_LIMIT = 160
export const CARDS = { min: 2, max: 10 } as const
export const OFFER_TEXT_LIMIT = 16

/** The shape every card must share: header format and button types. */
const shapeOf = (card: { readonly components: ReadonlyArray<Comp> }): string => {
  const header = card.components.find((c) => c.type === "HEADER")?.format ?? "none"
  const buttons = (card.components.find((c) => c.type === "BUTTONS")?.buttons ?? []).map((b) => b.type).join(",")
  return `${header}|${buttons}`
}

/** A CAROUSEL component (see the header). `checkText` checks a card body's positional placeholders. */
export const checkCarousel = <C extends Comp>(
  path: string,
  c: { readonly cards?: ReadonlyArray<{ readonly components: ReadonlyArray<C> }> | undefined },
  data: TemplateData,
  issues: Array<FieldIssue>,
  checkText: (path: string, c: C) => void
): void => {
  const cards = c.cards ?? []
  if (data.category !== "MARKETING") issues.push({ path: "templateData.category", message: "a carousel template is MARKETING" })
  if (cards.length < CARDS.min || cards.length > CARDS.max) {
    issues.push({ path: `${path}.cards`, message: `must hold ${CARDS.min} to ${CARDS.max} cards` })
    return
  }
  cards.forEach((card, i) => {
    const at = `${path}.cards[${i}]`
    const headers = card.components.filter((x) => x.type === "HEADER")
    const bodies = card.components.filter((x) => x.type === "BODY")
    const buttons = card.components.filter((x) => x.type === "BUTTONS")
    if (headers.length !== 1 || (headers[0].format !== "IMAGE" && headers[0].format !== "VIDEO")) {
      issues.push({ path: `${at}.components`, message: "a card has one HEADER, of format IMAGE or VIDEO" })
    }
    card.components.forEach((x, j) => {
      if (x.type === "HEADER" && (x.format === "IMAGE" || x.format === "VIDEO")) checkMediaHeader(`${at}.components[${j}]`, x, issues)
      if (x.type === "BODY") {
        if (!x.text || x.text.length > CARD_BODY_LIMIT)
          issues.push({ path: `${at}.components[${j}].text`, message: `must be 1 to ${CARD_BODY_LIMIT} characters` })
        else checkText(`${at}.components[${j}]`, x)
      }
      if (x.type !== "HEADER" && x.type !== "BODY" && x.type !== "BUTTONS") {
        issues.push({ path: `${at}.components[${j}].type`, message: "a card holds only HEADER, BODY and BUTTONS" })
      }
    })
    if (bodies.length > 1) issues.push({ path: `${at}.components`, message: "a card has at most one BODY" })
    const list = buttons[0]?.buttons ?? []
    if (buttons.length !== 1 || list.length < 1 || list.length > 2) {
      issues.push({ path: `${at}.components`, message: "a card has one BUTTONS component with 1 or 2 buttons" })
    } else {
      list.forEach((b, k) => {
        if (!CARD_BUTTONS.has(b.type))
          issues.push({ path: `${at}.buttons[${k}].type`, message: "a card's buttons are QUICK_REPLY, URL or PHONE_NUMBER" })
      })
    }
  })
  const first = shapeOf(cards[0])
  cards.forEach((card, i) => {
    if (i > 0 && shapeOf(card) !== first) {
      issues.push({
        path: `${path}.cards[${i}]`,
        message: "every card must have the same header format and the same buttons, in the same order, as the first"
      })
    }
  })
}

/** A LIMITED_TIME_OFFER component (see the header). */
export const checkOffer = (path: string, c: Component, data: TemplateData, issues: Array<FieldIssue>): void => {
  const text = c.limited_time_offer?.text ?? ""
  if (text.length === 0 || text.length > OFFER_TEXT_LIMIT) {
    issues.push({ path: `${path}.limited_time_offer.text`, message: `must be 1 to ${OFFER_TEXT_LIMIT} characters` })
  }
  if (data.category !== "MARKETING") issues.push({ path: "templateData.category", message: "a limited-time offer template is MARKETING" })
  if (data.components.some((x) => x.type === "FOOTER")) issues.push({ path: `${path}`, message: "a limited-time offer template has no FOOTER" })
}
