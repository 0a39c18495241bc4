/**
 * The operator's validation of a Flow JSON (GRAPH_API.md §5.3), as far as the emulator plays
 * it: the document parses, is an object with a supported `version`, has a non-empty `screens`
 * array whose screens have a valid, unique, unreserved `id` and a `SingleColumnLayout` with
 * `children`, at least one `terminal` screen, a `routing_model` (when given) and `navigate`
 * actions that name existing screens, and no `data_channel_uri` from version 3.0. Each error is
 * answered in the operator's shape (`error`, `error_type`, `message`, positions, `pointers`):
 * saving JSON with errors succeeds with them in `validation_errors`; publishing it is refused
 * with 139002.
 */

/** The Flow JSON versions the operator accepts. */
export const FLOW_JSON_VERSIONS: ReadonlyArray<string> = [
  "2.1",
  "3.0",
  "3.1",
  "4.0",
  "5.0",
  "5.1",
  "6.0",
  "6.1",
  "6.2",
  "6.3",
  "7.0",
  "7.1",
  "7.2",
  "7.3"
]

const SCREEN_ID = /^[A-Za-z_]+$/
const RESERVED_SCREEN_ID = "SUCCESS"

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

export type ValidationError = Record<string, unknown>

const errorOf = (error: string, errorType: string, message: string, path: string): ValidationError => {
  const position = { line_start: 1, line_end: 1, column_start: 1, column_end: 1 }
  return { error, error_type: errorType, message, ...position, ...(path === "" ? {} : { pointers: [{ ...position, path }] }) }
}

/** Every `navigate` target (`next.name`) in a screen's components, with its path. */
const navigationsOf = (value: unknown, path: string, out: Array<{ to: string; path: string }>): Array<{ to: string; path: string }> => {
  if (Array.isArray(value)) value.forEach((v, i) => void navigationsOf(v, `${path}/${i}`, out))
  else if (isObject(value)) {
    const next = isObject(value.next) ? value.next : undefined
    if (value.name === "navigate" && typeof next?.name === "string" && (next.type === undefined || next.type === "screen")) {
      out.push({ to: next.name, path: `${path}/next/name` })
    }
    for (const [k, v] of Object.entries(value)) navigationsOf(v, `${path}/${k}`, out)
  }
  return out
}

const validateDocument = (doc: Json): Array<ValidationError> => {
  const errors: Array<ValidationError> = []
  const missing = (property: string, path: string) =>
    errors.push(errorOf("MISSING_REQUIRED_PROPERTY", "JSON_SCHEMA_ERROR", `The required property '${property}' is missing.`, path))
  const invalid = (message: string, path: string) => errors.push(errorOf("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", message, path))
  const flowError = (error: string, message: string, path: string) => errors.push(errorOf(error, "FLOW_JSON_ERROR", message, path))

  if (typeof doc.version !== "string") {
    missing("version", "")
    return errors
  }
  if (!FLOW_JSON_VERSIONS.includes(doc.version)) invalid(`version must be one of ${FLOW_JSON_VERSIONS.join(", ")}.`, "/version")
  else if (doc.data_channel_uri !== undefined && doc.version !== "2.1") {
    flowError("INVALID_PROPERTY", "data_channel_uri is not allowed from Flow JSON 3.0: set the endpoint through the API.", "/data_channel_uri")
  }
  const screens = doc.screens
  if (screens === undefined) {
    missing("screens", "")
    return errors
  }
  if (!Array.isArray(screens) || screens.length === 0) {
    invalid("screens must be a non-empty array.", "/screens")
    return errors
  }
  const ids = new Set<string>()
  screens.forEach((screen: unknown, i: number) => {
    const path = `/screens/${i}`
    if (!isObject(screen)) {
      invalid("A screen must be an object.", path)
      return
    }
    if (screen.id === undefined) missing("id", path)
    else if (typeof screen.id !== "string" || !SCREEN_ID.test(screen.id))
      flowError("INVALID_SCREEN_ID", "A screen id may hold only letters and underscores.", `${path}/id`)
    else if (screen.id === RESERVED_SCREEN_ID) flowError("RESERVED_SCREEN_ID", "The screen id SUCCESS is reserved.", `${path}/id`)
    else if (ids.has(screen.id)) flowError("DUPLICATE_SCREEN_ID", `Screen id '${screen.id}' is used more than once.`, `${path}/id`)
    else ids.add(screen.id)
    const layout = screen.layout
    if (layout === undefined) missing("layout", path)
    else if (!isObject(layout) || layout.type !== "SingleColumnLayout") invalid("layout.type must be SingleColumnLayout.", `${path}/layout`)
    else if (!Array.isArray(layout.children)) missing("children", `${path}/layout`)
  })
  if (!screens.some((s: unknown) => isObject(s) && s.terminal === true)) {
    flowError("MISSING_TERMINAL_SCREEN", "At least one screen must be terminal.", "/screens")
  }
  const routing = doc.routing_model
  if (routing !== undefined) {
    if (!isObject(routing)) invalid("routing_model must be an object.", "/routing_model")
    else {
      for (const [from, targets] of Object.entries(routing)) {
        if (!ids.has(from)) flowError("INVALID_ROUTING_MODEL", `routing_model names the unknown screen '${from}'.`, `/routing_model/${from}`)
        if (!Array.isArray(targets)) invalid(`routing_model['${from}'] must be an array of screen ids.`, `/routing_model/${from}`)
        else
          for (const to of targets) {
            if (typeof to !== "string" || !ids.has(to)) {
              flowError("INVALID_ROUTING_MODEL", `routing_model['${from}'] names the unknown screen '${String(to)}'.`, `/routing_model/${from}`)
            }
          }
      }
    }
  }
  screens.forEach((screen: unknown, i: number) => {
    for (const nav of navigationsOf(isObject(screen) ? screen.layout : undefined, `/screens/${i}/layout`, [])) {
      if (!ids.has(nav.to)) flowError("INVALID_NAVIGATION", `navigate names the unknown screen '${nav.to}'.`, nav.path)
    }
  })
  return errors
}

/** The operator's validation errors of a Flow JSON text; none for a valid one (or none given). */
export const validationErrorsOf = (json: string | undefined): Array<ValidationError> => {
  if (json === undefined) return []
  let doc: unknown
  try {
    doc = JSON.parse(json)
  } catch (e) {
    return [errorOf("INVALID_JSON", "JSON_SYNTAX_ERROR", String((e as Error).message), "")]
  }
  if (!isObject(doc)) return [errorOf("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "The Flow JSON must be an object.", "")]
  return validateDocument(doc)
}
