/**
 * The media use cases: upload (`POST /chat/media`), read, delete, and what the template and
 * send use cases need of a media: its example handle, its media id on a phone number.
 */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { CurrentStore, type StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { OperatorAccount } from "../stores/Store.js"
import * as Media from "./Media.js"
import { MediaFiles, MediaOperator, MediaRepo, type UploadFile } from "./MediaPorts.js"

/** What resolving and uploading a media needs. */
export type Requirements = MediaRepo | MediaFiles | MediaOperator

/** The uploaded part as the route gives it. */
export interface Part {
  readonly path: string
  readonly name: string
  readonly contentType: string
}

/**
 * Keeps the file, then checks it: a type the operator refuses, content that is not the type
 * declared, or a size over the type's limit is a 400 naming `file` (and the file goes).
 */
export const upload = (part: Part) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const files = yield* MediaFiles
    const id = yield* Media.MediaId.generate
    const kept = yield* files.keep(id, part.path)
    const refuse = (message: string) => Effect.zipRight(files.remove(id), Effect.fail(Errors.ValidationFailed.of("file", message)))
    if (kept.size === 0) return yield* refuse("is empty")
    const detected = Media.detect(kept.head, part.contentType)
    if ("problem" in detected) return yield* refuse(detected.problem)
    const rule = Media.TYPES[detected.mimeType]
    if (kept.size > rule.maxBytes) {
      return yield* refuse(`is ${kept.size} bytes: the operator takes ${detected.mimeType} files up to ${rule.maxBytes} bytes`)
    }
    const media: Media.Media = {
      id,
      storeId: tenant.storeId,
      mimeType: detected.mimeType,
      size: kept.size,
      sha256: kept.sha256,
      filename: part.name === "" ? null : part.name.slice(0, 240),
      operatorCopies: {},
      createdAt: yield* Time.now
    }
    yield* Effect.onError((yield* MediaRepo).insert(media), () => files.remove(id))
    return media
  })

/** The store's media by its id; another store's (or a malformed id) is 404. */
export const find = (storeId: StoreId, raw: string) =>
  Effect.flatMap(MediaRepo, (repo) => Id.lookup(Media.MediaId, "media", raw, (id) => repo.find(storeId, id)))

export const get = (raw: string) => Effect.flatMap(CurrentStore, ({ tenant }) => find(tenant.storeId, raw))

/** Deletes the row, then the file. Templates and messages already sent keep what the operator holds. */
export const remove = (raw: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const media = yield* find(tenant.storeId, raw)
    yield* (yield* MediaRepo).remove(tenant.storeId, media.id)
    yield* (yield* MediaFiles).remove(media.id)
    return { id: media.id, deleted: true as const }
  })

const fileOf = (media: Media.Media) =>
  Effect.map(
    MediaFiles,
    (files): UploadFile => ({
      path: files.pathOf(media.id),
      mimeType: media.mimeType,
      size: media.size,
      filename: media.filename ?? `${media.id}`
    })
  )

/** A template example: uploaded through the resumable upload API each time a template needs it (handles are single-use examples). */
export const exampleHandle = (account: OperatorAccount, media: Media.Media) =>
  Effect.flatMap(fileOf(media), (file) => Effect.flatMap(MediaOperator, (operator) => operator.uploadHandle(account, file)))

/**
 * The media id of `media` on the account's phone number: the copy uploaded before while the
 * operator still keeps it (`OPERATOR_COPY_MS`), else a new upload, recorded.
 */
export const operatorMediaId = (account: OperatorAccount, media: Media.Media) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const copy = media.operatorCopies[account.phoneNumberId]
    if (copy !== undefined && now - copy.uploadedAt < Media.OPERATOR_COPY_MS) return copy.id
    const id = yield* (yield* MediaOperator).uploadMedia(account, yield* fileOf(media))
    yield* (yield* MediaRepo).setOperatorCopy(media.storeId, media.id, account.phoneNumberId, { id, uploadedAt: now })
    return id
  })

/**
 * A new upload of `media` to the account's phone number, recorded: after the operator refused
 * the copy it should still keep (expired early, or unknown on this number).
 */
export const freshOperatorMediaId = (account: OperatorAccount, media: Media.Media) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const id = yield* (yield* MediaOperator).uploadMedia(account, yield* fileOf(media))
    yield* (yield* MediaRepo).setOperatorCopy(media.storeId, media.id, account.phoneNumberId, { id, uploadedAt: now })
    return id
  })

/** The media a field names, as a 400 on that field when the store has none by that id. */
export const named = (storeId: StoreId, raw: string, path: string) =>
  Effect.catchTag(find(storeId, raw), "ResourceNotFound", () =>
    Effect.fail(Errors.ValidationFailed.of(path, `names no media of this store (${raw})`))
  )

/** A media of another kind than the header takes. */
export const wrongKind = (path: string, mimeType: string, wanted: string) =>
  Errors.ValidationFailed.of(path, `is a ${mimeType} file: the header takes a ${wanted}`)
