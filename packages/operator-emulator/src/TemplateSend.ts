/**
 * The checks of a template send (GRAPH_API.md §4.6, Appendix B.2): the template exists in
 * the sender's WABA and language and is sendable (132001, 132015, 132016), the body and the
 * header get as many parameters as they have variables (132000), and every button that takes
 * a value gets it by index and sub-type (131008, 131009).
 */
import type { PhoneNumber } from "./Accounts.js"
import { GraphErrors } from "./GraphError.js"
import type { SentMessage } from "./Messaging.js"
import { type ParsedSend, type SentButton, asObject, buttonComponents, componentParameters, parameterText } from "./SendRequest.js"
import type { TemplateRecord, TemplateStore } from "./Templates.js"

/** The sub-type a template's button takes a parameter of, or undefined for buttons that take none. */
const buttonNeed = (button: Record<string, unknown>): string | undefined => {
  const type = typeof button.type === "string" ? button.type.toUpperCase() : ""
  if (type === "URL") return typeof button.url === "string" && /\{\{[^{}]*\}\}/.test(button.url) ? "url" : undefined
  if (type === "OTP") return "url"
  if (type === "COPY_CODE") return "copy_code"
  if (type === "QUICK_REPLY") return "quick_reply"
  if (type === "FLOW") return "flow"
  if (type === "CATALOG") return "catalog"
  if (type === "MPM") return "mpm"
  return undefined
}

/**
 * The buttons of a template send against the template's BUTTONS (B.2): a URL button with a
 * variable, an OTP button (its code) and a COPY_CODE button need their parameter (131008); a
 * parameter for a button the template does not have, or of another sub-type, is invalid
 * (131009). Quick replies may carry a payload, flow buttons an action with a flow token.
 */
const checkButtons = (components: ReadonlyArray<unknown>, sent: ReadonlyArray<SentButton>): void => {
  const declared: Array<Record<string, unknown>> = []
  for (const raw of components) {
    const component = asObject(raw)
    if (typeof component?.type === "string" && component.type.toUpperCase() === "BUTTONS" && Array.isArray(component.buttons)) {
      for (const button of component.buttons) declared.push(asObject(button) ?? {})
    }
  }
  for (const button of sent) {
    const target = declared[button.index]
    const need = target === undefined ? undefined : buttonNeed(target)
    if (need === undefined) {
      throw GraphErrors.invalidValue(`buttons: the template has no button at index ${button.index} that takes a parameter`)
    }
    if (need !== button.sub_type) {
      throw GraphErrors.invalidValue(
        `buttons: Button at index ${button.index} of type ${String(target!.type)} takes sub_type ${need}, not ${button.sub_type}`
      )
    }
    if (need !== "quick_reply" && need !== "flow" && need !== "catalog" && button.parameter.length === 0)
      throw GraphErrors.buttonParameterMissing(button.index, String(target!.type))
  }
  declared.forEach((button, index) => {
    const need = buttonNeed(button)
    if (need === undefined || need === "quick_reply" || need === "flow" || need === "catalog") return
    if (!sent.some((b) => b.index === index)) {
      const type = String(button.type)
      throw GraphErrors.buttonParameterMissing(index, type.charAt(0) + type.slice(1).toLowerCase())
    }
  })
}

/** The template a send names, if sendable, with the parameters it received. */
export const checkTemplateSend = (
  templates: TemplateStore,
  phone: PhoneNumber,
  request: NonNullable<ParsedSend["template"]>
): { template: TemplateRecord; view: NonNullable<SentMessage["template"]> } => {
  const template = templates.find(phone.wabaId, request.name, request.language)
  if (template === undefined) throw GraphErrors.templateNotFound(request.name, request.language)
  if (template.status === "PAUSED") throw GraphErrors.templatePaused(request.name)
  if (template.status === "DISABLED") throw GraphErrors.templateDisabled(request.name)
  if (template.status !== "APPROVED" && template.status !== "FLAGGED") {
    throw GraphErrors.templateNotFound(request.name, request.language)
  }
  const body = componentParameters(request.components, "body") ?? []
  if (body.length !== template.bodyParams) {
    throw GraphErrors.templateParamCount(
      `body: number of localizable_params (${body.length}) does not match the expected number of params (${template.bodyParams})`
    )
  }
  const header = componentParameters(request.components, "header")
  if (template.headerParams > 0 && (header?.length ?? 0) !== template.headerParams) {
    throw GraphErrors.templateParamCount(
      `header: number of localizable_params (${header?.length ?? 0}) does not match the expected number of params (${template.headerParams})`
    )
  }
  const buttons = buttonComponents(request.components)
  checkButtons(template.components, buttons)
  return {
    template,
    view: {
      name: template.name,
      language: template.language,
      parameters: body.map(parameterText),
      ...(header === undefined || header.length === 0 ? {} : { header_parameters: header.map(parameterText) }),
      ...(buttons.length === 0 ? {} : { button_parameters: buttons }),
      components: structuredClone(request.components)
    }
  }
}
