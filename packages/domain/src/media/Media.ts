/**
 * Media (issue 32): files a store uploads once (`POST /chat/media`) and uses in template
 * headers: as a template's example at creation (the operator's resumable upload handle) and
 * as a send's header (the phone number's media id, uploaded again once the operator's copy
 * has expired).
 *
 * The operator's table of media types and sizes (Meta, "Supported media types"; the same
 * table in AWS End User Messaging Social's WhatsApp guide): image JPEG/PNG up to 5 MB, video
 * MP4/3GPP up to 16 MB, audio AAC/AMR/MP3/M4A/OGG up to 16 MB, document (text, PDF, Word,
 * Excel, PowerPoint) up to 100 MB, sticker WebP up to 500 KB (animated; 100 KB static). A
 * type is believed only when the file's first bytes agree with it (`detect`).
 */
import { Schema } from "effect"
import * as Wire from "../shared/Wire.js"
import * as Id from "../shared/Id.js"
import { StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

export const MediaId = Id.kind("med", "MediaId")
export type MediaId = Id.Of<typeof MediaId>

export const Kind = Schema.Literal("image", "video", "audio", "document", "sticker")
export type Kind = typeof Kind.Type

const MB = 1024 * 1024
const KB = 1024

/** One type the operator takes: its kind and its largest size in bytes. */
export interface TypeRule {
  readonly kind: Kind
  readonly maxBytes: number
}

/** The operator's media table, by MIME type. */
export const TYPES: Readonly<Record<string, TypeRule>> = {
  "image/jpeg": { kind: "image", maxBytes: 5 * MB },
  "image/png": { kind: "image", maxBytes: 5 * MB },
  "image/webp": { kind: "sticker", maxBytes: 500 * KB },
  "video/mp4": { kind: "video", maxBytes: 16 * MB },
  "video/3gpp": { kind: "video", maxBytes: 16 * MB },
  "audio/aac": { kind: "audio", maxBytes: 16 * MB },
  "audio/amr": { kind: "audio", maxBytes: 16 * MB },
  "audio/mpeg": { kind: "audio", maxBytes: 16 * MB },
  "audio/mp4": { kind: "audio", maxBytes: 16 * MB },
  "audio/ogg": { kind: "audio", maxBytes: 16 * MB },
  "text/plain": { kind: "document", maxBytes: 100 * MB },
  "application/pdf": { kind: "document", maxBytes: 100 * MB },
  "application/msword": { kind: "document", maxBytes: 100 * MB },
  "application/vnd.ms-excel": { kind: "document", maxBytes: 100 * MB },
  "application/vnd.ms-powerpoint": { kind: "document", maxBytes: 100 * MB },
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": { kind: "document", maxBytes: 100 * MB },
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": { kind: "document", maxBytes: 100 * MB },
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": { kind: "document", maxBytes: 100 * MB }
}

/** The largest file of any type: an upload over it is 413. */
export const LARGEST = 100 * MB

/** How many first bytes `detect` reads. */
export const HEAD_BYTES = 64

/** The MIME types a template header of each format takes (GRAPH_API.md §4.2). */
export const HEADER_TYPES = {
  IMAGE: ["image/jpeg", "image/png"],
  VIDEO: ["video/mp4"],
  DOCUMENT: ["application/pdf"]
} as const satisfies Record<string, ReadonlyArray<string>>

/** Aliases callers send for the operator's names. */
const ALIASES: Readonly<Record<string, string>> = {
  "image/jpg": "image/jpeg",
  "video/3gp": "video/3gpp",
  "audio/mp3": "audio/mpeg",
  "audio/x-m4a": "audio/mp4",
  "audio/opus": "audio/ogg"
}

const ascii = (head: Uint8Array, at: number, text: string): boolean => {
  if (head.length < at + text.length) return false
  for (let i = 0; i < text.length; i++) if (head[at + i] !== text.charCodeAt(i)) return false
  return true
}
const bytes = (head: Uint8Array, at: number, values: ReadonlyArray<number>): boolean =>
  head.length >= at + values.length && values.every((v, i) => head[at + i] === v)

const OFFICE_XML = [
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation"
]
const OFFICE_OLE = ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"]

/**
 * The types the first bytes of a file allow, by their signatures: several for containers
 * (an MP4 box may be video or audio; a ZIP any Office Open XML file; an OLE file any older
 * Office file). Text is a file without NUL bytes and with no known signature.
 */
export const candidates = (head: Uint8Array): ReadonlyArray<string> => {
  if (bytes(head, 0, [0xff, 0xd8, 0xff])) return ["image/jpeg"]
  if (bytes(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return ["image/png"]
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WEBP")) return ["image/webp"]
  if (ascii(head, 4, "ftyp")) {
    const brand = String.fromCharCode(...head.slice(8, 12))
    if (brand.startsWith("3g")) return ["video/3gpp"]
    if (brand === "M4A " || brand === "M4B ") return ["audio/mp4"]
    return ["video/mp4", "audio/mp4"]
  }
  if (ascii(head, 0, "%PDF-")) return ["application/pdf"]
  if (ascii(head, 0, "OggS")) return ["audio/ogg"]
  if (ascii(head, 0, "#!AMR")) return ["audio/amr"]
  if (ascii(head, 0, "ID3") || bytes(head, 0, [0xff, 0xfb]) || bytes(head, 0, [0xff, 0xf3]) || bytes(head, 0, [0xff, 0xf2])) return ["audio/mpeg"]
  if (bytes(head, 0, [0xff, 0xf1]) || bytes(head, 0, [0xff, 0xf9])) return ["audio/aac"]
  if (bytes(head, 0, [0x50, 0x4b, 0x03, 0x04])) return OFFICE_XML
  if (bytes(head, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return OFFICE_OLE
  return head.includes(0) ? [] : ["text/plain"]
}

/**
 * The type of a file: the declared one when its first bytes agree, the one its bytes show
 * when none was declared (or `application/octet-stream`); a message for the caller otherwise.
 */
export const detect = (head: Uint8Array, declared: string | undefined): { readonly mimeType: string } | { readonly problem: string } => {
  const raw = declared?.split(";")[0].trim().toLowerCase()
  const named = raw === undefined || raw === "" || raw === "application/octet-stream" ? undefined : (ALIASES[raw] ?? raw)
  const found = candidates(head)
  if (named !== undefined) {
    if (TYPES[named] === undefined) return { problem: `the operator does not take ${named} files (see the media types in the README)` }
    if (!found.includes(named)) {
      return {
        problem:
          found.length === 0 ? `is declared ${named} but its content is not a ${named} file` : `is declared ${named} but its content is ${found[0]}`
      }
    }
    return { mimeType: named }
  }
  const first = found.find((type) => TYPES[type] !== undefined)
  return first === undefined ? { problem: "is of a type the operator does not take" } : { mimeType: first }
}

/** The operator's copy of a media on one phone number, for sends: its id and when it was uploaded. */
export const OperatorCopy = Schema.Struct({ id: Schema.String, uploadedAt: Schema.Number })
export interface OperatorCopy extends Schema.Schema.Type<typeof OperatorCopy> {}

/**
 * How long a phone number's media id is used: the operator keeps an uploaded media 30 days
 * (Meta, "Media": "media files are stored for 30 days"); a day less, so a send never names
 * an id that expires on the way.
 */
export const OPERATOR_COPY_MS = 29 * 24 * 60 * 60 * 1000

export const Media = Schema.Struct({
  id: MediaId.schema,
  storeId: StoreId.schema,
  mimeType: Schema.String,
  size: Schema.Int,
  sha256: Schema.String,
  /** The file name the caller uploaded it under (a document header's default `filename`). */
  filename: Schema.NullOr(Schema.String),
  /** The operator's media ids, by phone number id. */
  operatorCopies: Schema.Record({ key: Schema.String, value: OperatorCopy }),
  createdAt: Schema.Number
}).annotations({ identifier: "MediaEntity" })
export interface Media extends Schema.Schema.Type<typeof Media> {}

export const kindOf = (media: Pick<Media, "mimeType">): Kind | undefined => TYPES[media.mimeType]?.kind

/** `POST /chat/media`, `GET /chat/media/{id}`. */
export const MediaResource = Schema.Struct({
  id: Media.fields.id,
  mimeType: Wire.key(Media.fields.mimeType, "mime_type"),
  size: Media.fields.size,
  sha256: Media.fields.sha256,
  createdAt: Wire.key(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "Media" })

/** `DELETE /chat/media/{id}`. */
export const Deleted = Schema.Struct({ id: MediaId.schema, deleted: Schema.Literal(true) }).annotations({ identifier: "MediaDeleted" })
