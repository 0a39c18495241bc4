/** The media handlers: a file over the largest size the operator takes is 413 before anything is kept. */
import { HttpApiBuilder } from "@effect/platform"
import { Media, Medias } from "@switchboard/domain"
import { Effect } from "effect"
import { stat } from "node:fs/promises"
import * as ApiError from "../ApiError.js"
import { apiOf } from "../internal/Handlers.js"
import { MediaGroup } from "./Api.js"

export const MediaLive = HttpApiBuilder.group(apiOf(MediaGroup), "media", (h) =>
  h
    .handle("upload", ({ payload }) =>
      Effect.gen(function* () {
        const { size } = yield* Effect.promise(() => stat(payload.file.path))
        if (size > Media.LARGEST) return yield* new ApiError.PayloadTooLarge({ limitBytes: Media.LARGEST })
        return yield* Medias.upload({ path: payload.file.path, name: payload.file.name, contentType: payload.file.contentType })
      })
    )
    .handle("get", ({ path }) => Medias.get(path.id))
    .handle("remove", ({ path }) => Medias.remove(path.id))
)
