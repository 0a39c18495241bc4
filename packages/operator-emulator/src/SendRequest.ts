/**
 * The shape of a send request (`POST /{phone_number_id}/messages`, Appendix B.2/B.3), checked
 * in the operator's order and with its answers, and the text of the parameters it carries.
 */
import { GraphErrors } from "./GraphError.js"
import { normalizePhone } from "./Ids.js"

const SEND_TYPES = new Set(["text", "template", "interactive", "image", "audio", "video", "document", "sticker", "location", "contacts", "reaction"])

export interface ParsedSend {
  readonly input: string
  readonly waId: string
  readonly type: string
  readonly text?: string
  readonly template?: { name: string; language: string; components: ReadonlyArray<unknown> }
  readonly interactive?: unknown
  readonly callbackData?: string
}

const invalid = GraphErrors.invalidParameter

export const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

/** Checks the shape of a send request (Appendix B.2/B.3). */
export const parseSend = (payload: Record<string, unknown>): ParsedSend => {
  const rawTo = payload.to
  if (typeof rawTo !== "string" && typeof rawTo !== "number") throw invalid("The parameter to is required.")
  const input = String(rawTo)
  const waId = normalizePhone(input)
  if (waId === undefined) throw GraphErrors.invalidValue(`Invalid recipient phone number: ${input}`)
  const type = payload.type === undefined ? "text" : payload.type
  if (typeof type !== "string" || !SEND_TYPES.has(type)) {
    throw invalid(`Param type must be one of {${[...SEND_TYPES].join(", ")}}.`)
  }
  const callbackData = payload.biz_opaque_callback_data
  if (callbackData !== undefined && (typeof callbackData !== "string" || callbackData.length > 512)) {
    throw invalid("Param biz_opaque_callback_data must be a string of at most 512 characters.")
  }
  const base = { input, waId, type, ...(callbackData === undefined ? {} : { callbackData }) }
  const content = asObject(payload[type])
  if (content === undefined) throw invalid(`The parameter ${type} is required for messages of type ${type}.`)
  switch (type) {
    case "text": {
      const body = content.body
      if (typeof body !== "string" || body.length === 0) throw invalid("The parameter text['body'] is required.")
      if (body.length > 4096) throw invalid("Param text['body'] must be at most 4096 characters long.")
      return { ...base, text: body }
    }
    case "template": {
      const name = content.name
      if (typeof name !== "string" || name.length === 0) throw invalid("The parameter template['name'] is required.")
      const languageObject = asObject(content.language)
      const language = typeof content.language === "string" ? content.language : languageObject?.code
      if (typeof language !== "string" || language.length === 0) {
        throw invalid("The parameter template['language']['code'] is required.")
      }
      const components = content.components === undefined ? [] : content.components
      if (!Array.isArray(components)) throw invalid("Param template['components'] must be an array.")
      return { ...base, template: { name, language, components } }
    }
    case "interactive": {
      if (typeof content.type !== "string") throw invalid("The parameter interactive['type'] is required.")
      // every interactive type (button, list, product, flow, cta_url, call_permission_request...) carries its action
      if (asObject(content.action) === undefined) throw GraphErrors.missingParameter("The parameter interactive['action'] is required.")
      return { ...base, interactive: content }
    }
    default:
      return base
  }
}

/** The text of one template parameter (text, currency/date fallback, or JSON of anything else). */
export const parameterText = (parameter: unknown): string => {
  const p = asObject(parameter)
  if (p === undefined) return String(parameter)
  if (typeof p.text === "string") return p.text
  const currency = asObject(p.currency)
  if (typeof currency?.fallback_value === "string") return currency.fallback_value
  const dateTime = asObject(p.date_time)
  if (typeof dateTime?.fallback_value === "string") return dateTime.fallback_value
  if (typeof p.payload === "string") return p.payload
  return JSON.stringify(p)
}

/** A button component of a template send (Appendix B.2): which button, its sub-type, its one parameter as text. */
export interface SentButton {
  readonly index: number
  readonly sub_type: string
  readonly parameter: string
}

/**
 * The `button` components of a template send. A button without a numeric `index`, or a
 * button given twice, is refused as the operator refuses a malformed parameter.
 */
export const buttonComponents = (components: ReadonlyArray<unknown>): SentButton[] => {
  const buttons: SentButton[] = []
  for (const raw of components) {
    const component = asObject(raw)
    if (component === undefined || typeof component.type !== "string" || component.type.toLowerCase() !== "button") continue
    const index = Number(component.index)
    if (component.index === undefined || !Number.isInteger(index) || index < 0) {
      throw invalid("Param template['components'][]['index'] is required for a button component and must be a number.")
    }
    if (typeof component.sub_type !== "string") throw invalid("Param template['components'][]['sub_type'] is required for a button component.")
    if (buttons.some((b) => b.index === index)) throw invalid(`Button at index ${index} is given more than once.`)
    const parameters = Array.isArray(component.parameters) ? component.parameters : []
    const first = asObject(parameters[0])
    const action = asObject(first?.action)
    const parameter =
      first === undefined
        ? ""
        : typeof first.coupon_code === "string"
          ? first.coupon_code
          : action !== undefined
            ? String(action.flow_token ?? action.thumbnail_product_retailer_id ?? "")
            : parameterText(first)
    buttons.push({ index, sub_type: component.sub_type.toLowerCase(), parameter })
  }
  return buttons
}

export const componentParameters = (components: ReadonlyArray<unknown>, type: string): unknown[] | undefined => {
  for (const raw of components) {
    const component = asObject(raw)
    if (component !== undefined && typeof component.type === "string" && component.type.toLowerCase() === type) {
      return Array.isArray(component.parameters) ? component.parameters : []
    }
  }
  return undefined
}
