/**
 * Previews (issue 15 item 8). `GET /chat/flows/{id}/preview` answers a signed link to our own
 * preview page, valid for a day, in every mode, and for live accounts the operator's preview
 * link too. The page (`GET /chat/flow-preview/{id}`) renders the Flow JSON's screens as plain
 * HTML, server-side, with no script and no network access needed; a link whose signature
 * does not match or that has expired answers 404 like an unknown flow.
 */
import { Effect, Option } from "effect"
import { FlowOperator } from "./FlowOperator.js"
import * as Errors from "../shared/Errors.js"
import * as Time from "../shared/Time.js"
import type * as Flow from "./Flow.js"
import { FlowCrypto } from "./FlowCrypto.js"
import { isObject } from "./FlowJson.js"
import { FlowRepo } from "./FlowRepo.js"
import { caller, lookup } from "./Flows.js"

export const LINK_TTL = Time.DAY

/** `GET /chat/flows/{id}/preview`; `baseUrl` is where this server is reached. */
export const preview = (id: string, baseUrl: string) =>
  Effect.gen(function* () {
    const { tenant, account } = yield* caller
    const flow = yield* lookup(tenant, id)
    const expiresAt = (yield* Time.now) + LINK_TTL
    const signature = (yield* FlowCrypto).sign(`${flow.id}.${expiresAt}`)
    const own = {
      preview_url: `${baseUrl.replace(/\/$/, "")}/chat/flow-preview/${flow.id}?expires=${expiresAt}&signature=${signature}`,
      expires_at: Time.toIso(expiresAt)
    }
    if (account.kind !== "live") return { ...own, operator_preview_url: null, operator_expires_at: null }
    const operator = yield* Effect.either((yield* FlowOperator).preview(account, flow.operatorFlowId))
    return operator._tag === "Right"
      ? { ...own, operator_preview_url: operator.right.previewUrl, operator_expires_at: Time.toIso(operator.right.expiresAt) }
      : { ...own, operator_preview_url: null, operator_expires_at: null }
  })

/** `GET /chat/flow-preview/{id}?expires&signature`: the page, or 404 for a bad or expired link. */
export const page = (id: string, expires: string, signature: string) =>
  Effect.gen(function* () {
    const notFound = new Errors.ResourceNotFound({ resource: "flow", id })
    const expiresAt = Number(expires)
    if (!Number.isFinite(expiresAt) || expiresAt < (yield* Time.now)) return yield* Effect.fail(notFound)
    if (!(yield* FlowCrypto).verify(`${id}.${expiresAt}`, signature)) return yield* Effect.fail(notFound)
    const flow = yield* (yield* FlowRepo).findById(id as Flow.FlowId)
    if (Option.isNone(flow)) return yield* Effect.fail(notFound)
    return render(flow.value)
  })

const esc = (s: unknown): string =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const options = (source: unknown): Array<{ id: string; title: string }> =>
  Array.isArray(source) ? source.filter(isObject).map((o) => ({ id: String(o.id ?? ""), title: String(o.title ?? o.id ?? "") })) : []

const component = (c: Record<string, unknown>): string => {
  const label = esc(c.label)
  switch (c.type) {
    case "TextHeading":
      return `<h2>${esc(c.text)}</h2>`
    case "TextSubheading":
      return `<h3>${esc(c.text)}</h3>`
    case "TextBody":
    case "RichText":
      return `<p>${esc(Array.isArray(c.text) ? c.text.join(" ") : c.text)}</p>`
    case "TextCaption":
      return `<p><small>${esc(c.text)}</small></p>`
    case "TextInput":
      return `<label>${label}<input name="${esc(c.name)}" type="${c["input-type"] === "email" ? "email" : c["input-type"] === "number" ? "number" : "text"}"></label>`
    case "TextArea":
      return `<label>${label}<textarea name="${esc(c.name)}"></textarea></label>`
    case "DatePicker":
    case "CalendarPicker":
      return `<label>${label}<input name="${esc(c.name)}" type="date"></label>`
    case "Dropdown":
      return `<label>${label}<select name="${esc(c.name)}">${options(c["data-source"])
        .map((o) => `<option value="${esc(o.id)}">${esc(o.title)}</option>`)
        .join("")}</select></label>`
    case "RadioButtonsGroup":
    case "CheckboxGroup":
    case "ChipsSelector": {
      const kind = c.type === "RadioButtonsGroup" ? "radio" : "checkbox"
      return `<fieldset><legend>${label}</legend>${options(c["data-source"])
        .map((o) => `<label><input type="${kind}" name="${esc(c.name)}" value="${esc(o.id)}">${esc(o.title)}</label>`)
        .join("")}</fieldset>`
    }
    case "OptIn":
      return `<label><input type="checkbox" name="${esc(c.name)}">${label}</label>`
    case "EmbeddedLink":
      return `<p><a>${esc(c.text)}</a></p>`
    case "Image":
      return typeof c.src === "string" && !c.src.startsWith("$") ? `<img alt="${esc(c["alt-text"])}" src="data:image/png;base64,${esc(c.src)}">` : ""
    case "Footer":
      return `<button type="button">${label}</button>`
    case "Form":
      return `<form>${children(c.children)}</form>`
    case "If":
      return children(c.then)
    default:
      return ""
  }
}

const children = (list: unknown): string => (Array.isArray(list) ? list.filter(isObject).map(component).join("") : "")

/** The flow's screens as an HTML page (the first screen first). */
export const render = (flow: Flow.Flow): string => {
  let screens: Array<Record<string, unknown>> = []
  try {
    const doc = flow.json === null ? undefined : JSON.parse(flow.json)
    if (isObject(doc) && Array.isArray(doc.screens)) screens = doc.screens.filter(isObject)
  } catch {
    screens = []
  }
  const body =
    screens.length === 0
      ? "<p>This flow has no Flow JSON yet.</p>"
      : screens
          .map((s) => `<section id="${esc(s.id)}"><h1>${esc(s.title ?? s.id)}</h1>${children(isObject(s.layout) ? s.layout.children : [])}</section>`)
          .join("\n")
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(flow.name)} (preview)</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:2rem auto}section{border:1px solid #ccc;border-radius:12px;padding:1rem;margin:1rem 0}label{display:block;margin:.5rem 0}input,select,textarea{display:block;width:100%}button{width:100%;padding:.6rem}</style>
</head><body>
${body}
</body></html>
`
}
