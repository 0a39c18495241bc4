/**
 * A template's media examples at creation (GRAPH_API.md §4.2): each media header names our
 * media in `example.header_media`; the operator wants a handle of the resumable upload API
 * in `example.header_handle`. Each media is checked against the header's format (an IMAGE
 * is a JPEG or PNG, a VIDEO an MP4, a DOCUMENT a PDF) and uploaded for its handle.
 */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import type { StoreId } from "../shared/Tenant.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as Media from "../media/Media.js"
import * as Medias from "../media/Medias.js"
import type { CardComponent, Component, TemplateData } from "./Template.js"

const withHandle = <C extends Component | CardComponent>(storeId: StoreId, account: OperatorAccount, component: C, path: string) =>
  Effect.gen(function* () {
    const raw = component.example?.header_media
    if (component.type !== "HEADER" || raw === undefined) return component
    const format = component.format as keyof typeof Media.HEADER_TYPES
    const media = yield* Medias.named(storeId, raw, `${path}.example.header_media`)
    const allowed: ReadonlyArray<string> = Media.HEADER_TYPES[format] ?? []
    if (!allowed.includes(media.mimeType)) {
      return yield* Errors.ValidationFailed.of(
        `${path}.example.header_media`,
        `is a ${media.mimeType} file: a ${component.format} header takes ${allowed.join(" or ")}`
      )
    }
    const handle = yield* Medias.exampleHandle(account, media)
    const { header_media: _, ...example } = component.example!
    return { ...component, example: { ...example, header_handle: [handle] } }
  })

/** The template as the operator takes it: every `header_media` replaced by its upload handle. */
export const forOperator = (storeId: StoreId, account: OperatorAccount, data: TemplateData) =>
  Effect.gen(function* () {
    const components = yield* Effect.forEach(data.components, (component, i) =>
      Effect.gen(function* () {
        const path = `templateData.components[${i}]`
        const done = yield* withHandle(storeId, account, component, path)
        if (done.cards === undefined) return done
        const cards = yield* Effect.forEach(done.cards, (card, j) =>
          Effect.map(
            Effect.forEach(card.components, (c, k) => withHandle(storeId, account, c, `${path}.cards[${j}].components[${k}]`)),
            (components) => ({ components })
          )
        )
        return { ...done, cards }
      })
    )
    return { ...data, components }
  })
