/**
 * Product feeds and their uploads (spec §4.1 feeds; GRAPH_API.md §8.4): a feed names how a
 * catalog's product file reads (delimiter, default currency), whether products missing from
 * a full upload are deleted, and optionally a schedule on which its URL is fetched. An
 * upload is one file, sent (multipart) or fetched from a URL; its rows upsert products by
 * `retailer_id`, and what changed goes to the operator as a batch (`source: feed`).
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { Currency } from "../shared/Money.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { CatalogId } from "./Catalog.js"
import { ProductBatchId } from "./ProductBatch.js"

/** `fed_…` */
export const FeedId = Id.kind("fed", "FeedId")
export type FeedId = Id.Of<typeof FeedId>
/** `fup_…` */
export const UploadId = Id.kind("fup", "FeedUploadId")
export type UploadId = Id.Of<typeof UploadId>

/** The operator's delimiter names (GRAPH_API.md §8.4). */
export const Delimiter = Schema.Literal("AUTODETECT", "COMMA", "TAB", "SEMICOLON", "BAR", "TILDE")
export type Delimiter = typeof Delimiter.Type
export const DELIMITER_CHAR: Readonly<Record<Exclude<Delimiter, "AUTODETECT">, string>> = {
  COMMA: ",",
  TAB: "\t",
  SEMICOLON: ";",
  BAR: "|",
  TILDE: "~"
}

export const Interval = Schema.Literal("HOURLY", "DAILY", "WEEKLY")
export type Interval = typeof Interval.Type

/** A URL to fetch: checked by the domain (`WebhookTransport.checkCallerUrl`, the rule flow endpoints use) when it is given. */
const HttpUrl = Schema.String

const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const Schedule = Schema.Struct({
  interval: Interval,
  url: HttpUrl,
  /** Hour of the day (UTC) for DAILY and WEEKLY; default 0. */
  hour: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 23)), { default: () => 0 }),
  /** Day of the week for WEEKLY, 0 = Sunday; default 0. */
  day_of_week: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 6)), { default: () => 0 })
}).annotations({ ...strict, identifier: "FeedSchedule" })
export type Schedule = typeof Schedule.Type

export const Feed = Schema.Struct({
  id: FeedId.schema,
  ...Owned,
  catalogId: CatalogId.schema,
  name: Schema.String,
  delimiter: Delimiter,
  defaultCurrency: Schema.NullOr(Schema.String),
  deletionEnabled: Schema.Boolean,
  schedule: Schema.NullOr(Schedule),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Feed extends Schema.Schema.Type<typeof Feed> {}

export const FeedResource = Schema.Struct({
  id: Feed.fields.id,
  catalogId: Wire.key(Feed.fields.catalogId, "catalog_id"),
  name: Feed.fields.name,
  delimiter: Feed.fields.delimiter,
  defaultCurrency: Wire.key(Feed.fields.defaultCurrency, "default_currency"),
  deletionEnabled: Wire.key(Feed.fields.deletionEnabled, "deletion_enabled"),
  schedule: Feed.fields.schedule,
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Feed" })

const Name = Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 200) || "must be 1 to 200 characters"))

/** `POST /chat/catalogs/{id}/feeds`. */
export const CreateFeed = Schema.Struct({
  name: Name,
  delimiter: Schema.optionalWith(Delimiter, { default: () => "AUTODETECT" as const }),
  default_currency: Schema.optional(Schema.NullOr(Currency)),
  deletion_enabled: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  schedule: Schema.optional(Schema.NullOr(Schedule))
}).annotations({ ...strict, identifier: "CreateFeed" })
export type CreateFeed = typeof CreateFeed.Type

/** `PATCH /chat/feeds/{id}`: fields left out stay; `schedule: null` removes the schedule. */
export const UpdateFeed = Schema.Struct({
  name: Schema.optional(Name),
  delimiter: Schema.optional(Delimiter),
  default_currency: Schema.optional(Schema.NullOr(Currency)),
  deletion_enabled: Schema.optional(Schema.Boolean),
  schedule: Schema.optional(Schema.NullOr(Schedule))
}).annotations({ ...strict, identifier: "UpdateFeed" })
export type UpdateFeed = typeof UpdateFeed.Type

export const UploadStatus = Schema.Literal("processing", "finished", "failed")
export const InputMethod = Schema.Literal("file", "url", "schedule")

export const Upload = Schema.Struct({
  id: UploadId.schema,
  feedId: FeedId.schema,
  ...Owned,
  catalogId: CatalogId.schema,
  inputMethod: InputMethod,
  filename: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  status: UploadStatus,
  numDetectedItems: Schema.Number,
  numPersistedItems: Schema.Number,
  numInvalidItems: Schema.Number,
  numDeletedItems: Schema.Number,
  /** Why a failed upload failed (a malformed file, a URL that could not be fetched). */
  error: Schema.NullOr(Schema.String),
  /** The batch that carries the upload's changes to the operator. */
  batchHandle: Schema.NullOr(ProductBatchId.schema),
  startedAt: Schema.Number,
  endedAt: Schema.NullOr(Schema.Number)
})
export interface Upload extends Schema.Schema.Type<typeof Upload> {}

export const UploadResource = Schema.Struct({
  id: Upload.fields.id,
  feedId: Wire.key(Upload.fields.feedId, "feed_id"),
  inputMethod: Wire.key(Upload.fields.inputMethod, "input_method"),
  filename: Upload.fields.filename,
  url: Upload.fields.url,
  status: Upload.fields.status,
  numDetectedItems: Wire.key(Upload.fields.numDetectedItems, "num_detected_items"),
  numPersistedItems: Wire.key(Upload.fields.numPersistedItems, "num_persisted_items"),
  numInvalidItems: Wire.key(Upload.fields.numInvalidItems, "num_invalid_items"),
  numDeletedItems: Wire.key(Upload.fields.numDeletedItems, "num_deleted_items"),
  error: Upload.fields.error,
  batchHandle: Wire.key(Upload.fields.batchHandle, "batch_handle"),
  startedAt: Wire.key(Time.IsoDateTime, "start_time"),
  endedAt: Wire.key(Schema.NullOr(Time.IsoDateTime), "end_time")
}).annotations({ identifier: "FeedUpload" })

/** `POST /chat/feeds/{id}/uploads` as JSON: a URL to fetch (through the SSRF guard). */
export const UrlUpload = Schema.Struct({ url: HttpUrl }).annotations({ ...strict, identifier: "FeedUrlUpload" })

/** One problem with one row of an upload. */
export const UploadError = Schema.Struct({
  row_number: Schema.Number.annotations({ description: "1-based line of the file (the header is line 1)" }),
  retailer_id: Schema.NullOr(Schema.String),
  field: Schema.NullOr(Schema.String),
  message: Schema.String,
  severity: Schema.Literal("fatal", "warning")
}).annotations({ identifier: "FeedUploadError" })
export type UploadError = typeof UploadError.Type

/** The position of an error in its upload's list (its row, then its order), inside the cursor. */
export const ErrorPosition = Pagination.Sequence("upload error")

export const Deleted = Schema.Struct({ id: FeedId.schema, deleted: Schema.Literal(true) })

/** The next run of a schedule after `after` (epoch ms, UTC). */
export const nextRun = (schedule: Schedule, after: number): number => {
  const HOUR = 3_600_000
  if (schedule.interval === "HOURLY") return (Math.floor(after / HOUR) + 1) * HOUR
  const d = new Date(after)
  let t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), schedule.hour)
  if (schedule.interval === "DAILY") return t > after ? t : t + 24 * HOUR
  const shift = (schedule.day_of_week - new Date(t).getUTCDay() + 7) % 7
  t += shift * 24 * HOUR
  return t > after ? t : t + 7 * 24 * HOUR
}
