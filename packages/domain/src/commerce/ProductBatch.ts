/**
 * Product batches (spec §4.2, DESIGN.md "Commerce"): many product writes taken at once and
 * carried to the operator by the worker, in `items_batch` chunks of at most 5,000 under the
 * catalog's call quota. The batch's id is the `handle` the caller tracks it by.
 *
 * Every write to the operator goes through a batch, whatever asked for it (`source`):
 * the batch route (`api`), a single product write (`product`), a catalog sync (`sync`) or a
 * feed upload (`feed`).
 *
 *   queued ──(first chunk sent)──► in_progress ──(every request has its outcome)──► finished
 *      └──────────────(the operator refused the catalog for good)────────────────► failed
 *
 * A request that fails our own check never reaches the operator: it is an error of the
 * batch at once (code `validation_failed`, with the field). The operator's verdicts come
 * back per request, as errors with the operator's type (`image_quality`,
 * `policy_violation`, ...), and become the product's errors too.
 */
import { Effect, Schema } from "effect"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { Owned, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { CatalogId } from "./Catalog.js"
import type { ProductData } from "./Product.js"
import type { Method } from "./ProductRules.js"

/** `pbh_…`: the batch's handle. */
export const ProductBatchId = Id.kind("pbh", "ProductBatchId")
export type ProductBatchId = Id.Of<typeof ProductBatchId>

/** Requests per `items_batch` call (the operator's limit, GRAPH_API.md §8.3). */
export const CHUNK_SIZE = 5000
/** Requests per batch route call. */
export const MAX_REQUESTS = 50_000

export const Status = Schema.Literal("queued", "in_progress", "finished", "failed")
export type Status = typeof Status.Type

export const Source = Schema.Literal("api", "product", "sync", "feed")
export type Source = typeof Source.Type

export const ProductBatch = Schema.Struct({
  id: ProductBatchId.schema,
  ...Owned,
  catalogId: CatalogId.schema,
  source: Source,
  status: Status,
  allowUpsert: Schema.Boolean,
  /** Requests in the batch. */
  total: Schema.Number,
  /** Requests with an outcome (ours or the operator's). */
  processed: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  finishedAt: Schema.NullOr(Schema.Number)
})
export interface ProductBatch extends Schema.Schema.Type<typeof ProductBatch> {}

/**
 * A new batch of `total` requests, dated now: queued, or finished at once when it has
 * nothing to send; the `invalid` requests that failed our own check are processed already,
 * as failed.
 */
export const fresh = (
  tenant: Tenant,
  catalogId: CatalogId,
  input: { readonly source: Source; readonly allowUpsert: boolean; readonly total: number; readonly invalid?: number; readonly done?: boolean }
): Effect.Effect<ProductBatch> =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const invalid = input.invalid ?? 0
    return {
      id: yield* ProductBatchId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      catalogId,
      source: input.source,
      status: input.done === true ? "finished" : "queued",
      allowUpsert: input.allowUpsert,
      total: input.total,
      processed: invalid,
      succeeded: 0,
      failed: invalid,
      createdAt: now,
      updatedAt: now,
      finishedAt: input.done === true ? now : null
    }
  })

/** One error of a batch: the request's index, its retailer id, and why. */
export const BatchError = Schema.Struct({
  index: Schema.Number,
  retailer_id: Schema.NullOr(Schema.String),
  /** `validation_failed` (our check), or the operator's type in lower case: `image_quality`, `policy_violation`, `item_not_found`, ... */
  code: Schema.String,
  message: Schema.String,
  /** The field, for our own check's errors. */
  field: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ProductBatchError" })
export type BatchError = typeof BatchError.Type

/** The position of an error in its batch's list, as the `cursor` of the batch route carries it. */
export const ErrorPosition = Pagination.Sequence("batch error")

/** A request as a chunk keeps it: its index in the batch, the method and the checked fields (wire names). */
export interface ChunkRequest {
  readonly index: number
  readonly method: Method
  readonly data: Partial<ProductData> & { readonly retailer_id: string }
  /**
   * An UPDATE that carries only the retailer id: it sends the product as stored here when
   * the chunk is sent (`BatchJob.requestsOf`). Feed uploads write their products before
   * their batch, so their chunks keep a retailer id per request instead of a copy of the
   * product (a copy was a third of an upload's database time).
   */
  readonly stored?: true
}

/** A chunk of a batch (at most `CHUNK_SIZE` requests), sent in one `items_batch` call. */
export interface Chunk {
  readonly batchId: ProductBatchId
  readonly seq: number
  readonly requests: ReadonlyArray<ChunkRequest>
  /** The operator's handle, once it took the chunk. */
  readonly handle: string | null
  readonly sentAt: number | null
  readonly nextPollAt: number | null
}

/** `POST /chat/catalogs/{id}/products/batch`. */
export const SubmitBatch = Schema.Struct({
  // each request is checked by `Batches.check` (a bad one is an error of the batch, not of the
  // body): decoding 50,000 structs here cost more than the whole check
  requests: Schema.Array(
    Schema.Unknown.annotations({
      identifier: "ProductBatchRequest",
      description: '`{"method": "CREATE" | "UPDATE" | "DELETE", "data": {…the product\'s fields (see ProductInput); retailer_id always}}`',
      jsonSchema: {
        type: "object",
        required: ["method", "data"],
        properties: { method: { type: "string", enum: ["CREATE", "UPDATE", "DELETE"] }, data: { type: "object" } }
      }
    })
  ).pipe(
    Schema.minItems(1, { message: () => "must hold 1 to 50,000 requests" }),
    Schema.maxItems(MAX_REQUESTS, { message: () => "must hold 1 to 50,000 requests" })
  ),
  allow_upsert: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "SubmitProductBatch" })
export type SubmitBatch = typeof SubmitBatch.Type

/** The batch as the API shows it, with a page of its errors. */
export const BatchResource = Schema.Struct({
  handle: ProductBatchId.schema,
  catalog_id: CatalogId.schema,
  source: Source,
  status: Status,
  allow_upsert: Schema.Boolean,
  total: Schema.Number,
  processed: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  errors: Schema.Array(BatchError),
  /** Pass as `cursor` for the next page of `errors`; null on the last. */
  errors_next_cursor: Schema.NullOr(Schema.String),
  created_at: Time.IsoDateTime,
  updated_at: Time.IsoDateTime,
  finished_at: Schema.NullOr(Time.IsoDateTime)
}).annotations({ identifier: "ProductBatch" })

/** A batch in a list (without its errors). */
export const BatchSummary = Schema.Struct({
  id: Wire.key(ProductBatch.fields.id, "handle"),
  catalogId: Wire.key(ProductBatch.fields.catalogId, "catalog_id"),
  source: ProductBatch.fields.source,
  status: ProductBatch.fields.status,
  allowUpsert: Wire.key(ProductBatch.fields.allowUpsert, "allow_upsert"),
  total: ProductBatch.fields.total,
  processed: ProductBatch.fields.processed,
  succeeded: ProductBatch.fields.succeeded,
  failed: ProductBatch.fields.failed,
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at"),
  finishedAt: Wire.key(Schema.NullOr(Time.IsoDateTime), "finished_at")
}).annotations({ identifier: "ProductBatchSummary" })

/** The caller events of batches, by source (feeds report their own upload event). */
export const completedEvent = (source: Source): string | undefined =>
  source === "sync" ? "catalog.sync.completed" : source === "feed" ? undefined : "product_batch.completed"

/** The counts a completion event carries. */
export const summaryOf = (b: ProductBatch) => ({
  handle: b.id,
  catalog_id: b.catalogId,
  source: b.source,
  status: b.status,
  total: b.total,
  succeeded: b.succeeded,
  failed: b.failed
})
