/**
 * Sending a template (GRAPH_API.md §4.6, Appendix B.2): the parameters of one send, named by
 * the component they fill: the TEXT header's placeholder, the body's placeholders, and each
 * button that takes a value (by its index in the BUTTONS component and its sub-type).
 *
 * What a template asks of a send follows from its components:
 *   - HEADER with a placeholder: one header parameter;
 *   - BODY: one parameter per distinct placeholder, in order;
 *   - URL button whose `url` holds a placeholder: a `url` parameter (the URL's variable part);
 *   - OTP button (AUTHENTICATION templates): a `url` parameter, the one-time code;
 *   - COPY_CODE button: a `copy_code` parameter, the code to copy;
 *   - QUICK_REPLY button: optionally a `quick_reply` parameter, the payload echoed on a tap;
 *   - PHONE_NUMBER buttons and static URL buttons take nothing.
 * A send that misses one the template needs, or names one it does not have, is refused here
 * before the operator refuses it.
 */
import { Schema } from "effect"
import type { FieldIssue } from "../shared/Errors.js"
import { type Component, placeholders } from "./Template.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const ButtonSubType = Schema.Literal("url", "quick_reply", "copy_code")
export type ButtonSubType = typeof ButtonSubType.Type

/** The value of one button in a send: which button (`index`, from 0), of which sub-type. */
export const ButtonParameter = Schema.Struct({
  index: Schema.Int.pipe(Schema.between(0, 9)),
  sub_type: ButtonSubType,
  /** The URL's variable part (`url`), the one-time or coupon code (`url` of an OTP button, `copy_code`), or the payload (`quick_reply`). */
  parameter: Schema.String
}).annotations({ ...strict, identifier: "TemplateButtonParameter" })
export interface ButtonParameter extends Schema.Schema.Type<typeof ButtonParameter> {}

/**
 * The template part of a send request (`POST /chat/messages` with `type: "template"`):
 * `parameters` fills the body, `header_parameters` the TEXT header, `buttons` the buttons.
 */
export const TemplateSend = Schema.Struct({
  name: Schema.String,
  language: Schema.String,
  parameters: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  header_parameters: Schema.optional(Schema.Array(Schema.String)),
  buttons: Schema.optional(Schema.Array(ButtonParameter))
}).annotations({ ...strict, identifier: "TemplateSend" })
export type TemplateSend = typeof TemplateSend.Type

/** What one button asks of a send. */
export interface ButtonNeed {
  readonly index: number
  /** The button's type in the template (URL, OTP, ...). */
  readonly type: string
  readonly subType: ButtonSubType
  readonly required: boolean
}

/** What a template's components ask of a send. */
export interface Needs {
  readonly header: number
  readonly body: number
  /** Only the buttons that take a parameter. */
  readonly buttons: ReadonlyArray<ButtonNeed>
}

const distinct = (text: string | undefined): number => (text === undefined ? 0 : new Set(placeholders(text)).size)

/** What a send of a template with these components must (and may) carry. */
export const needsOf = (components: ReadonlyArray<Component>): Needs => {
  const header = components.find((c) => c.type === "HEADER")
  const body = components.find((c) => c.type === "BODY")
  const buttons: Array<ButtonNeed> = []
  ;(components.find((c) => c.type === "BUTTONS")?.buttons ?? []).forEach((button, index) => {
    switch (button.type) {
      case "URL":
        if (button.url !== undefined && distinct(button.url) > 0) buttons.push({ index, type: button.type, subType: "url", required: true })
        break
      case "OTP":
        buttons.push({ index, type: button.type, subType: "url", required: true })
        break
      case "COPY_CODE":
        buttons.push({ index, type: button.type, subType: "copy_code", required: true })
        break
      case "QUICK_REPLY":
        buttons.push({ index, type: button.type, subType: "quick_reply", required: false })
        break
    }
  })
  return { header: distinct(header?.text), body: distinct(body?.text), buttons }
}

/**
 * The problems of a send against the template's components, with paths under `root`
 * (`template` for a message). An empty list means the operator gets every parameter it needs.
 */
export const check = (components: ReadonlyArray<Component>, send: Omit<TemplateSend, "name" | "language">, root = "template"): Array<FieldIssue> => {
  const needs = needsOf(components)
  const issues: Array<FieldIssue> = []
  if (send.parameters.length !== needs.body) {
    issues.push({ path: `${root}.parameters`, message: `the template takes ${needs.body} parameter(s), got ${send.parameters.length}` })
  }
  const header = send.header_parameters ?? []
  if (header.length !== needs.header) {
    issues.push({
      path: `${root}.header_parameters`,
      message:
        needs.header === 0
          ? "the template's header takes no parameter"
          : `the template's header takes ${needs.header} parameter(s), got ${header.length}`
    })
  }
  const given = send.buttons ?? []
  given.forEach((button, i) => {
    const need = needs.buttons.find((n) => n.index === button.index)
    if (need === undefined) {
      issues.push({ path: `${root}.buttons[${i}].index`, message: `the template has no button at index ${button.index} that takes a parameter` })
    } else if (need.subType !== button.sub_type) {
      issues.push({ path: `${root}.buttons[${i}].sub_type`, message: `button ${button.index} (${need.type}) takes a ${need.subType} parameter` })
    } else if (given.findIndex((b) => b.index === button.index) !== i) {
      issues.push({ path: `${root}.buttons[${i}].index`, message: `button ${button.index} is given more than once` })
    } else if (button.parameter.length === 0) {
      issues.push({ path: `${root}.buttons[${i}].parameter`, message: "may not be empty" })
    }
  })
  for (const need of needs.buttons) {
    if (need.required && !given.some((b) => b.index === need.index)) {
      issues.push({
        path: `${root}.buttons`,
        message: `button ${need.index} (${need.type}) needs its parameter: {"index": ${need.index}, "sub_type": "${need.subType}", "parameter": "…"}`
      })
    }
  }
  return issues
}
