/** The feed handlers: each route is its use case; the endpoints' schemas render the answers. */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Feed, Feeds } from "@switchboard/domain"
import { Effect, Schema } from "effect"
import { apiOf } from "../internal/Handlers.js"
import { FeedsGroup } from "./FeedsApi.js"

const accepted = (upload: Feed.Upload) =>
  Effect.flatMap(Schema.encode(Feed.UploadResource)(upload), (body) => HttpServerResponse.json(body, { status: 202 })).pipe(Effect.orDie)

export const FeedsLive = HttpApiBuilder.group(apiOf(FeedsGroup), "feeds", (h) =>
  h
    .handle("list", ({ path, urlParams }) => Feeds.list(path.id, urlParams))
    .handle("create", ({ path, payload }) => Feeds.create(path.id, payload))
    .handle("get", ({ path }) => Feeds.get(path.id))
    .handle("update", ({ path, payload }) => Feeds.update(path.id, payload))
    .handle("remove", ({ path }) => Feeds.remove(path.id))
    .handle("listUploads", ({ path, urlParams }) => Feeds.listUploads(path.id, urlParams))
    .handle("upload", ({ path, payload }) =>
      Effect.gen(function* () {
        if ("url" in payload) return yield* Effect.flatMap(Feeds.uploadUrl(path.id, payload.url), accepted)
        return yield* Feeds.uploadFile(path.id, payload.file)
      })
    )
    .handle("getUpload", ({ path }) => Feeds.getUpload(path.id, path.uploadId))
    .handle("uploadErrors", ({ path, urlParams }) => Feeds.uploadErrors(path.id, path.uploadId, urlParams))
)
