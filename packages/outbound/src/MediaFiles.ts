/**
 * The domain's `MediaFiles` port on the local disk: one file per media id under the media
 * directory (`SWITCHBOARD_MEDIA_DIR`, by default `media/` beside the SQLite database or
 * `./data/media`). A file is copied from the request's spooled part by streams, hashed
 * (SHA-256) on the way, its first bytes kept for the type check: memory stays flat whatever
 * the size. A file is written under a temporary name and renamed once complete.
 */
import { MediaPorts, Media } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { createReadStream, createWriteStream, mkdirSync } from "node:fs"
import { rename, rm } from "node:fs/promises"
import { join } from "node:path"
import { Transform } from "node:stream"
import { pipeline } from "node:stream/promises"

export interface MediaFilesOptions {
  /** The directory of the media files (created when missing). */
  readonly directory: string
}

export const make = (options: MediaFilesOptions): MediaPorts.MediaFiles["Type"] => {
  const pathOf = (id: string) => join(options.directory, id.replace(/[^A-Za-z0-9_]/g, "_"))
  return {
    pathOf,
    keep: (id, source) =>
      Effect.promise(async () => {
        const hash = createHash("sha256")
        const head: Array<Buffer> = []
        let headBytes = 0
        let size = 0
        const tap = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk)
            size += chunk.length
            if (headBytes < Media.HEAD_BYTES) {
              const part = chunk.subarray(0, Media.HEAD_BYTES - headBytes)
              head.push(Buffer.from(part))
              headBytes += part.length
            }
            done(null, chunk)
          }
        })
        mkdirSync(options.directory, { recursive: true })
        const target = pathOf(id)
        const partial = `${target}.partial`
        await pipeline(createReadStream(source), tap, createWriteStream(partial))
        await rename(partial, target)
        return { size, sha256: hash.digest("hex"), head: new Uint8Array(Buffer.concat(head)) }
      }),
    remove: (id) => Effect.promise(() => rm(pathOf(id), { force: true }))
  }
}

export const layer = (options: MediaFilesOptions): Layer.Layer<MediaPorts.MediaFiles> => Layer.sync(MediaPorts.MediaFiles, () => make(options))
