/**
 * The operator's checks of the richer templates (issue 32; GRAPH_API.md §4.2, §4.6), at
 * creation and at send:
 *   - a HEADER's format is TEXT, IMAGE, VIDEO, GIF, DOCUMENT, LOCATION or PRODUCT; a media
 *     header has no text and one `example.header_handle` from the resumable upload API, of a
 *     type its format takes (IMAGE: JPEG or PNG; VIDEO and GIF: MP4; DOCUMENT: PDF);
 *   - a CAROUSEL holds 2 to 10 cards, each with an IMAGE or VIDEO header, and every card the
 *     same header format and the same buttons as the first;
 *   - a LIMITED_TIME_OFFER's text is at most 16 characters;
 *   - a send of a media header template carries the media (an id the number uploaded and the
 *     operator still keeps, or a link), a carousel send as many cards as the template, an
 *     expiring offer its `expiration_time_ms`.
 * The codes: 100 with subcode 2388047 for a header refused at creation, 100 for a carousel
 * or offer refused at creation, 132000 for a card count mismatch and 131009 for a media id
 * that is unknown or expired at send.
 */
import { ErrorSubcode, GraphErrors } from "./GraphError.js"
import { HEADER_EXAMPLE_TYPES, type MediaStore } from "./MediaStore.js"
import { asObject } from "./SendRequest.js"

const FORMATS = ["TEXT", "IMAGE", "VIDEO", "GIF", "DOCUMENT", "LOCATION", "PRODUCT"]
const EXAMPLE_TYPES: Readonly<Record<string, ReadonlyArray<string>>> = { ...HEADER_EXAMPLE_TYPES, GIF: ["video/mp4"] }

const headerError = (details: string) =>
  GraphErrors.invalidParameter(details, { subcode: ErrorSubcode.TEMPLATE_HEADER_FORMAT, userTitle: "Header format incorrect" })

const upper = (value: unknown): string => (typeof value === "string" ? value.toUpperCase() : "")
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

const checkHeader = (media: MediaStore, header: Record<string, unknown>, where: string): void => {
  const format = upper(header.format) || "TEXT"
  if (!FORMATS.includes(format)) throw headerError(`${where}: header format ${String(header.format)} is not one of ${FORMATS.join(", ")}.`)
  if (format === "TEXT" || format === "PRODUCT") return
  if (header.text !== undefined) throw headerError(`${where}: a ${format} header has no text.`)
  if (format === "LOCATION") return
  const handles = list(asObject(header.example)?.header_handle)
  if (handles.length !== 1 || typeof handles[0] !== "string") {
    throw headerError(`${where}: a ${format} header needs example.header_handle with one handle from the resumable upload API.`)
  }
  const file = media.handle(handles[0])
  if (file === undefined) throw headerError(`${where}: example.header_handle is not a handle of this app's uploads.`)
  if (!EXAMPLE_TYPES[format].includes(file.type))
    throw headerError(`${where}: a ${format} header's example must be ${EXAMPLE_TYPES[format].join(" or ")}, not ${file.type}.`)
}

const shapeOf = (card: Record<string, unknown>): string => {
  const components = list(card.components).map((c) => asObject(c) ?? {})
  const header = upper(components.find((c) => upper(c.type) === "HEADER")?.format)
  const buttons = list(components.find((c) => upper(c.type) === "BUTTONS")?.buttons).map((b) => upper(asObject(b)?.type))
  return `${header}|${buttons.join(",")}`
}

/** The creation checks (see the header); throws the operator's refusal. */
export const checkRichTemplate = (media: MediaStore, body: unknown): void => {
  for (const raw of list(asObject(body)?.components)) {
    const component = asObject(raw) ?? {}
    const type = upper(component.type)
    if (type === "HEADER") checkHeader(media, component, "HEADER")
    if (type === "LIMITED_TIME_OFFER") {
      const text = asObject(component.limited_time_offer)?.text
      if (typeof text !== "string" || text.length === 0 || text.length > 16) {
        throw GraphErrors.invalidParameter("limited_time_offer.text is required and at most 16 characters.")
      }
    }
    if (type === "CAROUSEL") {
      const cards = list(component.cards).map((c) => asObject(c) ?? {})
      if (cards.length < 2 || cards.length > 10) throw GraphErrors.invalidParameter(`A carousel needs 2 to 10 cards, got ${cards.length}.`)
      cards.forEach((card, i) => {
        const header = list(card.components)
          .map((c) => asObject(c) ?? {})
          .find((c) => upper(c.type) === "HEADER")
        if (header === undefined || !["IMAGE", "VIDEO"].includes(upper(header.format))) {
          throw headerError(`carousel card ${i}: every card needs an IMAGE or VIDEO header.`)
        }
        checkHeader(media, header, `carousel card ${i}`)
      })
      const first = shapeOf(cards[0])
      cards.forEach((card, i) => {
        if (shapeOf(card) !== first) {
          throw GraphErrors.invalidParameter(`carousel card ${i} does not match card 0: every card must have the same header format and buttons.`)
        }
      })
    }
  }
}

/** The media of a header parameter: a number's media id still kept, or a link. */
const checkMediaParameter = (media: MediaStore, phoneNumberId: string, parameter: unknown, format: string, where: string): void => {
  const p = asObject(parameter)
  const type = format === "GIF" ? "video" : format.toLowerCase()
  if (p === undefined || upper(p.type) !== upper(type)) throw GraphErrors.invalidValue(`${where}: the header takes a ${type} parameter.`)
  const object = asObject(p[String(p.type).toLowerCase()])
  if (format === "LOCATION") {
    if (typeof object?.latitude !== "number" || typeof object.longitude !== "number")
      throw GraphErrors.invalidValue(`${where}: a location needs latitude and longitude.`)
    return
  }
  if (typeof object?.id === "string") {
    const found = media.find(object.id)
    if (found === undefined || found.phoneNumberId !== phoneNumberId)
      throw GraphErrors.invalidValue(`${where}: media id ${object.id} is unknown or expired.`)
    return
  }
  if (typeof object?.link !== "string" || !/^https?:\/\//.test(object.link))
    throw GraphErrors.invalidValue(`${where}: the ${type} needs an id or a link.`)
}

/** The send checks (see the header) against the template's components. */
export const checkRichSend = (media: MediaStore, phoneNumberId: string, template: ReadonlyArray<unknown>, sent: ReadonlyArray<unknown>): void => {
  const components = template.map((c) => asObject(c) ?? {})
  const sentOf = (type: string) => sent.map((c) => asObject(c) ?? {}).find((c) => upper(c.type) === type)
  const header = components.find((c) => upper(c.type) === "HEADER")
  const format = upper(header?.format)
  if (format !== "" && format !== "TEXT" && format !== "PRODUCT") {
    checkMediaParameter(media, phoneNumberId, list(sentOf("HEADER")?.parameters)[0], format, "header")
  }
  const offer = components.find((c) => upper(c.type) === "LIMITED_TIME_OFFER")
  if (asObject(offer?.limited_time_offer)?.has_expiration === true) {
    const ms = asObject(asObject(list(sentOf("LIMITED_TIME_OFFER")?.parameters)[0])?.limited_time_offer)?.expiration_time_ms
    if (typeof ms !== "number") throw GraphErrors.missingParameter("limited_time_offer: expiration_time_ms is required for an expiring offer.")
  }
  const carousel = components.find((c) => upper(c.type) === "CAROUSEL")
  if (carousel !== undefined) {
    const declared = list(carousel.cards).map((c) => asObject(c) ?? {})
    const cards = list(sentOf("CAROUSEL")?.cards).map((c) => asObject(c) ?? {})
    if (cards.length !== declared.length) {
      throw GraphErrors.templateParamCount(`carousel: number of cards (${cards.length}) does not match the template's (${declared.length})`)
    }
    cards.forEach((card, i) => {
      const cardHeader = list(declared[i].components)
        .map((c) => asObject(c) ?? {})
        .find((c) => upper(c.type) === "HEADER")
      const sentHeader = list(card.components)
        .map((c) => asObject(c) ?? {})
        .find((c) => upper(c.type) === "HEADER")
      checkMediaParameter(media, phoneNumberId, list(sentHeader?.parameters)[0], upper(cardHeader?.format), `carousel card ${i} header`)
    })
  }
}
