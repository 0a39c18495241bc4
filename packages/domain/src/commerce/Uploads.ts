/**
 * Feed uploads (issue 12 item 5): one file's rows upsert the catalog's products by
 * `retailer_id`, and what changed goes to the operator as a batch (`source: feed`).
 *
 * A file is parsed once, streaming, so memory stays flat whatever its size:
 * 1. **check**: every row is mapped (`FeedRows`) and checked with the operator's rules;
 *    invalid rows become the upload's errors with their line, and the valid ones (the first
 *    of each retailer id) are staged by the store under the upload's id (`ProductRepo.stage`,
 *    a block written while the next is parsed); a malformed file (an unclosed quote, a row
 *    with more or fewer cells than the header, a header without a retailer id column: a
 *    wrong delimiter) stops here with no product written. The reader may read and check a
 *    large file on a thread of its own (`FeedReader.checkedRows`: the same outcomes), so
 *    this one only stages;
 * 2. **apply**: the staged rows, in groups of 5,000, upsert the products that are new or
 *    changed (pending review; one statement, nothing read back but the retailer ids written)
 *    and join the operator batch as one chunk of their retailer ids (`stored` requests: sent
 *    as stored), a transaction per group; with `deletion_enabled`, products the file lacks
 *    are then deleted (here, and at the operator through the batch). The staged rows are
 *    dropped at the end. Where the store allows it (`refreshWhileReading`, PostgreSQL), each
 *    group is applied once staged, while the file is read, in one transaction a malformed
 *    file rolls back (`run`'s `pipelined`).
 *
 * A file sent with the request is processed before the answer (201, or 400 naming `file`
 * for a malformed one); a URL is fetched and processed by the worker (`commerce.feed_upload`,
 * 202 at once). Each upload ends with `feed_upload.completed` and its counts.
 */
import { Clock, Deferred, Effect, Fiber, Option, Queue, Schema, Stream } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { inTransaction } from "../jobs/Transactor.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { BatchJobKind } from "./BatchJob.js"
import { BatchRepo } from "./BatchRepo.js"
import * as Feed from "./Feed.js"
import { FeedFileError, FeedReader } from "./FeedReader.js"
import { FeedRepo, FeedWorkRepo } from "./FeedRepo.js"
import * as FeedRows from "./FeedRows.js"
import * as Product from "./Product.js"
import * as ProductBatch from "./ProductBatch.js"
import * as ProductRepo from "./ProductRepo.js"

/** Largest file an upload takes (a sent file, or one fetched from a URL). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024
const GROUP = ProductBatch.CHUNK_SIZE
/** Checked rows staged at once. */
const STAGE_BLOCK = 2000
const ERROR_FLUSH = 1000

type Counts = { detected: number; invalid: number; persisted: number; deleted: number }

/**
 * Reads the file and applies it; answers the counts and the batch. `pipelined` (where the
 * store lets a transaction stay open while other writers go on, `ProductRepo.refreshWhileReading`):
 * the catalog is written while the file is read, in one transaction that a malformed file
 * rolls back; else once the file has been read whole, a transaction per group. The groups,
 * the chunks and the counts are the same either way.
 */
const run = (tenant: Tenant, feed: Feed.Feed, upload: Feed.Upload, path: string, pipelined: boolean) =>
  Effect.gen(function* () {
    const reader = yield* FeedReader
    const feeds = yield* FeedRepo
    const products = yield* ProductRepo.ProductRepo
    const batches = yield* BatchRepo
    const delimiter = FeedRows.delimiterOf(feed.delimiter, yield* reader.firstLine(path))
    const named = Object.entries(Feed.DELIMITER_CHAR).find(([, c]) => c === delimiter)?.[0] ?? delimiter
    const counts: Counts = { detected: 0, invalid: 0, persisted: 0, deleted: 0 }
    let headed = false
    // the staged rows and the upload's errors are no catalog write: they never join its
    // transaction (the pipelined one), and stay when it rolls back, as they do otherwise. They
    // run on fibers forked by one forked before the transaction opens (a fiber inherits it)
    const untransacted = yield* Queue.unbounded<Effect.Effect<void>>()
    const outside = <A>(effect: Effect.Effect<A>): Effect.Effect<A> =>
      pipelined
        ? Effect.flatMap(Deferred.make<A>(), (done) =>
            Effect.zipRight(Queue.offer(untransacted, Effect.asVoid(Deferred.complete(done, effect))), Deferred.await(done))
          )
        : effect

    // the operator batch: one chunk per group of staged rows, in file order (only the new and
    // the changed products are written, and go to the operator, as stored when their chunk is sent)
    const seen = new Map<string, number>()
    let batch: ProductBatch.ProductBatch | undefined
    let seq = 0
    let sent = 0
    let refreshed = 0
    const push = (requests: ReadonlyArray<ProductBatch.ChunkRequest>) => {
      if (requests.length === 0) return Effect.void
      const chunk = requests.map((r, i) => ({ ...r, index: sent + i }))
      sent += requests.length
      return batches.appendChunk(tenant, batch!, seq++, chunk)
    }
    const begin = Effect.gen(function* () {
      if (pipelined) yield* products.holdCatalog(feed.catalogId)
      batch = yield* ProductBatch.fresh(tenant, feed.catalogId, { source: "feed", allowUpsert: true, total: 0 })
      yield* batches.create(tenant, batch, [], [])
    })
    /** The staged rows up to `to`, a group at a time (the last one short only when `all`), each group in one transaction. */
    const refreshUpTo = (to: number, all: boolean) =>
      Effect.gen(function* () {
        while (refreshed < to && (all || to - refreshed >= GROUP)) {
          const from = refreshed
          const end = Math.min(to, from + GROUP)
          refreshed = end
          yield* inTransaction(
            Effect.gen(function* () {
              const written = yield* products.refreshStaged(tenant, feed.catalogId, { key: upload.id, from, to: end, at: yield* Time.now })
              // in file order
              const rids = [...written].sort((a, b) => seen.get(a)! - seen.get(b)!)
              yield* push(rids.map((rid) => ({ index: 0, method: "UPDATE", stored: true, data: { retailer_id: rid } })))
              counts.persisted += end - from
            })
          )
        }
      })

    // 1. check every row; the errors are recorded as found, the valid rows staged (by the
    // store, under the upload's id) a block at a time; a block is written while the next is
    // parsed (pipelined: and the groups it completes refreshed)
    let pending: Array<Feed.UploadError> = []
    let position = 0
    const flush = Effect.suspend(() => {
      if (pending.length === 0) return Effect.void
      const errors = pending
      pending = []
      const from = position
      position += errors.length
      return outside(feeds.addUploadErrors(tenant, upload.id, from, errors))
    })
    let staged = 0
    let block: Array<ProductRepo.Staged> = []
    // daemons: the stream may run this on a fiber of its own that ends before the write does;
    // every way out of the read awaits them (below)
    let writing: Fiber.RuntimeFiber<void> | undefined
    // pipelined: the groups each block completes, refreshed in turn once its rows are staged,
    // while the next blocks are parsed and staged
    let refreshing: Fiber.RuntimeFiber<void> | undefined
    const stage = Effect.gen(function* () {
      if (writing !== undefined) yield* Fiber.join(writing)
      writing = undefined
      if (block.length === 0) return
      const rows = block
      block = []
      const from = staged
      staged += rows.length
      const written = yield* Effect.forkDaemon(outside(products.stage(upload.id, from, rows)))
      writing = written
      if (!pipelined) return
      const previous = refreshing
      const upTo = staged
      refreshing = yield* Effect.forkDaemon(
        Effect.gen(function* () {
          if (previous !== undefined) yield* Fiber.join(previous)
          yield* Fiber.join(written)
          yield* refreshUpTo(upTo, false)
        })
      )
    })
    const settled = Effect.suspend(() =>
      Effect.zipRight(writing === undefined ? Effect.void : Fiber.await(writing), refreshing === undefined ? Effect.void : Fiber.await(refreshing))
    )
    // checked off this thread where the reader can (a large file), else here: the same outcomes
    const checked =
      reader.checkedRows?.(path, delimiter, feed.defaultCurrency) ?? Stream.map(reader.rows(path, delimiter), FeedRows.checker(feed.defaultCurrency))
    const read = Stream.runForEach(checked, (outcomes) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        for (const row of outcomes) {
          if (row.header) {
            if (row.error !== null)
              return yield* Effect.fail(
                new FeedFileError({ line: 1, message: `${row.error}; the file was read with the delimiter ${named}: is that the file's?` })
              )
            headed = true
            continue
          }
          counts.detected++
          if (row.ok) {
            const first = seen.get(row.rid)
            if (first === undefined) {
              seen.set(row.rid, row.line)
              block.push({ id: Id.unsafeMake(Product.ProductId.prefix, now) as Product.ProductId, data: row.data })
              continue
            }
            counts.invalid++
            pending.push({
              row_number: row.line,
              retailer_id: row.rid,
              field: "retailer_id",
              message: `repeats line ${first}`,
              severity: "fatal"
            })
          } else {
            counts.invalid++
            for (const issue of row.issues)
              pending.push({ row_number: row.line, retailer_id: row.rid, field: issue.path, message: issue.message, severity: "fatal" })
          }
        }
        if (block.length >= STAGE_BLOCK) yield* stage
        if (pending.length >= ERROR_FLUSH) yield* flush
      })
    )
    const whole = Effect.gen(function* () {
      yield* read
      yield* stage // the last block
      yield* stage // and its write awaited
      if (refreshing !== undefined) yield* Fiber.join(refreshing)
      yield* flush
      if (!headed) return yield* Effect.fail(new FeedFileError({ line: 1, message: "the file is empty: it needs a header line" }))
    }).pipe(Effect.ensuring(settled))

    // 2. the whole file is good: the staged rows go to the catalog (what is left of them, pipelined)
    const apply = Effect.gen(function* () {
      yield* refreshUpTo(staged, true)
      if (feed.deletionEnabled) {
        let after: string | undefined
        while (true) {
          const ids = yield* feeds.retailerIds(tenant, feed.catalogId, after, GROUP)
          if (ids.length === 0) break
          after = ids[ids.length - 1]
          const missing = ids.filter((id) => !seen.has(id))
          if (missing.length === 0) continue
          yield* inTransaction(
            Effect.zipRight(
              products.apply(tenant, feed.catalogId, { upserts: [], deletes: missing }),
              push(missing.map((rid) => ({ index: 0, method: "DELETE" as const, data: { retailer_id: rid } })))
            )
          )
          counts.deleted += missing.length
        }
      }
    })
    if (pipelined) {
      const runner = yield* Effect.forkDaemon(Effect.forever(Effect.flatMap(Queue.take(untransacted), Effect.forkDaemon)))
      yield* Effect.ensuring(inTransaction(Effect.zipRight(begin, Effect.zipRight(whole, apply))), Fiber.interrupt(runner))
    } else yield* Effect.zipRight(whole, Effect.zipRight(begin, apply))
    return { counts, batch: batch!, total: sent }
  })

/**
 * Uploads of this process that write while reading at once: each holds a connection for its
 * transaction and takes another for each staging write, so more of them could hold every
 * connection of the store's pool while waiting for one; the others write once read whole.
 */
const PIPELINED = Effect.unsafeMakeSemaphore(2)

/** Processes the upload's file and records its end (finished with counts, or failed with the reason). */
export const process = (tenant: Tenant, feed: Feed.Feed, upload: Feed.Upload, path: string) =>
  Effect.gen(function* () {
    const feeds = yield* FeedRepo
    const products = yield* ProductRepo.ProductRepo
    const read = products.refreshWhileReading
      ? Effect.flatMap(PIPELINED.withPermitsIfAvailable(1)(run(tenant, feed, upload, path, true)), (done) =>
          Option.isSome(done) ? Effect.succeed(done.value) : run(tenant, feed, upload, path, false)
        )
      : run(tenant, feed, upload, path, false)
    const outcome = yield* Effect.either(Effect.ensuring(read, products.unstage(upload.id)))
    const endedAt = yield* Time.now
    const ended: Feed.Upload =
      outcome._tag === "Right"
        ? {
            ...upload,
            status: "finished",
            numDetectedItems: outcome.right.counts.detected,
            numPersistedItems: outcome.right.counts.persisted,
            numInvalidItems: outcome.right.counts.invalid,
            numDeletedItems: outcome.right.counts.deleted,
            batchHandle: outcome.right.batch.id,
            endedAt
          }
        : {
            ...upload,
            status: "failed",
            error: outcome.left.line === undefined ? outcome.left.message : `line ${outcome.left.line}: ${outcome.left.message}`,
            endedAt
          }
    yield* inTransaction(
      Effect.gen(function* () {
        if (outcome._tag === "Right") yield* seal(tenant, outcome.right.batch, outcome.right.total, endedAt)
        yield* feeds.saveUpload(tenant, ended)
        yield* Webhooks.emit(tenant, "feed_upload.completed", {
          id: ended.id,
          feed_id: ended.feedId,
          status: ended.status,
          num_detected_items: ended.numDetectedItems,
          num_persisted_items: ended.numPersistedItems,
          num_invalid_items: ended.numInvalidItems,
          num_deleted_items: ended.numDeletedItems,
          error: ended.error
        })
      })
    )
    return { upload: ended, failure: outcome._tag === "Left" ? Option.some(outcome.left) : Option.none() }
  })

/** Seals the feed's operator batch: queued for the batch job, or finished when nothing changed. */
const seal = (tenant: Tenant, batch: ProductBatch.ProductBatch, total: number, now: number) =>
  Effect.gen(function* () {
    yield* (yield* BatchRepo).seal(tenant, batch.id, total, now)
    if (total > 0) yield* (yield* JobQueue).enqueue(Module.job(BatchJobKind, { batchId: batch.id }, { storeId: tenant.storeId }))
  })

/** A new upload of the feed, processing. */
export const start = (tenant: Tenant, feed: Feed.Feed, input: Pick<Feed.Upload, "inputMethod" | "filename" | "url">) =>
  Effect.gen(function* () {
    const upload: Feed.Upload = {
      id: yield* Feed.UploadId.generate,
      feedId: feed.id,
      storeId: tenant.storeId,
      mode: tenant.mode,
      catalogId: feed.catalogId,
      ...input,
      status: "processing",
      numDetectedItems: 0,
      numPersistedItems: 0,
      numInvalidItems: 0,
      numDeletedItems: 0,
      error: null,
      batchHandle: null,
      startedAt: yield* Time.now,
      endedAt: null
    }
    yield* (yield* FeedRepo).insertUpload(tenant, upload)
    return upload
  })

/** Fetches the upload's URL and processes it (the `commerce.feed_upload` job, and scheduled runs). */
const fetchAndProcess = (tenant: Tenant, feed: Feed.Feed, upload: Feed.Upload) =>
  Effect.gen(function* () {
    const reader = yield* FeedReader
    const fetched = yield* Effect.either(reader.download(upload.url ?? "", MAX_FILE_BYTES))
    if (fetched._tag === "Left") {
      const feeds = yield* FeedRepo
      const ended: Feed.Upload = { ...upload, status: "failed", error: fetched.left.message, endedAt: yield* Time.now }
      yield* feeds.saveUpload(tenant, ended)
      yield* Webhooks.emit(tenant, "feed_upload.completed", { id: ended.id, feed_id: ended.feedId, status: "failed", error: ended.error })
      return
    }
    yield* Effect.ensuring(process(tenant, feed, upload, fetched.right.path), reader.discard(fetched.right.path))
  })

export const UploadPayload = Schema.Struct({ uploadId: Feed.UploadId.schema })
export const SchedulePayload = Schema.Struct({ feedId: Feed.FeedId.schema, at: Schema.Number })

/** The job of a URL upload: fetch, then process. Not transactional (it calls out); a rerun of a finished upload does nothing. */
export const UploadJob = Module.jobKind({
  kind: "commerce.feed_upload",
  payload: UploadPayload,
  transactional: false,
  maxAttempts: 3,
  run: (payload) =>
    Effect.gen(function* () {
      const found = yield* (yield* FeedWorkRepo).findUpload(payload.uploadId)
      if (Option.isNone(found) || found.value.upload.status !== "processing") return
      yield* fetchAndProcess(found.value.tenant, found.value.feed, found.value.upload)
    })
})

/** Queues the feed's next scheduled fetch (one job per feed and time, ever). */
export const scheduleNext = (feed: Feed.Feed, after: number): Effect.Effect<void, never, JobQueue> =>
  feed.schedule === null
    ? Effect.void
    : Effect.flatMap(JobQueue, (queue) => {
        const at = Feed.nextRun(feed.schedule!, after)
        return Effect.asVoid(
          queue.enqueue(Module.job(ScheduleJob, { feedId: feed.id, at }, { runAt: at, dedupeKey: `feed:${feed.id}:${at}`, storeId: feed.storeId }))
        )
      })

/** A scheduled fetch: runs while the feed still has that schedule, then queues the next. */
export const ScheduleJob = Module.jobKind({
  kind: "commerce.feed_schedule",
  payload: SchedulePayload,
  transactional: false,
  maxAttempts: 3,
  run: (payload) =>
    Effect.gen(function* () {
      const found = yield* (yield* FeedWorkRepo).find(payload.feedId)
      if (Option.isNone(found) || found.value.schedule === null) return
      const feed = found.value
      if (Feed.nextRun(feed.schedule!, payload.at - 1) !== payload.at) return // the schedule changed since: its own job runs
      const tenant: Tenant = { storeId: feed.storeId, mode: feed.mode }
      const upload = yield* start(tenant, feed, { inputMethod: "schedule", filename: null, url: feed.schedule!.url })
      yield* fetchAndProcess(tenant, feed, upload)
      yield* scheduleNext(feed, payload.at)
    })
})

/** A file refused as malformed: the 400 of the upload route. */
export const refusal = (error: FeedFileError) =>
  Errors.ValidationFailed.of("file", error.line === undefined ? error.message : `line ${error.line}: ${error.message}`)
