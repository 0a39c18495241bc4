/**
 * Single product writes (`POST /chat/catalogs/{id}/products`, `PATCH` and `DELETE
 * /chat/products/{id}`) as mirrored writes (`shared/Mirror.ts`):
 *
 * - prepare (the route's transaction): the local write is the intent (the product pending
 *   review; or gone), with the outbox row.
 * - call (outside any transaction): the write as an `items_batch` of one request. The
 *   operator's item writes are keyed by retailer id: the same request applied twice leaves one
 *   item, so a sweep sends it again (as an UPDATE with `allow_upsert`, which the operator
 *   documents as "creates the item if it does not exist", since a crashed CREATE may have been
 *   taken). A spent catalog quota (80014) or an unreachable operator is no failure of the
 *   write: the request is left to the batch job, which backs off and sends it, as it did
 *   before the runner.
 * - settle: a batch of one (`source: product`) records the request, with the operator's
 *   handle when it took it, and the batch job polls the verdict (review status and errors).
 * - compensate (the operator refused the call itself): the local write is undone.
 */
import { Effect, Option, Schema } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import * as Mirror from "../shared/Mirror.js"
import * as Module from "../shared/Module.js"
import type { Step } from "../shared/MirrorKind.js"
import { BatchJobKind } from "./BatchJob.js"
import { BatchRepo, BatchWorkRepo } from "./BatchRepo.js"
import * as Catalog from "./Catalog.js"
import { CommerceOperator } from "./CommerceOperator.js"
import * as Product from "./Product.js"
import * as ProductBatch from "./ProductBatch.js"
import { ProductRepo } from "./ProductRepo.js"

const Method = Schema.Literal("CREATE", "UPDATE", "DELETE")

const Payload = Schema.Struct({
  catalogId: Catalog.CatalogId.schema,
  operatorCatalogId: Schema.String,
  method: Method,
  /** The request's data as checked (`retailer_id` and the fields given). */
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** The product before the write (none for a create): what a refusal restores. */
  before: Schema.optional(Product.Product),
  /** The product written (none for a delete). */
  after: Schema.optional(Product.Product)
})

export type Payload = typeof Payload.Type

const FIRST_POLL_MS = 250

const retailerIdOf = (p: Payload) => String(p.data.retailer_id)

/** The request at the operator: `data.id` is the retailer id. */
const itemOf = (p: Payload, ctx: Step) => {
  const { retailer_id: _, ...fields } = p.data
  // a sweep's resend of a create: the first may have been taken (UPDATE with allow_upsert creates or updates)
  const method = p.method === "CREATE" && ctx.attempt > 1 ? "UPDATE" : p.method
  return { method, data: { id: retailerIdOf(p), ...fields } }
}

const call = (p: Payload, ctx: Step) =>
  Effect.flatMap(CommerceOperator, (op) =>
    op.submitItems(ctx.account, p.operatorCatalogId, [itemOf(p, ctx)], true).pipe(
      Effect.map(Option.some),
      // not taken now (the catalog's quota, an unreachable operator): the batch job sends it
      Effect.catchTag("OperatorUnavailable", () => Effect.succeed(Option.none<string>()))
    )
  )

/** Records the batch of one that carries the request (sent already when `handle` is some) and its job. */
const settle = (p: Payload, handle: Option.Option<string>, { tenant }: Step) =>
  Effect.gen(function* () {
    const batch = yield* ProductBatch.fresh(tenant, p.catalogId, { source: "product", allowUpsert: true, total: 1 })
    const now = batch.createdAt
    const request: ProductBatch.ChunkRequest = {
      index: 0,
      method: p.method,
      data: p.data as ProductBatch.ChunkRequest["data"]
    }
    yield* (yield* BatchRepo).create(tenant, batch, [[request]], [])
    if (Option.isSome(handle)) yield* (yield* BatchWorkRepo).markSent(batch.id, 0, handle.value, now, now + FIRST_POLL_MS)
    yield* (yield* JobQueue).enqueue(Module.job(BatchJobKind, { batchId: batch.id }, { storeId: tenant.storeId }))
    return p.after
  })

/** Undoes the local write: a created product goes, an updated or deleted one comes back as it was. */
const compensate = (p: Payload, _error: unknown, { tenant }: Step) =>
  Effect.gen(function* () {
    const products = yield* ProductRepo
    if (p.before !== undefined) yield* products.apply(tenant, p.catalogId, { upserts: [p.before], deletes: [] })
    else if (p.after !== undefined) yield* products.remove(tenant, p.after.id)
  })

const kindOf = (kind: string) =>
  Mirror.kind({
    kind,
    payload: Payload,
    call,
    settle,
    compensate
  })

/** `POST /chat/catalogs/{id}/products`. */
export const create = kindOf("products.create")
/** `PATCH /chat/products/{id}`. */
export const update = kindOf("products.update")
/** `DELETE /chat/products/{id}`. */
export const remove = kindOf("products.delete")

/** The payload of a write of `method` to the tenant's catalog (for the routes' prepare). */
export const payloadOf = (
  catalog: Pick<Catalog.Catalog, "id" | "operatorCatalogId">,
  method: Payload["method"],
  data: Readonly<Record<string, unknown>> & { readonly retailer_id: string },
  change: { readonly before?: Product.Product | undefined; readonly after?: Product.Product | undefined }
): Payload => ({
  catalogId: catalog.id,
  operatorCatalogId: catalog.operatorCatalogId,
  method,
  data: { ...data },
  ...(change.before === undefined ? {} : { before: change.before }),
  ...(change.after === undefined ? {} : { after: change.after })
})

/** Every product mirror kind (the commerce module registers them). */
export const kinds = [create, update, remove] as const
