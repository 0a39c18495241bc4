/**
 * The operator's checks of a template submission (GRAPH_API.md §4.2): name, language,
 * category, components, placeholders (positional `{{1}}..{{n}}` or named), lengths, with the
 * operator's subcodes; and the review decided at creation (§4.5: a UTILITY template whose
 * text is promotional is rejected as INCORRECT_CATEGORY).
 */
import { ErrorSubcode, GraphErrors } from "./GraphError.js"
import type { ParameterFormat, ReviewDecision, TemplateCategory } from "./Templates.js"

const NAME = /^[a-z0-9_]{1,512}$/
const LANGUAGE = /^[a-z]{2,3}(?:_[A-Za-z0-9]{2,4})?$/
const CATEGORIES: ReadonlyArray<TemplateCategory> = ["UTILITY", "MARKETING", "AUTHENTICATION"]
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g
const NAMED_PARAMETER = /^[a-z_][a-z0-9_]*$/

/**
 * Promotional wording that makes a UTILITY template MARKETING (GRAPH_API.md §4.5).
 * Case-insensitive; whole words or phrases.
 */
export const PROMOTIONAL =
  /\b(?:discounts?|discounted|offers?|sales?|promos?|promotions?|promotional|coupons?|deals?|buy now|shop now|limited[- ]time|free shipping|save \$?\d+|special prices?|exclusives?)\b|%\s*off\b/i

/** Whether the text reads as promotional. */
export const isPromotional = (text: string): boolean => PROMOTIONAL.test(text)

const fail = (details: string, extra: { subcode?: number; userTitle?: string } = {}): never => {
  throw GraphErrors.invalidParameter(details, extra)
}

const tooLong = (field: string, limit: number): never =>
  fail(`${field} text exceeds the ${limit} character limit.`, { subcode: ErrorSubcode.TEMPLATE_FIELD_TOO_LONG, userTitle: "Field length exceeded" })

/**
 * The distinct placeholders of a text, checked against the parameter format: positional ones
 * must be `{{1}}..{{n}}` without gaps; named ones lowercase identifiers.
 */
const placeholders = (text: string, format: ParameterFormat, field: string): string[] => {
  const seen: string[] = []
  for (const match of text.matchAll(PLACEHOLDER)) {
    const token = match[1]
    if (format === "POSITIONAL" && !/^\d+$/.test(token)) {
      fail(`${field} variable {{${token}}} is not valid: positional variables are {{1}}, {{2}}, ... in order.`, {
        userTitle: "Invalid variable"
      })
    }
    if (format === "NAMED" && !NAMED_PARAMETER.test(token)) {
      fail(`${field} variable {{${token}}} is not valid: named variables use lowercase letters, digits and underscores.`, {
        userTitle: "Invalid variable"
      })
    }
    if (!seen.includes(token)) seen.push(token)
  }
  if (format === "POSITIONAL") {
    const numbers = seen.map(Number).sort((a, b) => a - b)
    numbers.forEach((n, i) => {
      if (n !== i + 1) {
        fail(`${field} variables must be sequential, starting at {{1}}; found {{${numbers.join("}}, {{")}}}.`, {
          userTitle: "Variables not sequential"
        })
      }
    })
  }
  return seen
}

/** A validated creation request. */
export interface TemplateDraft {
  readonly name: string
  readonly language: string
  readonly category: TemplateCategory
  readonly parameterFormat: ParameterFormat
  readonly components: ReadonlyArray<unknown>
  readonly bodyParams: number
  readonly headerParams: number
  readonly decision: ReviewDecision
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/**
 * Validates a `POST /{waba}/message_templates` body as the operator does (§4.2) and decides
 * the review outcome. Throws `GraphError` code 100 (with a 2388xxx subcode where the operator has one).
 */
export const parseTemplateCreate = (body: unknown): TemplateDraft => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fail("The request body must be a JSON object.")
  const input = body as Record<string, unknown>
  const name = str(input.name)
  if (name === undefined || name.length === 0) return fail("The parameter name is required.")
  if (!NAME.test(name)) return fail("Template name can only contain lowercase letters, digits and underscores (at most 512).")
  const language = str(input.language)
  if (language === undefined || language.length === 0) return fail("The parameter language is required.")
  if (!LANGUAGE.test(language)) return fail(`Language ${language} is not supported.`)
  const category = str(input.category)?.toUpperCase()
  if (category === undefined) return fail("The parameter category is required.")
  if (!CATEGORIES.includes(category as TemplateCategory)) {
    return fail("Param category must be one of {UTILITY, MARKETING, AUTHENTICATION}.")
  }
  const format = (str(input.parameter_format)?.toUpperCase() ?? "POSITIONAL") as ParameterFormat
  if (format !== "POSITIONAL" && format !== "NAMED") return fail("Param parameter_format must be one of {POSITIONAL, NAMED}.")
  if (!Array.isArray(input.components)) return fail("The parameter components is required and must be an array.")

  let body_: string | undefined
  let headerParams = 0
  const texts: string[] = []
  const seenTypes = new Set<string>()
  for (const raw of input.components) {
    if (typeof raw !== "object" || raw === null) return fail("Every component must be an object.")
    const component = raw as Record<string, unknown>
    const type = str(component.type)?.toUpperCase()
    if (type === undefined) return fail("Every component needs a type.")
    if (seenTypes.has(type)) return fail(`Only one ${type} component is allowed.`)
    seenTypes.add(type)
    const text = str(component.text)
    switch (type) {
      case "BODY": {
        if (text === undefined || text.trim().length === 0) return fail("The BODY component needs a text.")
        if (text.length > 1024) return tooLong("BODY", 1024)
        placeholders(text, format, "BODY")
        const trimmed = text.trim()
        if (/^\{\{[^{}]*\}\}/.test(trimmed) || /\{\{[^{}]*\}\}$/.test(trimmed)) {
          fail("Variables can't be at the start or end of the template body.", {
            subcode: ErrorSubcode.TEMPLATE_VARIABLE_PLACEMENT,
            userTitle: "Variables can't be at the start or end of the template"
          })
        }
        body_ = text
        texts.push(text)
        break
      }
      case "HEADER": {
        const headerFormat = str(component.format)?.toUpperCase() ?? "TEXT"
        if (headerFormat === "TEXT") {
          if (text === undefined || text.length === 0) return fail("A TEXT HEADER needs a text.")
          if (text.length > 60) return tooLong("HEADER", 60)
          const found = placeholders(text, format, "HEADER")
          if (found.length > 1) {
            fail("A HEADER text may contain at most one variable.", {
              subcode: ErrorSubcode.TEMPLATE_HEADER_FORMAT,
              userTitle: "Header format incorrect"
            })
          }
          headerParams = found.length
          texts.push(text)
        }
        break
      }
      case "FOOTER": {
        if (text === undefined || text.length === 0) return fail("The FOOTER component needs a text.")
        if (text.length > 60) return tooLong("FOOTER", 60)
        if (/\{\{[^{}]*\}\}/.test(text)) {
          fail("The FOOTER text can't contain variables.", { subcode: ErrorSubcode.TEMPLATE_FOOTER_FORMAT, userTitle: "Footer format incorrect" })
        }
        texts.push(text)
        break
      }
      case "BUTTONS": {
        const buttons = component.buttons
        if (!Array.isArray(buttons) || buttons.length === 0 || buttons.length > 10) {
          return fail("The BUTTONS component needs between 1 and 10 buttons.")
        }
        for (const button of buttons as Array<Record<string, unknown>>) {
          const label = str(button?.text)
          if (label !== undefined && label.length > 25) return tooLong("Button", 25)
          if (label !== undefined) texts.push(label)
        }
        break
      }
      case "CAROUSEL":
      case "LIMITED_TIME_OFFER":
        break
      default:
        return fail(`Component type ${type} is not supported.`)
    }
  }
  if (body_ === undefined) return fail('Message template "components" param is missing expected field(s) (BODY).')

  const bodyParams = placeholders(body_, format, "BODY").length
  return {
    name,
    language,
    category: category as TemplateCategory,
    parameterFormat: format,
    components: structuredClone(input.components),
    bodyParams,
    headerParams,
    decision: decideReview(category as TemplateCategory, texts, body_)
  }
}

/**
 * The review outcome: a UTILITY template with promotional text is rejected as INCORRECT_CATEGORY;
 * adjacent variables (`{{1}}{{2}}`) are rejected as INVALID_FORMAT; everything else is approved.
 */
export const decideReview = (category: TemplateCategory, texts: ReadonlyArray<string>, body: string): ReviewDecision => {
  if (category === "UTILITY" && texts.some(isPromotional)) {
    return {
      status: "REJECTED",
      reason: "INCORRECT_CATEGORY",
      rejectionInfo: {
        reason: "The template's content is promotional and doesn't match the UTILITY category.",
        recommendation: "Submit the template as MARKETING, or remove the promotional content."
      }
    }
  }
  if (/\}\}\s*\{\{/.test(body)) {
    return {
      status: "REJECTED",
      reason: "INVALID_FORMAT",
      rejectionInfo: {
        reason: "The template has variables next to each other.",
        recommendation: "Put text between the variables."
      }
    }
  }
  return { status: "APPROVED", reason: "NONE" }
}
