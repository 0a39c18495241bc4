/**
 * The media module's ports: the rows (`MediaRepo`), the files (`MediaFiles`) and the
 * operator's upload endpoints (`MediaOperator`).
 */
import { Context, type Effect, type Option } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { StoreId } from "../shared/Tenant.js"
import type { OperatorAccount } from "../stores/Store.js"
import type { Media, MediaId, OperatorCopy } from "./Media.js"

/** Media rows, by store: both keys of a store see the same media (templates use them). */
export class MediaRepo extends Context.Tag("@switchboard/domain/MediaRepo")<
  MediaRepo,
  {
    readonly insert: (media: Media) => Effect.Effect<void>
    /** The media of this store; another store's id is none. */
    readonly find: (storeId: StoreId, id: MediaId) => Effect.Effect<Option.Option<Media>>
    /** Deletes the row; false when the store has no such media. */
    readonly remove: (storeId: StoreId, id: MediaId) => Effect.Effect<boolean>
    /** Records the operator's copy on one phone number (replacing an older one). */
    readonly setOperatorCopy: (storeId: StoreId, id: MediaId, phoneNumberId: string, copy: OperatorCopy) => Effect.Effect<void>
  }
>() {}

/** What `MediaFiles.keep` learnt of a file while copying it. */
export interface KeptFile {
  readonly size: number
  readonly sha256: string
  /** The first `Media.HEAD_BYTES` bytes (fewer for a shorter file). */
  readonly head: Uint8Array
}

/**
 * The media files: kept under the media directory, streamed (never read whole), one file
 * per media id.
 */
export class MediaFiles extends Context.Tag("@switchboard/domain/MediaFiles")<
  MediaFiles,
  {
    /** Copies the file at `source` (a request's spooled part) to the media's place, hashing it on the way. */
    readonly keep: (id: MediaId, source: string) => Effect.Effect<KeptFile>
    /** Where the media's bytes are (for the operator client to stream them). */
    readonly pathOf: (id: MediaId) => string
    /** Removes the media's file; nothing when it is gone already. */
    readonly remove: (id: MediaId) => Effect.Effect<void>
  }
>() {}

/** A file as the operator's upload endpoints take it. */
export interface UploadFile {
  readonly path: string
  readonly mimeType: string
  readonly size: number
  readonly filename: string
}

/**
 * The operator's uploads (GRAPH_API.md §4.2, issue 32): the resumable upload API (an upload
 * session on the app, then the bytes from `file_offset` 0: a handle, for a template's
 * example) and the phone number's media endpoint (a media id, for sends; the operator keeps
 * it 30 days).
 */
export class MediaOperator extends Context.Tag("@switchboard/domain/MediaOperator")<
  MediaOperator,
  {
    readonly uploadHandle: (account: OperatorAccount, file: UploadFile) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
    readonly uploadMedia: (account: OperatorAccount, file: UploadFile) => Effect.Effect<string, OperatorRejected | OperatorUnavailable>
  }
>() {}
