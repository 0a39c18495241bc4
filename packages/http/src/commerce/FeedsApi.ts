/**
 * Feed routes (spec §4.1, issue 12 item 5): a catalog's feeds, a feed, its uploads (a CSV or
 * TSV file sent as multipart in the field `file`, processed before the answer: 201; or JSON
 * `{"url": …}` fetched by the worker through the SSRF guard: 202), an upload and its errors
 * by row. Another store's ids answer 404 `resource_not_found`; a malformed file is a 400
 * naming `file` with the line.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart } from "@effect/platform"
import { Feed } from "@switchboard/domain"
import { Option, Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import { MultipartLimit } from "../BodyLimit.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"
const feed = {
  id: "fed_01M85GQ4V0W1X2Y3Z4A5B6C7D8",
  catalog_id: "cat_01M85GK8TB3E8BH2R1WY18AD8X",
  name: "Nightly export",
  delimiter: "AUTODETECT",
  default_currency: "USD",
  deletion_enabled: false,
  schedule: { interval: "DAILY", url: "https://shop.example.com/feeds/products.csv", hour: 3, day_of_week: 0 },
  created_at: time,
  updated_at: time
}
const upload = {
  id: "fup_01M85GR5W1X2Y3Z4A5B6C7D8E9",
  feed_id: feed.id,
  input_method: "file",
  filename: "products.csv",
  url: null,
  status: "finished",
  num_detected_items: 1200,
  num_persisted_items: 1197,
  num_invalid_items: 3,
  num_deleted_items: 0,
  error: null,
  batch_handle: "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q",
  start_time: time,
  end_time: time
}

/** A feed file: its largest accepted size. */
const FILE_LIMIT = 256 * 1024 * 1024

const FileUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }), {
  maxFileSize: Option.some(FILE_LIMIT),
  maxParts: Option.some(4),
  maxFieldSize: 64 * 1024
})
const UploadPath = Schema.Struct({ id: Schema.String, uploadId: Schema.String })

export class FeedsGroup extends HttpApiGroup.make("feeds")
  .add(Endpoints.listOf("list", "/catalogs/:id/feeds", Feed.FeedId.schema, {}, Feed.FeedResource, "FeedPage"))
  .add(Endpoints.createIn("create", "/catalogs/:id/feeds", Feed.CreateFeed, Feed.FeedResource, [ApiError.ResourceNotFound]))
  .add(Endpoints.getOne("get", "/feeds/:id", Feed.FeedResource))
  .add(Endpoints.update("update", "/feeds/:id", Feed.UpdateFeed, Feed.FeedResource, [ApiError.ResourceNotFound]))
  .add(Endpoints.remove("remove", "/feeds/:id", Feed.Deleted, [ApiError.ResourceNotFound]))
  .add(Endpoints.listOf("listUploads", "/feeds/:id/uploads", Feed.UploadId.schema, {}, Feed.UploadResource, "FeedUploadPage"))
  .add(
    HttpApiEndpoint.post("upload", "/feeds/:id/uploads")
      .setPath(IdPath)
      .setPayload(Schema.Union(Feed.UrlUpload, FileUpload))
      .addSuccess(Feed.UploadResource, { status: 201 })
      .addSuccess(Feed.UploadResource.annotations({ identifier: "FeedUploadAccepted" }), { status: 202 })
      .addError(ApiError.ResourceNotFound)
      .annotate(MultipartLimit, FILE_LIMIT + 1024 * 1024)
  )
  .add(Endpoints.getOne("getUpload", "/feeds/:id/uploads/:uploadId", Feed.UploadResource, UploadPath))
  .add(
    Endpoints.listOf(
      "uploadErrors",
      "/feeds/:id/uploads/:uploadId/errors",
      Feed.ErrorPosition,
      {},
      Feed.UploadError,
      "FeedUploadErrorPage",
      UploadPath
    )
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { feeds: "Product feeds: CSV or TSV files (sent, fetched from a URL, or on a schedule) that upsert a catalog's products" },
    ids: { feeds: feed.id },
    operations: {
      "feeds.list": { summary: "List a catalog's feeds", response: { data: [feed], next_cursor: null } },
      "feeds.create": {
        summary: "Create a feed",
        description:
          "`delimiter`: AUTODETECT (default), COMMA, TAB, SEMICOLON, BAR or TILDE. `default_currency` prices rows without a currency. `deletion_enabled` deletes the products a full upload lacks. A `schedule` (HOURLY, DAILY or WEEKLY, with a `url`) fetches the URL on schedule.",
        request: { name: feed.name, default_currency: "USD", schedule: feed.schedule },
        response: feed
      },
      "feeds.get": { summary: "Get a feed", response: feed },
      "feeds.update": {
        summary: "Change a feed",
        description: "`schedule: null` removes the schedule.",
        request: { deletion_enabled: true },
        response: { ...feed, deletion_enabled: true }
      },
      "feeds.remove": {
        summary: "Delete a feed",
        description: "Its uploads go with it; the products stay.",
        response: { id: feed.id, deleted: true }
      },
      "feeds.listUploads": { summary: "List a feed's uploads", response: { data: [upload], next_cursor: null } },
      "feeds.upload": {
        summary: "Upload a feed file",
        description:
          'A file (multipart/form-data, field `file`, up to 256 MiB) is read, streaming, before the answer: 201 with the counts; a malformed file (unclosed quote, a row whose cells do not match the header, a header without a retailer_id or id column: a wrong delimiter) is a 400 naming `file` and its line, and nothing is written. JSON `{"url": …}` is fetched by the worker through the SSRF guard: 202, then poll the upload. Columns: ours (retailer_id, name, price in minor units, currency, image_url, url, …) or the operator\'s feed names (id, title, price as `19.99 USD`, link, image_link, …).',
        request: { url: "https://shop.example.com/feeds/products.csv" },
        response: {
          ...upload,
          input_method: "url",
          filename: null,
          url: "https://shop.example.com/feeds/products.csv",
          status: "processing",
          num_detected_items: 0,
          num_persisted_items: 0,
          num_invalid_items: 0,
          batch_handle: null,
          end_time: null
        }
      },
      "feeds.getUpload": { summary: "Get an upload", description: "Its status (processing, finished, failed) and counts.", response: upload },
      "feeds.uploadErrors": {
        summary: "An upload's errors",
        description: "Each invalid row with its line number (the header is line 1), the field and the reason; paged.",
        response: {
          data: [
            {
              row_number: 18,
              retailer_id: "SKU-17",
              field: "price",
              message: "must be integer minor units (1999) or an amount with its currency (19.99 USD)",
              severity: "fatal"
            }
          ],
          next_cursor: null
        }
      }
    }
  }) {}
