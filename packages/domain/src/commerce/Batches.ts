/**
 * Product batch routes (spec §4.2) and the one way every product write reaches the
 * operator: `queue` records a batch (its requests checked, in chunks of at most 5,000) and
 * the job that carries it (`BatchJob`), in one transaction. The batch route, single product
 * writes, a catalog sync and feed uploads all queue batches.
 */
import { Effect, Option } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { inTransaction } from "../jobs/Transactor.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Module from "../shared/Module.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { BatchRepo } from "./BatchRepo.js"
import type { CatalogId } from "./Catalog.js"
import * as Catalogs from "./Catalogs.js"
import * as ProductBatch from "./ProductBatch.js"
import * as ProductRules from "./ProductRules.js"
import { BatchJobKind } from "./BatchJob.js"

/** Emits the batch's completion event (by its source), in the caller's transaction. */
export const emitCompleted = (tenant: Tenant, batch: ProductBatch.ProductBatch) => {
  const type = ProductBatch.completedEvent(batch.source)
  return type === undefined ? Effect.void : Webhooks.emit(tenant, type, ProductBatch.summaryOf(batch))
}

/**
 * Records a batch of `total` requests: `requests` (checked) go to the operator through the
 * batch job; `errors` are those that failed our check (already processed, as failed).
 * A batch with nothing to send is finished at once.
 */
export const queue = (
  tenant: Tenant,
  catalogId: CatalogId,
  input: {
    readonly source: ProductBatch.Source
    readonly allowUpsert: boolean
    readonly total: number
    readonly requests: ReadonlyArray<ProductBatch.ChunkRequest>
    readonly errors: ReadonlyArray<ProductBatch.BatchError>
  }
) =>
  inTransaction(
    Effect.gen(function* () {
      const done = input.requests.length === 0
      const invalid = new Set(input.errors.map((e) => e.index)).size
      const batch = yield* ProductBatch.fresh(tenant, catalogId, {
        source: input.source,
        allowUpsert: input.allowUpsert,
        total: input.total,
        invalid,
        done
      })
      const chunks: Array<ReadonlyArray<ProductBatch.ChunkRequest>> = []
      for (let i = 0; i < input.requests.length; i += ProductBatch.CHUNK_SIZE) chunks.push(input.requests.slice(i, i + ProductBatch.CHUNK_SIZE))
      yield* (yield* BatchRepo).create(tenant, batch, chunks, input.errors)
      if (done) yield* emitCompleted(tenant, batch)
      else yield* (yield* JobQueue).enqueue(Module.job(BatchJobKind, { batchId: batch.id }, { storeId: tenant.storeId }))
      return batch
    })
  )

/**
 * Checks every request of a batch body: those that fail are errors of the batch (with
 * their index, retailer id and field); a retailer id twice in one batch refuses the whole
 * body (400), since the operator would apply the two in an unknown order.
 */
export const check = (body: ProductBatch.SubmitBatch) =>
  Effect.gen(function* () {
    const requests: Array<ProductBatch.ChunkRequest> = []
    const errors: Array<ProductBatch.BatchError> = []
    const seen = new Map<string, number>()
    for (let index = 0; index < body.requests.length; index++) {
      const request = body.requests[index] as { readonly method?: unknown; readonly data?: unknown } | null
      const method = typeof request === "object" && request !== null ? request.method : undefined
      const data = typeof request === "object" && request !== null ? request.data : undefined
      const root = `requests[${index}].data`
      if (method !== "CREATE" && method !== "UPDATE" && method !== "DELETE") {
        const rid = typeof data === "object" && data !== null ? (data as { retailer_id?: unknown }).retailer_id : undefined
        errors.push({
          index,
          retailer_id: typeof rid === "string" ? rid : null,
          code: "validation_failed",
          message: "method must be CREATE, UPDATE or DELETE",
          field: "method"
        })
        continue
      }
      const rid = typeof data === "object" && data !== null ? (data as { retailer_id?: unknown }).retailer_id : undefined
      if (typeof rid === "string") {
        const first = seen.get(rid)
        if (first !== undefined)
          return yield* Effect.fail(
            Errors.ValidationFailed.of(`${root}.retailer_id`, `'${rid}' is also in requests[${first}]: a retailer_id may appear once per batch`)
          )
        seen.set(rid, index)
      }
      const checked = ProductRules.check(method, data, root)
      if (checked.ok) requests.push({ index, method, data: checked.data })
      else
        for (const issue of checked.issues)
          errors.push({
            index,
            retailer_id: typeof rid === "string" ? rid : null,
            code: "validation_failed",
            message: issue.message,
            field: issue.path.startsWith(`${root}.`) ? issue.path.slice(root.length + 1) : null
          })
    }
    return { requests, errors }
  })

/** `POST /chat/catalogs/{id}/products/batch`: 202 with the handle. */
export const submit = (catalogId: string, body: ProductBatch.SubmitBatch) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const { requests, errors } = yield* check(body)
    const batch = yield* queue(tenant, catalog.id, { source: "api", allowUpsert: body.allow_upsert, total: body.requests.length, requests, errors })
    return yield* render(tenant, batch, { limit: 100 })
  })

const RESOURCE = "product batch"

/** The tenant's batch `handle` of catalog `catalogId`. */
const lookup = (tenant: Tenant, catalogId: string, handle: string) =>
  Effect.gen(function* () {
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const repo = yield* BatchRepo
    const batch = yield* Id.lookup(ProductBatch.ProductBatchId, RESOURCE, handle, (id) => repo.find(tenant, id))
    if (batch.catalogId !== catalog.id) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: RESOURCE, id: handle }))
    return batch
  })

const render = (tenant: Tenant, batch: ProductBatch.ProductBatch, page: { readonly limit: number; readonly after?: number | undefined }) =>
  Effect.gen(function* () {
    const slice = yield* (yield* BatchRepo).errors(tenant, batch.id, page)
    const errors = Pagination.pageOf(slice, ProductBatch.ErrorPosition, (e) => e.position)
    return {
      handle: batch.id,
      catalog_id: batch.catalogId,
      source: batch.source,
      status: batch.status,
      allow_upsert: batch.allowUpsert,
      total: batch.total,
      processed: batch.processed,
      succeeded: batch.succeeded,
      failed: batch.failed,
      errors: errors.data.map(({ position: _, ...e }) => e),
      errors_next_cursor: errors.next_cursor,
      created_at: batch.createdAt,
      updated_at: batch.updatedAt,
      finished_at: batch.finishedAt
    }
  })

/** `GET /chat/catalogs/{id}/products/batch/{handle}`: the batch with a page of its errors (`limit`, `cursor`). */
export const get = (catalogId: string, handle: string, query: { readonly limit: number; readonly cursor?: number | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const batch = yield* lookup(tenant, catalogId, handle)
    return yield* render(tenant, batch, { limit: query.limit, after: query.cursor })
  })

/** `GET /chat/catalogs/{id}/products/batch`: the catalog's batches, newest first. */
export const list = (catalogId: string, query: { readonly limit: number; readonly cursor?: ProductBatch.ProductBatchId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const slice = yield* (yield* BatchRepo).list(tenant, catalog.id, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, ProductBatch.ProductBatchId.schema, (b) => b.id)
  })

/** Finds the batch for a sync route (a sync is a batch of source `sync`). */
export const findSync = (catalogId: string, syncId: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const batch = yield* lookup(tenant, catalogId, syncId)
    if (batch.source !== "sync") return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "sync", id: syncId }))
    return Option.some(batch).pipe(Option.getOrThrow)
  })
