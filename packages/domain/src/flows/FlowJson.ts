/**
 * Flow JSON validation (GRAPH_API.md §5.3), our own, so a caller learns of a mistake when it
 * puts the JSON rather than when the operator refuses to publish. It checks the versions,
 * screen ids (`SUCCESS` is reserved), `routing_model` against the screens and the navigate
 * actions, terminal screens and their completing `Footer`, component types and their
 * required properties, action names and payloads, `${data.x}` against the screen's declared
 * `data`, `${form.x}` and `${screen.X.form.y}` against existing inputs, `data_api_version`
 * (required for endpoint flows), the `Form` wrapper below version 4.0, unique input names.
 *
 * Each error carries the operator's vocabulary (`error`, `error_type`), a message and a JSON
 * pointer `path`; `check` adds `line_start`, `line_end`, `column_start`, `column_end` in the
 * text that was sent when the JSON came as a string.
 */
import * as Positioned from "./internal/PositionedJson.js"

export const FLOW_JSON_VERSIONS = ["2.1", "3.0", "3.1", "4.0", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "7.0", "7.1", "7.2", "7.3"] as const
export const LATEST_VERSION = "7.3"
export const DATA_API_VERSIONS = ["3.0", "4.0"] as const
export const DEFAULT_DATA_API_VERSION = "3.0"

/** One mistake, in the operator's vocabulary. */
export interface FlowJsonError {
  readonly error: string
  readonly error_type: "JSON_SCHEMA_ERROR" | "FLOW_JSON_ERROR" | "JSON_SYNTAX_ERROR"
  readonly message: string
  /** JSON pointer of the faulty value (of its parent when a property is missing). */
  readonly path: string
  readonly line_start?: number
  readonly line_end?: number
  readonly column_start?: number
  readonly column_end?: number
}

/** What `validate` needs beyond the document. */
export interface Context {
  /** Whether the flow has a data endpoint (then `data_api_version` and `routing_model` are required). */
  readonly hasEndpoint?: boolean
}

/** Required properties of each component type. */
export const COMPONENTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  TextHeading: ["text"],
  TextSubheading: ["text"],
  TextBody: ["text"],
  TextCaption: ["text"],
  RichText: ["text"],
  TextInput: ["name", "label"],
  TextArea: ["name", "label"],
  CheckboxGroup: ["name", "data-source"],
  RadioButtonsGroup: ["name", "data-source"],
  Dropdown: ["name", "label", "data-source"],
  ChipsSelector: ["name", "label", "data-source"],
  DatePicker: ["name", "label"],
  CalendarPicker: ["name", "label"],
  OptIn: ["name", "label"],
  EmbeddedLink: ["text", "on-click-action"],
  Footer: ["label", "on-click-action"],
  Image: ["src"],
  ImageCarousel: ["images"],
  PhotoPicker: ["name", "label"],
  DocumentPicker: ["name", "label"],
  NavigationList: ["name", "list-items"],
  If: ["condition", "then"],
  Switch: ["value", "cases"],
  Form: ["name", "children"]
}

/** Components whose `name` is a form input. */
export const INPUTS = new Set([
  "TextInput",
  "TextArea",
  "CheckboxGroup",
  "RadioButtonsGroup",
  "Dropdown",
  "ChipsSelector",
  "DatePicker",
  "CalendarPicker",
  "OptIn",
  "PhotoPicker",
  "DocumentPicker",
  "NavigationList"
])

export const ACTIONS = new Set(["navigate", "data_exchange", "complete", "update_data", "open_url"])
const ACTION_KEYS = ["on-click-action", "on-select-action", "on-unselect-action"]
const ROOT_KEYS = new Set(["version", "data_api_version", "routing_model", "screens", "data_channel_uri"])

/** A valid screen id: letters and underscores (the operator refuses digits, dashes and spaces). */
export const SCREEN_ID = /^[A-Za-z_]+$/
export const RESERVED_SCREEN_ID = "SUCCESS"

type Json = Record<string, unknown>
export const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether version `a` is below `b` ("3.1" < "4.0"). */
export const versionBelow = (a: string, b: string): boolean => {
  const [am, an] = a.split(".").map(Number)
  const [bm, bn] = b.split(".").map(Number)
  return am < bm || (am === bm && (an ?? 0) < (bn ?? 0))
}

/** A component with its pointer, found anywhere in a screen's layout (inside Form, If, Switch). */
export interface Located {
  readonly component: Json
  readonly path: ReadonlyArray<string | number>
  /** Whether it sits inside a `Form`. */
  readonly inForm: boolean
}

/** Every component of a screen, depth first, with its path from the document root. */
export const componentsOf = (screen: Json, screenPath: ReadonlyArray<string | number>): Array<Located> => {
  const out: Array<Located> = []
  const walk = (children: unknown, path: ReadonlyArray<string | number>, inForm: boolean) => {
    if (!Array.isArray(children)) return
    children.forEach((child, i) => {
      if (!isObject(child)) return
      const here = [...path, i]
      out.push({ component: child, path: here, inForm })
      const nested = inForm || child.type === "Form"
      walk(child.children, [...here, "children"], nested)
      walk(child.then, [...here, "then"], nested)
      walk(child.else, [...here, "else"], nested)
      if (isObject(child.cases)) for (const [k, v] of Object.entries(child.cases)) walk(v, [...here, "cases", k], nested)
    })
  }
  const layout = screen.layout
  if (isObject(layout)) walk(layout.children, [...screenPath, "layout", "children"], false)
  return out
}

/** Every action object of a component, with its key. */
export const actionsOf = (component: Json): Array<{ readonly key: string; readonly action: unknown }> =>
  ACTION_KEYS.filter((k) => k in component).map((key) => ({ key, action: component[key] }))

/** Every string in `value`, with its path. */
const stringsOf = (value: unknown, path: ReadonlyArray<string | number>, out: Array<{ s: string; path: ReadonlyArray<string | number> }>) => {
  if (typeof value === "string") out.push({ s: value, path })
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) stringsOf(v, [...path, i], out)
  } else if (isObject(value)) for (const [k, v] of Object.entries(value)) stringsOf(v, [...path, k], out)
  return out
}

const REF = /\$\{(data|form|screen)\.([^}]*)\}/g

/** Validates a parsed Flow JSON document; an empty list means valid. */
export const validate = (doc: unknown, context: Context = {}): Array<FlowJsonError> => {
  const errors: Array<FlowJsonError> = []
  const push = (error: string, error_type: FlowJsonError["error_type"], message: string, path: ReadonlyArray<string | number>) =>
    errors.push({ error, error_type, message, path: Positioned.pointer(path) })
  const missing = (property: string, path: ReadonlyArray<string | number>) =>
    push("MISSING_REQUIRED_PROPERTY", "JSON_SCHEMA_ERROR", `The required property '${property}' is missing.`, path)

  if (!isObject(doc)) {
    push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "A Flow JSON document must be an object.", [])
    return errors
  }
  for (const key of Object.keys(doc)) {
    if (!ROOT_KEYS.has(key)) push("INVALID_PROPERTY", "JSON_SCHEMA_ERROR", `Property '${key}' is not allowed at the root.`, [key])
  }
  let version: string = LATEST_VERSION
  if (doc.version === undefined) missing("version", [])
  else if (typeof doc.version !== "string" || !(FLOW_JSON_VERSIONS as ReadonlyArray<string>).includes(doc.version)) {
    push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", `version must be one of ${FLOW_JSON_VERSIONS.join(", ")}.`, ["version"])
  } else version = doc.version
  if (doc.data_channel_uri !== undefined && !versionBelow(version, "3.0")) {
    push("INVALID_PROPERTY", "FLOW_JSON_ERROR", "data_channel_uri is not allowed from Flow JSON 3.0: set the endpoint through the API.", [
      "data_channel_uri"
    ])
  }
  const screens = doc.screens
  if (screens === undefined) {
    missing("screens", [])
    return errors
  }
  if (!Array.isArray(screens) || screens.length === 0) {
    push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "screens must be a non-empty array.", ["screens"])
    return errors
  }

  // Screens: ids, titles, layout
  const ids = new Map<string, number>()
  const screenObjects: Array<{ screen: Json; path: ReadonlyArray<string | number>; components: Array<Located> }> = []
  screens.forEach((screen, i) => {
    const path = ["screens", i]
    if (!isObject(screen)) {
      push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "A screen must be an object.", path)
      return
    }
    if (screen.id === undefined) missing("id", path)
    else if (typeof screen.id !== "string" || !SCREEN_ID.test(screen.id)) {
      push("INVALID_SCREEN_ID", "FLOW_JSON_ERROR", "A screen id may hold only letters and underscores.", [...path, "id"])
    } else if (screen.id === RESERVED_SCREEN_ID) {
      push("RESERVED_SCREEN_ID", "FLOW_JSON_ERROR", "The screen id SUCCESS is reserved for completion.", [...path, "id"])
    } else if (ids.has(screen.id)) {
      push("DUPLICATE_SCREEN_ID", "FLOW_JSON_ERROR", `Screen id '${screen.id}' is used twice.`, [...path, "id"])
    } else ids.set(screen.id, i)
    if (screen.terminal !== undefined && typeof screen.terminal !== "boolean") {
      push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "terminal must be a boolean.", [...path, "terminal"])
    }
    if (screen.data !== undefined && !isObject(screen.data))
      push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "data must be an object.", [...path, "data"])
    const layout = screen.layout
    if (layout === undefined) missing("layout", path)
    else if (!isObject(layout)) push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "layout must be an object.", [...path, "layout"])
    else {
      if (layout.type !== "SingleColumnLayout") {
        push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "layout.type must be SingleColumnLayout.", [...path, "layout", "type"])
      }
      if (!Array.isArray(layout.children)) missing("children", [...path, "layout"])
    }
    screenObjects.push({ screen, path, components: componentsOf(screen, path) })
  })
  if (!screenObjects.some(({ screen }) => screen.terminal === true)) {
    push("MISSING_TERMINAL_SCREEN", "FLOW_JSON_ERROR", "At least one screen must be terminal (terminal: true).", ["screens"])
  }

  // Components, actions, references
  let usesDataExchange = false
  const navigations: Array<{ from: string; to: string; path: ReadonlyArray<string | number> }> = []
  const inputsOf = new Map<string, Set<string>>()
  for (const { screen, components } of screenObjects) {
    const names = new Set<string>()
    for (const { component } of components) {
      if (INPUTS.has(component.type as string) && typeof component.name === "string") names.add(component.name)
    }
    if (typeof screen.id === "string") inputsOf.set(screen.id, names)
  }
  for (const { screen, path, components } of screenObjects) {
    const seen = new Set<string>()
    let completes = false
    for (const { component, path: cpath, inForm } of components) {
      const type = component.type
      if (typeof type !== "string" || !(type in COMPONENTS)) {
        push("INVALID_COMPONENT_TYPE", "JSON_SCHEMA_ERROR", `Unknown component type '${String(type)}'.`, [...cpath, "type"])
        continue
      }
      for (const property of COMPONENTS[type]) if (component[property] === undefined) missing(property, cpath)
      if (typeof component.name === "string" && type !== "Form") {
        if (seen.has(component.name)) {
          push("DUPLICATE_NAME", "FLOW_JSON_ERROR", `The name '${component.name}' is used twice in this screen.`, [...cpath, "name"])
        }
        seen.add(component.name)
      }
      if (INPUTS.has(type) && !inForm && versionBelow(version, "4.0")) {
        push("MISSING_FORM", "FLOW_JSON_ERROR", `Below Flow JSON 4.0, the input '${String(component.name)}' must be inside a Form.`, cpath)
      }
      for (const { key, action } of actionsOf(component)) {
        const apath = [...cpath, key]
        if (!isObject(action)) {
          push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", `${key} must be an object.`, apath)
          continue
        }
        if (typeof action.name !== "string" || !ACTIONS.has(action.name)) {
          push("INVALID_ACTION", "JSON_SCHEMA_ERROR", `Action name must be one of ${[...ACTIONS].join(", ")}.`, [...apath, "name"])
          continue
        }
        if (action.payload !== undefined && !isObject(action.payload)) {
          push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "payload must be an object.", [...apath, "payload"])
        }
        if (action.name === "complete") {
          completes ||= type === "Footer"
          if (screen.terminal !== true) {
            push("INVALID_ACTION", "FLOW_JSON_ERROR", "The complete action is allowed only on a terminal screen.", [...apath, "name"])
          }
        }
        if (action.name === "data_exchange") usesDataExchange = true
        if (action.name === "open_url" && typeof action.url !== "string") missing("url", apath)
        if (action.name === "navigate") {
          const next = action.next
          if (!isObject(next)) missing("next", apath)
          else if (next.type !== undefined && next.type !== "screen") {
            push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "next.type must be screen.", [...apath, "next", "type"])
          } else if (typeof next.name !== "string" || !ids.has(next.name)) {
            push("UNKNOWN_SCREEN", "FLOW_JSON_ERROR", `navigate names a screen that does not exist: '${String(next.name)}'.`, [
              ...apath,
              "next",
              "name"
            ])
          } else if (typeof screen.id === "string") navigations.push({ from: screen.id, to: next.name, path: [...apath, "next", "name"] })
        }
      }
    }
    if (screen.terminal === true && !completes) {
      push("MISSING_FOOTER", "FLOW_JSON_ERROR", "A terminal screen needs a Footer whose on-click-action is complete.", path)
    }
    // references
    const declared = isObject(screen.data) ? screen.data : {}
    const own = typeof screen.id === "string" ? (inputsOf.get(screen.id) ?? new Set()) : new Set<string>()
    for (const { s, path: spath } of stringsOf(screen.layout, [...path, "layout"], [])) {
      for (const match of s.matchAll(REF)) {
        const [whole, scope, rest] = match
        const head = rest.split(".")[0]
        if (scope === "data" && !(head in declared)) {
          push("UNDECLARED_DATA", "FLOW_JSON_ERROR", `${whole} is not declared in the screen's data.`, spath)
        } else if (scope === "form" && !own.has(head)) {
          push("UNKNOWN_FORM_FIELD", "FLOW_JSON_ERROR", `${whole} names no input of this screen.`, spath)
        } else if (scope === "screen") {
          const parts = rest.split(".")
          const inputs = inputsOf.get(parts[0])
          if (parts[1] !== "form" || inputs === undefined || !inputs.has(parts[2])) {
            push("UNKNOWN_FORM_FIELD", "FLOW_JSON_ERROR", `${whole} names no input of an existing screen.`, spath)
          }
        }
      }
    }
  }

  // Endpoint: data_api_version and routing_model
  const endpoint = usesDataExchange || context.hasEndpoint === true
  if (doc.data_api_version !== undefined) {
    if (typeof doc.data_api_version !== "string" || !(DATA_API_VERSIONS as ReadonlyArray<string>).includes(doc.data_api_version)) {
      push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", `data_api_version must be one of ${DATA_API_VERSIONS.join(", ")}.`, ["data_api_version"])
    }
  } else if (endpoint) {
    push(
      "MISSING_REQUIRED_PROPERTY",
      "FLOW_JSON_ERROR",
      "data_api_version is required for a flow with a data endpoint or a data_exchange action.",
      []
    )
  }
  const routing = doc.routing_model
  if (routing === undefined) {
    if (endpoint) push("MISSING_REQUIRED_PROPERTY", "FLOW_JSON_ERROR", "routing_model is required for a flow with a data endpoint.", [])
  } else if (!isObject(routing)) {
    push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "routing_model must be an object.", ["routing_model"])
  } else {
    for (const [from, targets] of Object.entries(routing)) {
      if (!ids.has(from))
        push("UNKNOWN_SCREEN", "FLOW_JSON_ERROR", `routing_model names a screen that does not exist: '${from}'.`, ["routing_model", from])
      if (!Array.isArray(targets)) {
        push("INVALID_PROPERTY_VALUE", "JSON_SCHEMA_ERROR", "Each routing_model entry must be an array of screen ids.", ["routing_model", from])
        continue
      }
      targets.forEach((to, i) => {
        if (typeof to !== "string" || !ids.has(to)) {
          push("UNKNOWN_SCREEN", "FLOW_JSON_ERROR", `routing_model names a screen that does not exist: '${String(to)}'.`, ["routing_model", from, i])
        }
      })
    }
    for (const { from, to, path } of navigations) {
      const allowed = routing[from]
      if (Array.isArray(allowed) && !allowed.includes(to)) {
        push("INVALID_ROUTE", "FLOW_JSON_ERROR", `navigate from ${from} to ${to} is not in routing_model.`, path)
      } else if (allowed === undefined) {
        push("INVALID_ROUTE", "FLOW_JSON_ERROR", `routing_model has no entry for ${from}, which navigates to ${to}.`, path)
      }
    }
  }
  return errors
}

/** The outcome of reading a Flow JSON sent as an object or as text. */
export interface Checked {
  readonly doc: unknown
  readonly errors: ReadonlyArray<FlowJsonError>
  /** Spans of the text that was sent (empty when the JSON came as an object). */
  readonly spans: ReadonlyMap<string, Positioned.Span>
}

/** Parses `text` (a syntax error is one error with its position); answers the document and its spans. */
export const parseText = (text: string): { doc: unknown; spans: ReadonlyMap<string, Positioned.Span> } | FlowJsonError => {
  try {
    const parsed = Positioned.parse(text)
    return { doc: parsed.value, spans: parsed.spans }
  } catch (e) {
    if (!(e instanceof Positioned.JsonSyntaxError)) throw e
    return {
      error: "INVALID_JSON",
      error_type: "JSON_SYNTAX_ERROR",
      message: e.message,
      path: "",
      line_start: e.line,
      line_end: e.line,
      column_start: e.column,
      column_end: e.column
    }
  }
}

/** `errors` with the positions of their paths in the text that was sent. */
export const positioned = (errors: ReadonlyArray<FlowJsonError>, spans: ReadonlyMap<string, Positioned.Span>): Array<FlowJsonError> =>
  errors.map((e) => {
    if (e.line_start !== undefined) return e
    const span = Positioned.spanOf(spans, e.path)
    return span === undefined
      ? e
      : { ...e, line_start: span.lineStart, line_end: span.lineEnd, column_start: span.columnStart, column_end: span.columnEnd }
  })

/** Reads and validates a Flow JSON sent as an object or as text. */
export const check = (input: unknown, context: Context = {}): Checked => {
  if (typeof input === "string") {
    const parsed = parseText(input)
    if ("error" in parsed) return { doc: undefined, errors: [parsed], spans: new Map() }
    return { doc: parsed.doc, spans: parsed.spans, errors: positioned(validate(parsed.doc, context), parsed.spans) }
  }
  return { doc: input, errors: validate(input, context), spans: new Map() }
}
