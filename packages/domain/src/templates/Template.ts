/**
 * Message templates: messages the operator approves in advance, the only format deliverable
 * outside the 24-hour window.
 *
 * Status lifecycle (operator-driven):
 *   PENDING -> APPROVED | REJECTED
 *   APPROVED -> PAUSED | DISABLED | FLAGGED (quality), PAUSED -> APPROVED, FLAGGED -> APPROVED
 *   REJECTED -> PENDING (after an edit)
 * Switchboard never decides a status itself: it records what the operator says (create
 * response, status webhook, sync).
 */
import { Either, JSONSchema, ParseResult, Schema } from "effect"
import * as Wire from "../shared/Wire.js"
import { ValidationFailed, type FieldIssue } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Rich from "./RichComponents.js"

export const TemplateId = Id.kind("tpl", "TemplateId")
export type TemplateId = Id.Of<typeof TemplateId>

export const Category = Schema.Literal("UTILITY", "MARKETING", "AUTHENTICATION")
export type Category = typeof Category.Type

export const Status = Schema.Literal(
  "PENDING",
  "APPROVED",
  "REJECTED",
  "PAUSED",
  "DISABLED",
  "FLAGGED",
  "IN_APPEAL",
  "PENDING_DELETION",
  "DELETED",
  "LIMIT_EXCEEDED",
  "ARCHIVED"
)
export type Status = typeof Status.Type

/**
 * The status a template has once the operator reports `raw`, the same on every path (the
 * status webhook's `event` and the `status` of the operator's list, read by sync): the
 * statuses we model stay as they are; REINSTATED (quality recovered), UNARCHIVED (back from
 * the archive, to the status it had: only approved templates are archived) and LOCKED (no
 * longer editable, still sendable) are APPROVED. Any other report is undefined: the caller
 * decides (a webhook changes nothing, a sync records PENDING).
 */
export const statusFromOperator = (raw: string): Status | undefined => {
  const upper = raw.toUpperCase()
  if ((Status.literals as ReadonlyArray<string>).includes(upper)) return upper as Status
  return upper === "REINSTATED" || upper === "UNARCHIVED" || upper === "LOCKED" ? "APPROVED" : undefined
}

/** The operator's quality rating of a template (GRAPH_API.md §2.8, `message_template_quality_update`). */
export const QualityScore = Schema.Literal("GREEN", "YELLOW", "RED", "UNKNOWN")
export type QualityScore = typeof QualityScore.Type

/** The operator's limits (GRAPH_API.md §4.2). */
export const Limits = {
  name: 512,
  body: 1024,
  header: 60,
  footer: 60,
  buttons: 10,
  buttonText: 25
} as const

const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const Button = Schema.Struct({
  type: Schema.Literal("QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE", "OTP", "FLOW", "CALL_PERMISSION_REQUEST", "VOICE_CALL", "CATALOG", "MPM"),
  /** Optional on a COPY_CODE button (the operator labels it). */
  text: Schema.optionalWith(Schema.String, { default: () => "" }),
  url: Schema.optional(Schema.String),
  phone_number: Schema.optional(Schema.String),
  /** A URL button's example URL, or a COPY_CODE button's example code (a string, as the operator takes it). */
  example: Schema.optional(Schema.Union(Schema.Array(Schema.String), Schema.String)),
  /** OTP buttons of AUTHENTICATION templates (GRAPH_API.md §4.2). */
  otp_type: Schema.optional(Schema.Literal("COPY_CODE", "ONE_TAP", "ZERO_TAP")),
  autofill_text: Schema.optional(Schema.String),
  package_name: Schema.optional(Schema.String),
  signature_hash: Schema.optional(Schema.String),
  /** FLOW buttons (GRAPH_API.md §4.2): the operator's flow id (a flow's `operator_flow_id`), how it opens, its first screen. */
  flow_id: Schema.optional(Schema.String),
  flow_action: Schema.optional(Schema.Literal("navigate", "data_exchange")),
  navigate_screen: Schema.optional(Schema.String)
}).annotations(strict)

/** A named parameter's example (`parameter_format: NAMED`). */
export const NamedExample = Schema.Struct({ param_name: Schema.String, example: Schema.String }).annotations(strict)

export const HeaderFormat = Schema.Literal("TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION")
export type HeaderFormat = typeof HeaderFormat.Type

const componentFields = {
  type: Schema.Literal("HEADER", "BODY", "FOOTER", "BUTTONS", "CAROUSEL", "LIMITED_TIME_OFFER"),
  format: Schema.optional(HeaderFormat),
  text: Schema.optional(Schema.String),
  example: Schema.optional(
    Schema.Struct({
      body_text: Schema.optional(Schema.Array(Schema.Array(Schema.String))),
      header_text: Schema.optional(Schema.Array(Schema.String)),
      body_text_named_params: Schema.optional(Schema.Array(NamedExample)),
      header_text_named_params: Schema.optional(Schema.Array(NamedExample)),
      /** Our media (`med_…`) for a media header's example: uploaded to the operator for its handle at creation. */
      header_media: Schema.optional(Schema.String),
      /** The operator's handle (synced templates, or one the caller uploaded itself). */
      header_handle: Schema.optional(Schema.Array(Schema.String))
    }).annotations(strict)
  ),
  buttons: Schema.optional(Schema.Array(Button)),
  /** A LIMITED_TIME_OFFER component: the offer's headline (≤16 characters) and whether it expires. */
  limited_time_offer: Schema.optional(Schema.Struct({ text: Schema.String, has_expiration: Schema.optional(Schema.Boolean) }).annotations(strict))
}

/** A carousel card's components (HEADER, BODY, BUTTONS). */
export const CardComponent = Schema.Struct(componentFields).annotations(strict)
export type CardComponent = typeof CardComponent.Type

export const Component = Schema.Struct({
  ...componentFields,
  /** A CAROUSEL component's cards. */
  cards: Schema.optional(Schema.Array(Schema.Struct({ components: Schema.Array(CardComponent) }).annotations(strict)))
}).annotations(strict)
export type Component = typeof Component.Type

/** What a caller submits in `templateData`. */
export const TemplateData = Schema.Struct({
  name: Schema.String,
  category: Category,
  language: Schema.String,
  /** NAMED: placeholders are names (`{{first_name}}`), filled by name at send. POSITIONAL (the default): `{{1}}`, `{{2}}`... */
  parameter_format: Schema.optional(Schema.Literal("POSITIONAL", "NAMED")),
  components: Schema.Array(Component)
}).annotations({ ...strict, identifier: "TemplateData" })
export type TemplateData = typeof TemplateData.Type

/**
 * A template as Switchboard knows it: one row per (store, name, language). Templates belong
 * to the store's operator account, not to a mode: both keys see the same rows.
 */
export const Template = Schema.Struct({
  id: TemplateId.schema,
  storeId: StoreId.schema,
  name: Schema.String,
  language: Schema.String,
  category: Category,
  status: Status,
  components: Schema.Array(Component),
  rejectedReason: Schema.NullOr(Schema.String),
  /** The operator's quality rating, once it reported one (quality webhook or sync). */
  qualityScore: Schema.NullOr(QualityScore),
  /** The operator's id of the template, when it answered one. */
  operatorId: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}).annotations({ identifier: "TemplateEntity" })
export interface Template extends Schema.Schema.Type<typeof Template> {}

const NAME = /^[a-z0-9_]+$/
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/
const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g

/** Positional placeholder numbers in `text`, in order of appearance; a non-numeric one yields NaN. */
export const placeholders = (text: string): Array<number> =>
  Array.from(text.matchAll(PLACEHOLDER), (m) => (/^\d+$/.test(m[1]) ? Number(m[1]) : Number.NaN))

/** Number of distinct parameters the BODY expects. */
export const bodyParameterCount = (components: ReadonlyArray<Component>): number => {
  const body = components.find((c) => c.type === "BODY")
  return body?.text ? new Set(placeholders(body.text)).size : 0
}

/**
 * Checks the positional placeholders of a text: from {{1}} without gaps, never adjacent, and
 * (in a BODY, `edges` true) neither first nor last; a HEADER may end with its variable
 * (Appendix B.1: "Order {{1}}").
 */
const checkPlaceholders = (path: string, text: string, issues: Array<FieldIssue>, edges = true): number => {
  const found = placeholders(text)
  if (found.length === 0) return 0
  if (found.some(Number.isNaN)) {
    issues.push({ path, message: "placeholders must be positional numbers written {{1}}, {{2}}, ..." })
    return 0
  }
  const distinct = [...new Set(found)].sort((a, b) => a - b)
  if (distinct[0] !== 1 || distinct.some((n, i) => n !== i + 1)) {
    issues.push({ path, message: `placeholders must start at {{1}} and have no gaps (found ${distinct.map((n) => `{{${n}}}`).join(", ")})` })
  }
  const trimmed = text.trim()
  if (edges && (/^\{\{\s*\d+\s*\}\}/.test(trimmed) || /\{\{\s*\d+\s*\}\}$/.test(trimmed))) {
    issues.push({ path, message: "text may not start or end with a placeholder" })
  }
  if (/\}\}\s*\{\{/.test(text)) {
    issues.push({ path, message: "placeholders may not be adjacent" })
  }
  return distinct.length
}

/** A BODY's text (a card's too), positional or named, with its examples. */
const checkBody = (path: string, c: Component | CardComponent, named: boolean, issues: Array<FieldIssue>): void => {
  if (!c.text || c.text.trim().length === 0) {
    issues.push({ path: `${path}.text`, message: "is required" })
    return
  }
  if (c.text.length > Limits.body) issues.push({ path: `${path}.text`, message: `must be at most ${Limits.body} characters` })
  if (named) {
    Rich.checkNamed(`${path}.text`, c.text, c.example?.body_text_named_params, `${path}.example.body_text_named_params`, issues, true)
    return
  }
  const count = checkPlaceholders(`${path}.text`, c.text, issues)
  const examples = c.example?.body_text?.[0]
  if (count > 0 && (!examples || examples.length !== count)) {
    issues.push({ path: `${path}.example.body_text`, message: `must give ${count} example value(s), one per placeholder` })
  } else if (examples?.some((e) => e.trim().length === 0)) {
    issues.push({ path: `${path}.example.body_text`, message: "example values may not be empty" })
  }
}

/** A HEADER: TEXT (at most one placeholder, with its example), or a media or location header. */
const checkHeader = (path: string, c: Component, named: boolean, issues: Array<FieldIssue>): void => {
  if (c.format !== undefined && c.format !== "TEXT") {
    Rich.checkMediaHeader(path, c, issues)
    return
  }
  if (!c.text) {
    issues.push({ path: `${path}.text`, message: "is required for a TEXT header" })
    return
  }
  if (c.text.length > Limits.header) issues.push({ path: `${path}.text`, message: `must be at most ${Limits.header} characters` })
  const count = new Set(placeholders(c.text)).size
  if (count > 1) issues.push({ path: `${path}.text`, message: "may hold at most one placeholder" })
  else if (count === 1 && named) {
    Rich.checkNamed(`${path}.text`, c.text, c.example?.header_text_named_params, `${path}.example.header_text_named_params`, issues, false)
  } else if (count === 1) {
    checkPlaceholders(`${path}.text`, c.text, issues, false)
    if (c.example?.header_text?.length !== 1) {
      issues.push({ path: `${path}.example.header_text`, message: "must give 1 example value" })
    }
  }
}

/**
 * Every rule a template must meet before it goes to the operator: name, language, one BODY,
 * the operator's length limits, positional placeholders from 1 without gaps (or names, with
 * `parameter_format: NAMED`), with examples; media headers, carousels and offers as
 * `RichComponents` says.
 */
export const validate = (data: TemplateData): Either.Either<TemplateData, ValidationFailed> => {
  const issues: Array<FieldIssue> = []
  const named = data.parameter_format === "NAMED"
  if (data.name.length === 0 || !NAME.test(data.name)) {
    issues.push({ path: "templateData.name", message: "must contain only lower-case letters, digits and underscores" })
  } else if (data.name.length > Limits.name) {
    issues.push({ path: "templateData.name", message: `must be at most ${Limits.name} characters` })
  }
  if (!LANGUAGE.test(data.language)) {
    issues.push({ path: "templateData.language", message: "must be a language code such as en or en_US" })
  }
  const bodies = data.components.filter((c) => c.type === "BODY")
  if (bodies.length !== 1) {
    issues.push({ path: "templateData.components", message: "must contain exactly one BODY component" })
  }
  const seen = new Set<string>()
  data.components.forEach((c, i) => {
    const path = `templateData.components[${i}]`
    if (seen.has(c.type)) {
      if (c.type !== "BODY") issues.push({ path: `${path}.type`, message: `only one ${c.type} component is allowed` })
    }
    seen.add(c.type)
    if (c.cards !== undefined && c.type !== "CAROUSEL") issues.push({ path: `${path}.cards`, message: "only a CAROUSEL component has cards" })
    switch (c.type) {
      case "BODY":
        checkBody(path, c, named, issues)
        break
      case "HEADER":
        checkHeader(path, c, named, issues)
        break
      case "CAROUSEL":
        Rich.checkCarousel(path, c, data, issues, (at, card) => checkBody(at, card, false, issues))
        break
      case "LIMITED_TIME_OFFER":
        Rich.checkOffer(path, c, data, issues)
        break
      case "FOOTER": {
        if (!c.text) issues.push({ path: `${path}.text`, message: "is required" })
        else {
          if (c.text.length > Limits.footer) issues.push({ path: `${path}.text`, message: `must be at most ${Limits.footer} characters` })
          if (placeholders(c.text).length > 0) issues.push({ path: `${path}.text`, message: "may not hold placeholders" })
        }
        break
      }
      case "BUTTONS": {
        const buttons = c.buttons ?? []
        if (buttons.length === 0 || buttons.length > Limits.buttons) {
          issues.push({ path: `${path}.buttons`, message: `must hold 1 to ${Limits.buttons} buttons` })
        }
        buttons.forEach((b, j) => {
          if ((b.type !== "COPY_CODE" || b.text.length > 0) && (b.text.length === 0 || b.text.length > Limits.buttonText)) {
            issues.push({ path: `${path}.buttons[${j}].text`, message: `must be 1 to ${Limits.buttonText} characters` })
          }
          if (b.type === "URL" && !b.url) issues.push({ path: `${path}.buttons[${j}].url`, message: "is required for a URL button" })
          if (b.type === "FLOW" && !b.flow_id) issues.push({ path: `${path}.buttons[${j}].flow_id`, message: "is required for a FLOW button" })
          if (b.type === "PHONE_NUMBER" && !b.phone_number) {
            issues.push({ path: `${path}.buttons[${j}].phone_number`, message: "is required for a PHONE_NUMBER button" })
          }
        })
        if (buttons.filter((b) => b.type === "CATALOG" || b.type === "MPM").length > 1) {
          issues.push({ path: `${path}.buttons`, message: "a template has at most one CATALOG or MPM button" })
        }
        break
      }
    }
  })
  return issues.length === 0 ? Either.right(data) : Either.left(ValidationFailed.all(issues))
}

/** Turns a Schema parse error into field issues with dotted paths under `root`. */
export const issuesOf = (error: ParseResult.ParseError, root = ""): Array<FieldIssue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: [root, ...issue.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p)))]
      .filter((s) => s !== "")
      .join(".")
      .replace(/\.\[/g, "["),
    message: issue.message
  }))

/** Renders the BODY with positional parameters, e.g. for logs and previews. */
export const renderBody = (components: ReadonlyArray<Component>, parameters: ReadonlyArray<string>): string => {
  const body = components.find((c) => c.type === "BODY")?.text ?? ""
  return body.replace(PLACEHOLDER, (whole, n: string) => parameters[Number(n) - 1] ?? whole)
}

const renamed = Wire.key

/**
 * Components as stored, shown as they are (no check on the way out): templates synced from
 * the operator may use component shapes we never submit (media headers...), and listing them
 * must not fail. Documented as the components we accept.
 */
const ShownComponents = Schema.declare((u: unknown): u is ReadonlyArray<Component> => Array.isArray(u), {
  identifier: "TemplateComponents",
  jsonSchema: (({ $schema: _, ...rest }) => rest)(JSONSchema.make(Schema.Array(Component)))
})

/** The template as the API shows it: the entity without its store and operator ids, times as ISO text. */
export const TemplateResource = Schema.Struct({
  id: Template.fields.id,
  name: Template.fields.name,
  language: Template.fields.language,
  category: Template.fields.category,
  status: Template.fields.status,
  components: ShownComponents,
  rejectedReason: renamed(Template.fields.rejectedReason, "rejected_reason"),
  qualityScore: renamed(Template.fields.qualityScore, "quality_score"),
  createdAt: renamed(Time.IsoDateTime, "created_at"),
  updatedAt: renamed(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Template" })

// ---------------------------------------------------------------------------------------
// requests and answers of the template routes

/** `POST /chat/templates`. */
export const CreateTemplate = Schema.Struct({
  templateData: TemplateData
}).annotations({ ...strict, identifier: "CreateTemplate" })

/** `POST /chat/templates/sync`: how many the operator reported, how many rows changed, and the first page. */
export const SyncResult = Schema.Struct({
  synced: Schema.Int,
  changed: Schema.Int,
  data: Schema.Array(TemplateResource),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TemplateSync" })

/** `DELETE /chat/templates/:name`: every language of the name went. */
export const Deleted = Schema.Struct({
  name: Schema.String,
  deleted: Schema.Literal(true),
  languages: Schema.Array(Schema.String)
}).annotations({ identifier: "TemplateDeleted" })
