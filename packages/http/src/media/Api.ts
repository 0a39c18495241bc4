/**
 * Media routes (issue 32): upload a file (multipart, field `file`, spooled to disk by the
 * intake, never buffered whole), read it, delete it. A type or size the operator would
 * refuse is a 400 naming `file`; a file over the largest size the operator takes is 413.
 * Another store's media is 404.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart } from "@effect/platform"
import { Media } from "@switchboard/domain"
import { Option, Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import { MultipartLimit } from "../BodyLimit.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"

const media = {
  id: "med_01M85GQ4V0W1X2Y3Z4A5B6C7D8",
  mime_type: "image/png",
  size: 48213,
  sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  created_at: "2026-05-04T09:30:00.000Z"
}

const FileUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }), {
  maxFileSize: Option.some(Media.LARGEST),
  maxParts: Option.some(4),
  maxFieldSize: 64 * 1024
})

export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/media")
      .setPayload(FileUpload)
      .addSuccess(Media.MediaResource, { status: 201 })
      .addError(ApiError.TooLarge)
      .annotate(MultipartLimit, Media.LARGEST + 1024 * 1024)
  )
  .add(Endpoints.getOne("get", "/media/:id", Media.MediaResource))
  .add(Endpoints.remove("remove", "/media/:id", Media.Deleted, [ApiError.ResourceNotFound]))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { media: "Media: images, videos and documents for template headers, uploaded once and sent to the operator as each use needs" },
    ids: { media: media.id },
    operations: {
      "media.upload": {
        summary: "Upload a media file",
        description:
          "multipart/form-data, field `file` (its part's Content-Type is the declared type). The type is checked against the file's first bytes, then against the operator's table: image/jpeg and image/png up to 5 MiB, video/mp4 and video/3gpp up to 16 MiB, audio (aac, amr, mpeg, mp4, ogg) up to 16 MiB, documents (pdf, text, Word, Excel, PowerPoint) up to 100 MiB, image/webp stickers up to 500 KiB. A refused type or size is a 400 naming `file`; over 100 MiB is 413.",
        response: media
      },
      "media.get": { summary: "Get a media", response: media },
      "media.remove": {
        summary: "Delete a media",
        description: "The file goes; templates created with it and messages sent keep what the operator holds.",
        response: { id: media.id, deleted: true }
      }
    }
  }) {}
