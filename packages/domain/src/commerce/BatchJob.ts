/**
 * The batch job (`commerce.batch`, payload `{ batchId }`): carries one product batch to the
 * operator and its verdicts back. One job per batch, under the job queue's lease (another
 * worker takes over a crashed one). It never holds a worker's slot while it waits: when no
 * step is due (the quota is spent, a back-off runs, the operator is still processing), it
 * answers `JobQueue.runLater` for the time the next step is due and is run again then, so
 * thousands of batches waiting on a catalog's quota leave the worker free for other work.
 *
 * - **Sending.** Chunks go in order, one `items_batch` call each, while the catalog's call
 *   quota allows: the sends of the last window are counted from the stored send times of
 *   every batch of the catalog, so a restart or a second worker sees them too. A chunk's
 *   handle is recorded the moment the operator answers, so a chunk the operator took is
 *   never sent again; one whose answer never came is sent again (the operator did not
 *   acknowledge it). The operator's catalog rate-limit error (80014) and an unreachable
 *   operator back the sending off, doubling from 1 s to 1 min.
 * - **Polling.** A sent chunk's status is read with back-off (0.25 s, growing with the
 *   chunk's age to 5 s) until `finished`.
 * - **Applying.** A finished chunk's verdicts are applied in one transaction, fenced by the
 *   chunk's state (`finishChunk` answers false when it was applied already): products are
 *   written (approved, or rejected with their errors), deletes done, the batch's errors and
 *   counts grow, and the batch's completion event is emitted when it was the last chunk.
 */
import { Context, Effect, Either, Layer, Option, Schema } from "effect"
import { type JobQueue, type RunLater, runLater } from "../jobs/JobQueue.js"
import { inTransaction, type Transactor } from "../jobs/Transactor.js"
import { CommerceOperator, type ItemIssue, type ItemRequest } from "./CommerceOperator.js"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { accountFor, type OperatorAccount } from "../stores/Store.js"
import { StoreRepo } from "../stores/StoreRepo.js"
import type { WebhookRepo } from "../webhooks/WebhookRepo.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { type ChunkState, BatchWorkRepo } from "./BatchRepo.js"
import type { Catalog } from "./Catalog.js"
import { CatalogRepo } from "./CatalogRepo.js"
import * as Product from "./Product.js"
import * as ProductBatch from "./ProductBatch.js"
import { ProductRepo } from "./ProductRepo.js"
import * as ProductRules from "./ProductRules.js"

/**
 * The operator's `items_batch` call quota per catalog: `calls` in any `windowMs`. The real
 * figure comes from a business-use-case formula the operator does not publish; the default
 * matches the emulator's default. The worker sets it from `SWITCHBOARD_CATALOG_BATCH_CALLS`
 * and `SWITCHBOARD_CATALOG_BATCH_WINDOW_MS`.
 */
export class Quota extends Context.Reference<Quota>()("@switchboard/domain/CatalogBatchQuota", {
  defaultValue: () => ({ calls: 10, windowMs: 60_000 })
}) {}

/** Margin added to a quota slot's reopening (our send time is the answer's, after the operator's). */
const QUOTA_MARGIN_MS = 50
const FIRST_POLL_MS = 250
const MAX_POLL_MS = 5000
const MIN_BACKOFF_MS = 1000
const MAX_BACKOFF_MS = 60_000
/** Operator issue types under which the product is stored but rejected by review; any other type means the request was not applied. */
const REVIEW_TYPES: ReadonlySet<string> = new Set([
  "IMAGE_QUALITY",
  "POLICY_VIOLATION",
  "WHATSAPP_POLICY_VIOLATION",
  "LOW_QUALITY_TITLE_AND_DESCRIPTION",
  "CATEGORY"
])

export const Payload = Schema.Struct({ batchId: ProductBatch.ProductBatchId.schema })

/** The operator's shape of a request: `data.id` is the retailer id. */
const toItem = (r: ProductBatch.ChunkRequest): ItemRequest => {
  const { retailer_id, ...fields } = r.data
  return { method: r.method, data: { id: retailer_id, ...fields } }
}

const errorOf = (issue: ItemIssue): Product.ProductError => ({
  type: issue.type,
  severity: issue.severity,
  code: issue.type.toLowerCase(),
  message: issue.message
})

/**
 * The outcome of a finished chunk: the products to write and delete, the batch's errors
 * and counts. A request with an issue failed; a CREATE/UPDATE under a review issue is still
 * stored, rejected, with the issue as its error.
 */
export const outcomeOf = (
  batch: ProductBatch.ProductBatch,
  requests: ReadonlyArray<ProductBatch.ChunkRequest>,
  issues: ReadonlyArray<ItemIssue>,
  existing: ReadonlyMap<string, Product.Product>,
  ids: ReadonlyArray<Product.ProductId>,
  now: number
) => {
  const byLine = new Map<number, Array<ItemIssue>>()
  for (const issue of issues) {
    const list = byLine.get(issue.line)
    if (list === undefined) byLine.set(issue.line, [issue])
    else list.push(issue)
  }
  const upserts: Array<Product.Product> = []
  const deletes: Array<string> = []
  const errors: Array<ProductBatch.BatchError> = []
  let failed = 0
  requests.forEach((r, line) => {
    const found = byLine.get(line) ?? []
    const rid = r.data.retailer_id
    const before = existing.get(rid)
    if (found.length > 0) {
      failed++
      for (const issue of found)
        errors.push({ index: r.index, retailer_id: rid, code: issue.type.toLowerCase(), message: issue.message, field: null })
    }
    if (r.method === "DELETE") {
      if (found.length === 0) deletes.push(rid)
      return
    }
    // a product written here before it was sent (every source but the batch route) and
    // deleted here since: its late verdict must not bring it back
    if (before === undefined && batch.source !== "api") return
    const applied = found.every((i) => REVIEW_TYPES.has(i.type))
    const data = applied ? { ...(before === undefined ? {} : Product.dataOf(before)), ...r.data } : undefined
    if (data === undefined && before === undefined) return
    upserts.push({
      id: before?.id ?? ids[line],
      storeId: batch.storeId,
      mode: batch.mode,
      catalogId: batch.catalogId,
      ...Product.fieldsOf(data === undefined ? Product.dataOf(before!) : ProductRules.complete(data)),
      reviewStatus: found.length > 0 ? "rejected" : "approved",
      errors: found.map(errorOf),
      createdAt: before?.createdAt ?? now,
      updatedAt: now
    })
  })
  return { upserts, deletes, errors, failed, succeeded: requests.length - failed }
}

/** The requests with their `stored` products filled in (one deleted here since is sent as its retailer id alone). */
export const resolve = (requests: ReadonlyArray<ProductBatch.ChunkRequest>, stored: ReadonlyMap<string, Product.Product>) =>
  requests.map((r): ProductBatch.ChunkRequest => {
    if (r.stored !== true) return r
    const product = stored.get(r.data.retailer_id)
    return { index: r.index, method: r.method, data: product === undefined ? r.data : Product.dataOf(product) }
  })

interface Carrying {
  readonly batch: ProductBatch.ProductBatch
  readonly tenant: Tenant
  readonly catalog: Catalog
  readonly account: OperatorAccount
}

/** Applies a finished chunk's verdicts (once: fenced by the chunk's state). */
const apply = (ctx: Carrying, chunk: ChunkState, issues: ReadonlyArray<ItemIssue>) =>
  inTransaction(
    Effect.gen(function* () {
      const work = yield* BatchWorkRepo
      const products = yield* ProductRepo
      const read = yield* work.chunkRequests(ctx.batch.id, chunk.seq)
      const rids = read.filter((r) => r.method !== "DELETE").map((r) => r.data.retailer_id)
      const existing = new Map((yield* products.findByRetailerIds(ctx.tenant, ctx.catalog.id, rids)).map((p) => [p.retailerId, p]))
      const requests = resolve(read, existing)
      const ids = yield* Effect.forEach(requests, () => Product.ProductId.generate)
      const now = yield* Time.now
      const outcome = outcomeOf(ctx.batch, requests, issues, existing, ids, now)
      if (!(yield* work.finishChunk(ctx.batch.id, chunk.seq, outcome, now))) return
      yield* products.apply(ctx.tenant, ctx.catalog.id, outcome)
      const after = yield* work.find(ctx.batch.id)
      if (Option.isSome(after) && after.value.status === "finished") {
        const type = ProductBatch.completedEvent(after.value.source)
        if (type !== undefined) yield* Webhooks.emit(ctx.tenant, type, ProductBatch.summaryOf(after.value))
      }
    })
  )

/** The chunk's requests as they are sent: `stored` ones read from the catalog's products now. */
const requestsOf = (ctx: Carrying, seq: number) =>
  Effect.gen(function* () {
    const requests = yield* (yield* BatchWorkRepo).chunkRequests(ctx.batch.id, seq)
    const rids = requests.filter((r) => r.stored === true).map((r) => r.data.retailer_id)
    if (rids.length === 0) return requests
    const stored = yield* (yield* ProductRepo).findByRetailerIds(ctx.tenant, ctx.catalog.id, rids)
    return resolve(requests, new Map(stored.map((p) => [p.retailerId, p])))
  })

/** Every request of the chunk failed with one reason (the operator refused the call itself). */
const refuseChunk = (ctx: Carrying, chunk: ChunkState, message: string) =>
  Effect.gen(function* () {
    const requests = yield* (yield* BatchWorkRepo).chunkRequests(ctx.batch.id, chunk.seq)
    const issues = requests.map(
      (r, line): ItemIssue => ({ line, retailerId: r.data.retailer_id, type: "OPERATOR_REJECTED", severity: "MUST_FIX", message })
    )
    yield* apply(ctx, chunk, issues)
  })

/**
 * What the batch job keeps between its steps and runs, for the worker that provides it
 * (`layerSenders`: two workers in one process, or two tests, share nothing):
 *
 * - one sender per catalog at a time (`sendLock`): the quota check, the call and the
 *   recording of its handle happen under it, so two batches of a catalog never both take the
 *   last free slot. Across workers the operator's 80014 is the backstop.
 * - the back-off of a batch whose sends the operator refused (80014) or could not take
 *   (`backoffs`), kept between its runs (a batch run again by another worker starts from 1 s
 *   again).
 */
export class Senders extends Context.Tag("@switchboard/domain/CatalogBatchSenders")<
  Senders,
  {
    readonly sendLock: (catalogId: string) => Effect.Semaphore
    readonly backoffs: Map<string, number>
  }
>() {}

/** A fresh `Senders`: no lock taken, no back-off. */
export const layerSenders: Layer.Layer<Senders> = Layer.sync(Senders, () => {
  const locks = new Map<string, Effect.Semaphore>()
  return {
    sendLock: (catalogId) => {
      let lock = locks.get(catalogId)
      if (lock === undefined) {
        lock = Effect.unsafeMakeSemaphore(1)
        locks.set(catalogId, lock)
      }
      return lock
    },
    backoffs: new Map()
  }
})

const pollDelay = (chunk: ChunkState, now: number) => Math.min(MAX_POLL_MS, Math.max(FIRST_POLL_MS, Math.round((now - (chunk.sentAt ?? now)) / 2)))

/** What the batch job needs (declared, not inferred: the job kind is part of the module list that `Webhooks` reads). */
export type BatchJobContext = JobQueue | Transactor | WebhookRepo | StoreRepo | CommerceOperator | BatchWorkRepo | CatalogRepo | ProductRepo | Senders

/**
 * Carries the batch as far as it can now: until every chunk has its outcome (void), or until
 * nothing is due before some later time, answered as `RunLater` (the job is run again then).
 */
export const carry = (batchId: ProductBatch.ProductBatchId): Effect.Effect<RunLater | undefined, never, BatchJobContext> =>
  Effect.gen(function* () {
    const work = yield* BatchWorkRepo
    const found = yield* work.find(batchId)
    if (Option.isNone(found) || found.value.status === "finished" || found.value.status === "failed") return
    const batch = found.value
    const tenant: Tenant = { storeId: batch.storeId, mode: batch.mode }
    const catalog = yield* (yield* CatalogRepo).find(tenant, batch.catalogId)
    const store = yield* (yield* StoreRepo).findById(batch.storeId)
    if (Option.isNone(catalog) || Option.isNone(store)) {
      yield* work.setStatus(batchId, "failed", yield* Time.now)
      return
    }
    const ctx: Carrying = { batch, tenant, catalog: catalog.value, account: accountFor(store.value, batch.mode) }
    const operator = yield* CommerceOperator
    const quota = yield* Quota
    const { sendLock, backoffs } = yield* Senders
    let backoffMs = backoffs.get(batchId) ?? MIN_BACKOFF_MS
    let sendableAt = 0
    while (true) {
      const chunks = yield* work.openChunks(batchId)
      if (chunks.length === 0) {
        backoffs.delete(batchId)
        return
      }
      let now = yield* Time.now
      const next = chunks.find((c) => c.handle === null)
      if (next !== undefined && now >= sendableAt) {
        const step = yield* sendLock(catalog.value.id).withPermits(1)(
          Effect.gen(function* () {
            const at = yield* Time.now
            const sent = yield* work.sentSince(catalog.value.id, at - quota.windowMs)
            if (sent.length >= quota.calls)
              return { _tag: "wait" as const, until: sent[sent.length - quota.calls] + quota.windowMs + QUOTA_MARGIN_MS }
            const requests = yield* requestsOf(ctx, next.seq)
            const answer = yield* Effect.either(
              operator.submitItems(ctx.account, catalog.value.operatorCatalogId, requests.map(toItem), batch.allowUpsert)
            )
            const answeredAt = yield* Time.now
            if (Either.isRight(answer)) yield* work.markSent(batchId, next.seq, answer.right, answeredAt, answeredAt + FIRST_POLL_MS)
            return { _tag: "answer" as const, answer, at: answeredAt }
          })
        )
        if (step._tag === "wait") sendableAt = step.until
        else {
          now = step.at
          if (Either.isRight(step.answer)) {
            backoffMs = MIN_BACKOFF_MS
            backoffs.delete(batchId)
            continue
          }
          const refusal = step.answer.left
          if (refusal._tag === "OperatorRejected") {
            yield* refuseChunk(ctx, next, refusal.message)
            continue
          }
          yield* Effect.logWarning("items_batch not taken; backing off", { batch: batchId, chunk: next.seq, code: refusal.code, ms: backoffMs })
          sendableAt = now + backoffMs
          backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2)
          backoffs.set(batchId, backoffMs)
        }
      }
      for (const chunk of chunks) {
        if (chunk.handle === null || (chunk.nextPollAt ?? 0) > now) continue
        const progress = yield* Effect.either(operator.itemsBatchStatus(ctx.account, catalog.value.operatorCatalogId, chunk.handle))
        now = yield* Time.now
        if (Either.isRight(progress) && progress.right.status === "finished") yield* apply(ctx, chunk, progress.right.issues)
        else if (Either.isRight(progress) && progress.right.status === "error")
          yield* apply(
            ctx,
            chunk,
            progress.right.issues.length > 0
              ? progress.right.issues
              : yield* Effect.map(work.chunkRequests(batchId, chunk.seq), (rs) =>
                  rs.map(
                    (r, line): ItemIssue => ({
                      line,
                      retailerId: r.data.retailer_id,
                      type: "OPERATOR_ERROR",
                      severity: "MUST_FIX",
                      message: "the operator failed to process this chunk"
                    })
                  )
                )
          )
        else yield* work.setNextPoll(batchId, chunk.seq, now + pollDelay(chunk, now))
      }
      const open = yield* work.openChunks(batchId)
      if (open.length === 0) {
        backoffs.delete(batchId)
        return
      }
      now = yield* Time.now
      const wakes = open.filter((c) => c.handle !== null).map((c) => c.nextPollAt ?? now)
      if (open.some((c) => c.handle === null)) wakes.push(Math.max(sendableAt, now))
      const due = Math.min(...wakes)
      // nothing due yet: free the worker's slot and run again when the next step is due
      if (due > now) return runLater(due)
    }
  })

/** The job kind: not transactional (it calls the operator; each step guards itself); run again whenever it answers `RunLater`. */
export const BatchJobKind = Module.jobKind({
  kind: "commerce.batch",
  payload: Payload,
  transactional: false,
  maxAttempts: 1000,
  run: (payload) => carry(payload.batchId)
})
