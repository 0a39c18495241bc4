/**
 * The richer parts of a template send (issue 32; GRAPH_API.md §4.6): a media or location
 * header, parameters by name, carousel cards, a limited-time offer's expiry. `TemplateSend`
 * holds the request's schema and calls `check` here; `resolve` turns our media ids into the
 * operator's (uploading a media to the sender's phone number when it needs to).
 */
import { Effect, Schema } from "effect"
import type { FieldIssue } from "../shared/Errors.js"
import type { StoreId } from "../shared/Tenant.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as Media from "../media/Media.js"
import * as Medias from "../media/Medias.js"
import { isNamed, namesOf } from "./RichComponents.js"
import type { Component } from "./Template.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** A media header: our media (`media_id`, `med_…`) or an https `link`; a document's `filename`. */
export const MediaHeader = Schema.Struct({
  type: Schema.Literal("image", "video", "document"),
  media_id: Schema.optional(Schema.String),
  link: Schema.optional(Schema.String),
  filename: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(240)))
}).annotations({ ...strict, identifier: "TemplateMediaHeader" })

export const LocationHeader = Schema.Struct({
  type: Schema.Literal("location"),
  latitude: Schema.Number.pipe(Schema.between(-90, 90)),
  longitude: Schema.Number.pipe(Schema.between(-180, 180)),
  name: Schema.optional(Schema.String),
  address: Schema.optional(Schema.String)
}).annotations({ ...strict, identifier: "TemplateLocationHeader" })

export const HeaderParameter = Schema.Union(MediaHeader, LocationHeader).annotations({ identifier: "TemplateHeaderParameter" })
export type HeaderParameter = typeof HeaderParameter.Type

/** A campaign's header as frozen at launch: the caller's, with the operator's media id of our media. */
export const StoredMediaHeader = Schema.Struct({ ...MediaHeader.fields, operator_media_id: Schema.optional(Schema.String) })
export const StoredHeader = Schema.Union(StoredMediaHeader, LocationHeader).annotations({ identifier: "TemplateStoredHeader" })
export type StoredHeader = typeof StoredHeader.Type

/** The header as the caller gave it (without the operator's id). */
export const callerHeader = (header: StoredHeader): HeaderParameter => {
  if (header.type === "location") return header
  const { operator_media_id: _, ...rest } = header
  return rest
}

/**
 * The header of a send from a frozen one: the operator's media id in place of ours (`current`
 * answers the id to send for the frozen one: a campaign lane's re-upload may have replaced it).
 */
export const sendHeaderOf = (header: StoredHeader, current: (frozen: string | undefined) => string | undefined = (id) => id): SendHeader => {
  if (header.type === "location") return header
  return { type: header.type, id: current(header.operator_media_id), link: header.link, filename: header.filename }
}

/** Positional parameters (an array) or named ones (an object, by placeholder name). */
export const Parameters = Schema.Union(Schema.Array(Schema.String), Schema.Record({ key: Schema.String, value: Schema.String }))
export type Parameters = typeof Parameters.Type

/** A limited-time offer's expiry, epoch milliseconds (the operator's `expiration_time_ms`). */
export const Offer = Schema.Struct({ expiration_time_ms: Schema.Int.pipe(Schema.positive()) }).annotations(strict)

/** A header as the operator takes it: a media by the operator's id or a link. */
export type SendHeader =
  | {
      readonly type: "image" | "video" | "document"
      readonly id?: string | undefined
      readonly link?: string | undefined
      readonly filename?: string | undefined
    }
  | {
      readonly type: "location"
      readonly latitude: number
      readonly longitude: number
      readonly name?: string | undefined
      readonly address?: string | undefined
    }

const FORMAT_TYPE = { IMAGE: "image", VIDEO: "video", DOCUMENT: "document", LOCATION: "location" } as const

/** The problems of one header against the template's (or card's) HEADER component. */
export const checkHeader = (component: Component | undefined, header: HeaderParameter | undefined, path: string, issues: Array<FieldIssue>): void => {
  const format = component?.format
  const wanted = format === undefined || format === "TEXT" ? undefined : FORMAT_TYPE[format]
  if (wanted === undefined) {
    if (header !== undefined) issues.push({ path, message: "the template's header takes no media or location" })
    return
  }
  if (header === undefined) {
    issues.push({ path, message: `the template's ${format} header needs its ${wanted}: {"type": "${wanted}", ...}` })
    return
  }
  if (header.type !== wanted) {
    issues.push({ path: `${path}.type`, message: `the template's header is ${format}: must be "${wanted}"` })
    return
  }
  if (header.type === "location") return
  if ((header.media_id === undefined) === (header.link === undefined)) {
    issues.push({ path, message: "give exactly one of media_id (an uploaded media, med_…) and link (https://…)" })
  } else if (header.link !== undefined && !/^https:\/\/[^\s/]+/.test(header.link)) {
    issues.push({ path: `${path}.link`, message: "must be an https URL" })
  }
  if (header.filename !== undefined && header.type !== "document")
    issues.push({ path: `${path}.filename`, message: "only a document has a file name" })
}

/** The problems of positional or named parameters against a text's placeholders. */
export const checkParameters = (text: string | undefined, named: boolean, given: Parameters, path: string, issues: Array<FieldIssue>): void => {
  const names = namesOf(text)
  if (named) {
    if (Array.isArray(given)) {
      if (names.length > 0 || given.length > 0)
        issues.push({ path, message: `the template's parameters are named: give an object {${names.map((n) => `"${n}": "…"`).join(", ")}}` })
      return
    }
    const keys = Object.keys(given)
    const missing = names.filter((n) => !keys.includes(n))
    const extra = keys.filter((k) => !names.includes(k))
    if (missing.length > 0) issues.push({ path, message: `misses ${missing.map((n) => `"${n}"`).join(", ")}` })
    if (extra.length > 0) issues.push({ path, message: `names no placeholder of the template: ${extra.map((n) => `"${n}"`).join(", ")}` })
    return
  }
  if (!Array.isArray(given)) {
    issues.push({ path, message: "the template's parameters are positional: give an array" })
  } else if (given.length !== names.length) {
    issues.push({ path, message: `the template takes ${names.length} parameter(s), got ${given.length}` })
  }
}

/** Whether the send's template part uses parameters by name. */
export const namedTemplate = isNamed

/**
 * How `resolve` finds the operator's media ids: `cache` (our media id to the operator's) spares
 * a lookup per header when many sends share a media (a campaign's recipients); `fresh` uploads
 * again even when the operator should still keep its copy (after it refused the copy as
 * expired or unknown).
 */
export interface ResolveOptions {
  readonly cache?: Map<string, string> | undefined
  readonly fresh?: boolean | undefined
}

/** Replaces our media id in a header by the operator's media id on the account's number. */
const resolveHeader = (storeId: StoreId, account: OperatorAccount, header: HeaderParameter, path: string, options: ResolveOptions) =>
  Effect.gen(function* () {
    if (header.type === "location" || header.media_id === undefined) return header as SendHeader
    const media = yield* Medias.named(storeId, header.media_id, `${path}.media_id`)
    if (Media.kindOf(media) !== (header.type === "image" ? "image" : header.type === "video" ? "video" : "document")) {
      return yield* Effect.fail(Medias.wrongKind(`${path}.media_id`, media.mimeType, header.type))
    }
    let id = options.cache?.get(media.id)
    if (id === undefined) {
      id = options.fresh === true ? yield* Medias.freshOperatorMediaId(account, media) : yield* Medias.operatorMediaId(account, media)
      options.cache?.set(media.id, id)
    }
    const filename = header.type === "document" ? (header.filename ?? media.filename ?? undefined) : undefined
    return { type: header.type, id, ...(filename === undefined ? {} : { filename }) } as SendHeader
  })

/** Whether a send carries a media of ours (a `media_id`): only then may a re-upload cure a refusal. */
export const hasOwnMedia = (send: {
  readonly header?: HeaderParameter | undefined
  readonly cards?: ReadonlyArray<{ readonly header: HeaderParameter }> | undefined
}): boolean =>
  (send.header !== undefined && send.header.type !== "location" && send.header.media_id !== undefined) ||
  (send.cards ?? []).some((c) => c.header.type !== "location" && c.header.media_id !== undefined)

/**
 * The operator's refusals of a send that a new upload of its media may cure: 131053 (media
 * upload error) and 131009 (a parameter value is not valid: the operator's answer to a media id
 * it no longer keeps, or never had on this number). GRAPH_API.md §10 lists both; which one the
 * operator gives for an expired id is not documented (the emulator answers 131009).
 */
export const MEDIA_REFUSAL_CODES: ReadonlySet<number> = new Set([131009, 131053])

/** The card of a send as the operator client takes it. */
export interface SendCard {
  readonly header: SendHeader
  readonly parameters: ReadonlyArray<string>
  readonly buttons: ReadonlyArray<{ readonly index: number; readonly sub_type: string; readonly parameter: string }>
}

/** The header and cards of a send with the operator's media ids in place of ours. */
export const resolve = (
  storeId: StoreId,
  account: OperatorAccount,
  send: {
    readonly header?: HeaderParameter | undefined
    readonly cards?:
      | ReadonlyArray<{
          readonly header: HeaderParameter
          readonly parameters?: ReadonlyArray<string> | undefined
          readonly buttons?: SendCard["buttons"] | undefined
        }>
      | undefined
  },
  root = "template",
  options: ResolveOptions = {}
) =>
  Effect.gen(function* () {
    const header = send.header === undefined ? undefined : yield* resolveHeader(storeId, account, send.header, `${root}.header`, options)
    const cards =
      send.cards === undefined
        ? undefined
        : yield* Effect.forEach(send.cards, (card, i) =>
            Effect.map(
              resolveHeader(storeId, account, card.header, `${root}.cards[${i}].header`, options),
              (h): SendCard => ({
                header: h,
                parameters: card.parameters ?? [],
                buttons: card.buttons ?? []
              })
            )
          )
    return { header, cards }
  })
