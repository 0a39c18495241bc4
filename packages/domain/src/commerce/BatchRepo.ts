/**
 * Storage of product batches: the batch, its chunks (the requests, as checked, in groups
 * of at most 5,000) and its errors. `BatchRepo` is what routes reach (scoped by the
 * tenant); `BatchWorkRepo` is what the worker's batch job uses, by batch id alone.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { CatalogId } from "./Catalog.js"
import type { BatchError, ChunkRequest, ProductBatch, ProductBatchId } from "./ProductBatch.js"

/** A chunk as the batch job schedules it (its requests are read when it is sent or applied). */
export interface ChunkState {
  readonly seq: number
  readonly size: number
  /** The operator's handle once it took the chunk; null while it waits to be sent. */
  readonly handle: string | null
  readonly sentAt: number | null
  /** When to ask the operator about it next (sent chunks). */
  readonly nextPollAt: number | null
}

export class BatchRepo extends Context.Tag("@switchboard/domain/BatchRepo")<
  BatchRepo,
  {
    /** Stores the batch with its chunks and its errors found so far. Joins the caller's transaction. */
    readonly create: (
      tenant: Tenant,
      batch: ProductBatch,
      chunks: ReadonlyArray<ReadonlyArray<ChunkRequest>>,
      errors: ReadonlyArray<BatchError>
    ) => Effect.Effect<void>
    /** Adds chunk `seq` to a batch being built (a feed upload builds its batch as it reads the file). */
    readonly appendChunk: (tenant: Tenant, batch: ProductBatch, seq: number, requests: ReadonlyArray<ChunkRequest>) => Effect.Effect<void>
    /** Sets the total of a batch built by `appendChunk` (and finishes it at `now` when it has no chunk). */
    readonly seal: (tenant: Tenant, id: ProductBatchId, total: number, now: number) => Effect.Effect<void>
    readonly find: (tenant: Tenant, id: ProductBatchId) => Effect.Effect<Option.Option<ProductBatch>>
    /** The catalog's batches, newest first, those with id < `after` when given. */
    readonly list: (
      tenant: Tenant,
      catalogId: CatalogId,
      page: PageRequest & { readonly after?: ProductBatchId | undefined }
    ) => Effect.Effect<Slice<ProductBatch>>
    /** The batch's errors by (index, order found), after position `after` when given. */
    readonly errors: (
      tenant: Tenant,
      id: ProductBatchId,
      page: { readonly limit: number; readonly after?: number | undefined }
    ) => Effect.Effect<Slice<BatchError & { readonly position: number }>>
    /** Whether the catalog has a batch that is not finished (queued or in progress). */
    readonly hasOpen: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<boolean>
    /** Forgets the catalog's batches (chunks and errors too). */
    readonly removeCatalog: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<void>
  }
>() {}

export class BatchWorkRepo extends Context.Tag("@switchboard/domain/BatchWorkRepo")<
  BatchWorkRepo,
  {
    readonly find: (id: ProductBatchId) => Effect.Effect<Option.Option<ProductBatch>>
    /** The batch's chunks that are not finished, by seq. */
    readonly openChunks: (id: ProductBatchId) => Effect.Effect<ReadonlyArray<ChunkState>>
    readonly chunkRequests: (id: ProductBatchId, seq: number) => Effect.Effect<ReadonlyArray<ChunkRequest>>
    /** The send times of chunks of the catalog sent at or after `since` (any batch), ascending. */
    readonly sentSince: (catalogId: CatalogId, since: number) => Effect.Effect<ReadonlyArray<number>>
    /** Records the operator's handle of a chunk at once; false when it had one already (nothing changes). */
    readonly markSent: (id: ProductBatchId, seq: number, handle: string, at: number, nextPollAt: number) => Effect.Effect<boolean>
    readonly setNextPoll: (id: ProductBatchId, seq: number, at: number) => Effect.Effect<void>
    /**
     * The chunk's outcome: its errors are added to the batch's (positions continue), the
     * counts grow by the chunk's `succeeded` and `failed`, and the chunk is finished; the
     * batch becomes `in_progress`, or `finished` at `now` when nothing is left. False (and
     * nothing changes) when the chunk was finished already. Joins the caller's transaction.
     */
    readonly finishChunk: (
      id: ProductBatchId,
      seq: number,
      outcome: { readonly succeeded: number; readonly failed: number; readonly errors: ReadonlyArray<BatchError> },
      now: number
    ) => Effect.Effect<boolean>
    /** Sets the status (and `finished_at` for a final one). */
    readonly setStatus: (id: ProductBatchId, status: ProductBatch["status"], now: number) => Effect.Effect<void>
  }
>() {}
