/**
 * The operator's media (issue 32): the resumable upload API's sessions and the handles they
 * end with (a template's example), and each phone number's uploaded media (a send's header),
 * which the operator keeps 30 days. Only what the checks need is kept: type, size, hash.
 *
 * The operator's table of media types and sizes (Meta, "Supported media types"): image
 * JPEG/PNG 5 MB, video MP4/3GPP 16 MB, audio AAC/AMR/MP3/M4A/OGG 16 MB, documents (text,
 * PDF, Office) 100 MB, WebP stickers 500 KB.
 */
import { createHash, randomBytes } from "node:crypto"
import { GraphError, GraphErrors } from "./GraphError.js"

const MB = 1024 * 1024
const DOCUMENT = 100 * MB

/** The largest size of each type the operator takes. */
export const MEDIA_LIMITS: Readonly<Record<string, number>> = {
  "image/jpeg": 5 * MB,
  "image/png": 5 * MB,
  "image/webp": 500 * 1024,
  "video/mp4": 16 * MB,
  "video/3gpp": 16 * MB,
  "audio/aac": 16 * MB,
  "audio/amr": 16 * MB,
  "audio/mpeg": 16 * MB,
  "audio/mp4": 16 * MB,
  "audio/ogg": 16 * MB,
  "text/plain": DOCUMENT,
  "application/pdf": DOCUMENT,
  "application/msword": DOCUMENT,
  "application/vnd.ms-excel": DOCUMENT,
  "application/vnd.ms-powerpoint": DOCUMENT,
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": DOCUMENT,
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": DOCUMENT,
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": DOCUMENT
}

/** The types of a template header's example (GRAPH_API.md §4.2). */
export const HEADER_EXAMPLE_TYPES: Readonly<Record<string, ReadonlyArray<string>>> = {
  IMAGE: ["image/jpeg", "image/png"],
  VIDEO: ["video/mp4"],
  DOCUMENT: ["application/pdf"]
}

/** How long the operator keeps an uploaded media (30 days). */
export const MEDIA_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000

/** 131053, HTTP 400: the operator could not take the media (type or size). */
export const mediaUploadError = (details: string) => new GraphError(400, 131053, "(#131053) Media upload error", { details })

interface Session {
  readonly fileName: string
  readonly length: number
  readonly type: string
  offset: number
  readonly hash: ReturnType<typeof createHash>
}

export interface UploadedFile {
  readonly type: string
  readonly size: number
  readonly sha256: string
}

export interface PhoneMedia extends UploadedFile {
  readonly id: string
  readonly phoneNumberId: string
  readonly uploadedAt: number
  expiresAt: number
}

const token = (bytes: number) => randomBytes(bytes).toString("base64url")

export class MediaStore {
  private readonly sessions = new Map<string, Session>()
  private readonly handles = new Map<string, UploadedFile>()
  private readonly media = new Map<string, PhoneMedia>()
  /** Every upload the emulator took, for tests: `{kind: "handle" | "media", type, size}`. */
  readonly uploads: Array<{ readonly kind: "handle" | "media"; readonly type: string; readonly size: number; readonly at: number }> = []

  constructor(private readonly now: () => number) {}

  /** `POST /app/uploads`: a session for a file of this length and type. */
  startSession(fileName: string | null, length: string | null, type: string | null): string {
    if (type === null || type === "") throw GraphErrors.invalidParameter("The parameter file_type is required.")
    if (length === null || !/^\d+$/.test(length) || Number(length) === 0)
      throw GraphErrors.invalidParameter("The parameter file_length is required and must be a positive integer.")
    const limit = MEDIA_LIMITS[type]
    if (limit === undefined) throw GraphErrors.invalidParameter(`file_type ${type} is not supported.`)
    if (Number(length) > limit) throw GraphErrors.invalidParameter(`file_length ${length} exceeds the ${limit} bytes allowed for ${type}.`)
    const id = `upload:${token(18)}`
    this.sessions.set(id, { fileName: fileName ?? "file", length: Number(length), type, offset: 0, hash: createHash("sha256") })
    return id
  }

  /** `GET /{upload session}`: where to resume. */
  offsetOf(id: string): number | undefined {
    return this.sessions.get(id)?.offset
  }

  /** `POST /{upload session}` with `file_offset`: the bytes from the offset; the handle once the file is complete. */
  receive(id: string, offsetHeader: string | undefined, bytes: Buffer): { h: string } | { id: string; file_offset: number } {
    const session = this.sessions.get(id)
    if (session === undefined) throw GraphErrors.unknownObject(id)
    const offset = Number(offsetHeader)
    if (offsetHeader === undefined || !Number.isInteger(offset)) throw GraphErrors.invalidParameter("The header file_offset is required.")
    if (offset !== session.offset) throw GraphErrors.invalidParameter(`file_offset ${offset} does not match the session's offset ${session.offset}.`)
    if (session.offset + bytes.length > session.length) throw GraphErrors.invalidParameter("The bytes exceed the session's file_length.")
    session.hash.update(bytes)
    session.offset += bytes.length
    if (session.offset < session.length) return { id, file_offset: session.offset }
    this.sessions.delete(id)
    const h = `4::${token(24)}`
    this.handles.set(h, { type: session.type, size: session.length, sha256: session.hash.digest("hex") })
    this.uploads.push({ kind: "handle", type: session.type, size: session.length, at: this.now() })
    return { h }
  }

  handle(h: string): UploadedFile | undefined {
    return this.handles.get(h)
  }

  /** `POST /{phone}/media`: a media id for the number's sends. */
  upload(phoneNumberId: string, type: string, bytes: Buffer): string {
    const limit = MEDIA_LIMITS[type]
    if (limit === undefined) throw mediaUploadError(`Media type ${type} is not supported.`)
    if (bytes.length === 0) throw mediaUploadError("The file is empty.")
    if (bytes.length > limit) throw mediaUploadError(`The file is ${bytes.length} bytes: ${type} files are limited to ${limit} bytes.`)
    const id = String(10 ** 15 + Math.floor(Math.random() * 9 * 10 ** 15))
    const now = this.now()
    const sha256 = createHash("sha256").update(bytes).digest("hex")
    this.media.set(id, { id, phoneNumberId, type, size: bytes.length, sha256, uploadedAt: now, expiresAt: now + MEDIA_LIFETIME_MS })
    this.uploads.push({ kind: "media", type, size: bytes.length, at: now })
    return id
  }

  /** A number's media while the operator keeps it. */
  find(id: string): PhoneMedia | undefined {
    const media = this.media.get(id)
    return media !== undefined && media.expiresAt > this.now() ? media : undefined
  }

  /** Control: the operator drops a media now (as it does after 30 days). */
  expire(id: string): boolean {
    const media = this.media.get(id)
    if (media === undefined) return false
    media.expiresAt = this.now()
    return true
  }
}
