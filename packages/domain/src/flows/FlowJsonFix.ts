/**
 * autoFix: corrects the common structural mistakes of a Flow JSON document and reports each
 * correction as `{path, fix, before, after}`. The list comes from the operator's validation
 * errors and its users' questions (see the README's Flows section):
 *
 * - `add_version`: no `version` (the operator: "The required property 'version' is missing");
 * - `rename_screen`: a screen id with lower case letters, digits, dashes or spaces (the
 *   operator accepts letters and underscores only; builders that number their screens
 *   `SCREEN_1` are refused), renamed in upper snake case with every reference renamed
 *   (navigate targets, `routing_model`, `${screen.X.form.y}`);
 * - `set_terminal`: no terminal screen: the last screen becomes terminal;
 * - `add_footer`: a terminal screen without a `Footer` that completes: one is added that
 *   completes with every input of the screen;
 * - `add_data_api_version`: an endpoint flow without `data_api_version`;
 * - `add_routing_model`: an endpoint flow without `routing_model`, derived from the
 *   navigate actions;
 * - `wrap_in_form`: inputs outside a `Form` below Flow JSON 4.0;
 * - `rename_duplicate`: two inputs of one screen with the same name: the later ones get a
 *   numbered suffix.
 *
 * Pure: the document is copied, never changed in place.
 */
import * as FlowJson from "./FlowJson.js"
import { pointer } from "./internal/PositionedJson.js"

export interface Fix {
  readonly path: string
  readonly fix: string
  readonly before: unknown
  readonly after: unknown
}

type Json = Record<string, unknown>
const { isObject } = FlowJson

/** Upper snake case, letters and underscores only. */
export const screenIdOf = (id: string): string => {
  const snake = id
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .replace(/[0-9]/g, (d) => ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"][Number(d)])
    .replace(/[^A-Za-z_]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toUpperCase()
  return snake.length === 0 ? "SCREEN" : snake
}

const renameReferences = (value: unknown, renames: ReadonlyMap<string, string>): unknown => {
  if (typeof value === "string") {
    return value.replace(/\$\{screen\.([A-Za-z0-9_\- ]+)\./g, (whole, id: string) => (renames.has(id) ? `\${screen.${renames.get(id)}.` : whole))
  }
  if (Array.isArray(value)) return value.map((v) => renameReferences(v, renames))
  if (isObject(value)) {
    const out: Json = {}
    for (const [k, v] of Object.entries(value)) out[k] = renameReferences(v, renames)
    const next = out.next
    if (out.name === "navigate" && isObject(next) && typeof next.name === "string" && renames.has(next.name)) {
      out.next = { ...next, name: renames.get(next.name) }
    }
    return out
  }
  return value
}

/** Applies every fix that applies; answers the fixed document and the fixes. */
export const autoFix = (input: unknown, context: FlowJson.Context = {}): { readonly doc: unknown; readonly fixes: ReadonlyArray<Fix> } => {
  if (!isObject(input)) return { doc: input, fixes: [] }
  const fixes: Array<Fix> = []
  let doc: Json = structuredClone(input)
  const fix = (path: ReadonlyArray<string | number>, name: string, before: unknown, after: unknown) =>
    fixes.push({ path: pointer(path), fix: name, before: before === undefined ? null : before, after })

  if (doc.version === undefined) {
    doc.version = FlowJson.LATEST_VERSION
    fix(["version"], "add_version", undefined, doc.version)
  }
  const version = typeof doc.version === "string" ? doc.version : FlowJson.LATEST_VERSION
  if (!Array.isArray(doc.screens)) return { doc, fixes }

  // Screen ids
  const renames = new Map<string, string>()
  const taken = new Set(doc.screens.filter(isObject).map((s) => s.id))
  doc.screens.forEach((screen, i) => {
    if (!isObject(screen) || typeof screen.id !== "string") return
    const bad = !FlowJson.SCREEN_ID.test(screen.id) || screen.id !== screen.id.toUpperCase() || screen.id === FlowJson.RESERVED_SCREEN_ID
    if (!bad) return
    let next = screenIdOf(screen.id === FlowJson.RESERVED_SCREEN_ID ? "SUCCESS_SCREEN" : screen.id)
    while (taken.has(next) && next !== screen.id) next = `${next}_`
    taken.add(next)
    renames.set(screen.id, next)
    fix(["screens", i, "id"], "rename_screen", screen.id, next)
  })
  if (renames.size > 0) {
    doc = renameReferences(doc, renames) as Json
    const screens = doc.screens as Array<unknown>
    doc.screens = screens.map((s) => (isObject(s) && typeof s.id === "string" && renames.has(s.id) ? { ...s, id: renames.get(s.id) } : s))
    if (isObject(doc.routing_model)) {
      const routing: Json = {}
      for (const [from, targets] of Object.entries(doc.routing_model)) {
        routing[renames.get(from) ?? from] = Array.isArray(targets)
          ? targets.map((t) => (typeof t === "string" ? (renames.get(t) ?? t) : t))
          : targets
      }
      doc.routing_model = routing
    }
  }
  const screens = doc.screens as Array<unknown>

  // Duplicate input names
  screens.forEach((screen, i) => {
    if (!isObject(screen)) return
    const seen = new Map<string, number>()
    for (const { component, path } of FlowJson.componentsOf(screen, ["screens", i])) {
      if (typeof component.name !== "string" || component.type === "Form") continue
      const count = seen.get(component.name) ?? 0
      seen.set(component.name, count + 1)
      if (count > 0) {
        let renamed = `${component.name}_${count + 1}`
        while (seen.has(renamed)) renamed = `${renamed}_`
        seen.set(renamed, 1)
        fix([...path, "name"], "rename_duplicate", component.name, renamed)
        component.name = renamed
      }
    }
  })

  // Form wrapper below 4.0
  if (FlowJson.versionBelow(version, "4.0")) {
    screens.forEach((screen, i) => {
      if (!isObject(screen) || !isObject(screen.layout) || !Array.isArray(screen.layout.children)) return
      const children = screen.layout.children as Array<unknown>
      const loose = FlowJson.componentsOf(screen, ["screens", i]).some(
        ({ component, inForm }) => FlowJson.INPUTS.has(component.type as string) && !inForm
      )
      if (!loose || children.some((c) => isObject(c) && c.type === "Form")) return
      screen.layout.children = [{ type: "Form", name: "form", children }]
      fix(["screens", i, "layout", "children"], "wrap_in_form", null, { type: "Form", name: "form" })
    })
  }

  // Terminal screen and its footer
  if (screens.length > 0 && !screens.some((s) => isObject(s) && s.terminal === true)) {
    const last = screens[screens.length - 1]
    if (isObject(last)) {
      fix(["screens", screens.length - 1, "terminal"], "set_terminal", last.terminal, true)
      last.terminal = true
    }
  }
  screens.forEach((screen, i) => {
    if (!isObject(screen) || screen.terminal !== true || !isObject(screen.layout)) return
    const components = FlowJson.componentsOf(screen, ["screens", i])
    const completes = components.some(
      ({ component }) => component.type === "Footer" && isObject(component["on-click-action"]) && component["on-click-action"].name === "complete"
    )
    if (completes) return
    const payload: Json = {}
    for (const { component } of components) {
      if (FlowJson.INPUTS.has(component.type as string) && typeof component.name === "string") payload[component.name] = `\${form.${component.name}}`
    }
    const existing = components.find(({ component }) => component.type === "Footer")
    if (existing !== undefined) {
      const before = existing.component["on-click-action"]
      existing.component["on-click-action"] = { name: "complete", payload }
      fix([...existing.path, "on-click-action"], "add_footer", before, existing.component["on-click-action"])
      return
    }
    const footer = { type: "Footer", label: "Submit", "on-click-action": { name: "complete", payload } }
    const layoutChildren = Array.isArray(screen.layout.children) ? (screen.layout.children as Array<unknown>) : []
    const form = layoutChildren.find((c): c is Json => isObject(c) && c.type === "Form" && Array.isArray(c.children))
    const target = form !== undefined ? (form.children as Array<unknown>) : layoutChildren
    target.push(footer)
    screen.layout.children = layoutChildren
    const index = form !== undefined ? layoutChildren.indexOf(form) : -1
    const path =
      index >= 0
        ? ["screens", i, "layout", "children", index, "children", target.length - 1]
        : ["screens", i, "layout", "children", target.length - 1]
    fix(path, "add_footer", null, footer)
  })

  // Endpoint flows: data_api_version and routing_model
  const usesDataExchange = screens.some(
    (s, i) =>
      isObject(s) &&
      FlowJson.componentsOf(s, ["screens", i]).some(({ component }) =>
        FlowJson.actionsOf(component).some(({ action }) => isObject(action) && action.name === "data_exchange")
      )
  )
  if (usesDataExchange || context.hasEndpoint === true) {
    if (doc.data_api_version === undefined) {
      doc.data_api_version = FlowJson.DEFAULT_DATA_API_VERSION
      fix(["data_api_version"], "add_data_api_version", undefined, doc.data_api_version)
    }
    if (doc.routing_model === undefined) {
      const routing: Record<string, Array<string>> = {}
      screens.forEach((s, i) => {
        if (!isObject(s) || typeof s.id !== "string") return
        const targets = new Set<string>()
        for (const { component } of FlowJson.componentsOf(s, ["screens", i])) {
          for (const { action } of FlowJson.actionsOf(component)) {
            if (isObject(action) && action.name === "navigate" && isObject(action.next) && typeof action.next.name === "string")
              targets.add(action.next.name)
          }
        }
        routing[s.id] = [...targets]
      })
      doc.routing_model = routing
      fix(["routing_model"], "add_routing_model", undefined, routing)
    }
  }
  return { doc, fixes }
}
