/**
 * The BatchRepo and BatchWorkRepo ports over `product_batches`, `product_batch_chunks` and
 * `product_batch_errors`. Routes reach batches through the tenant; the worker's batch job
 * by id. A chunk's handle is written once (`handle IS NULL` guards it) and a chunk is
 * finished once (`finished = 0` guards it), so a replayed step changes nothing.
 */
import { BatchRepo, type ProductBatch } from "@switchboard/domain"
import { Context, Effect, Layer } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import { findOne, findPage, scoped, scopedUpdate, ownedBy } from "../internal/Scoped.js"
import * as Chunks from "../internal/Chunks.js"
import { batchColumns as columns } from "./Tables.js"

/** Error rows per multi-row INSERT (7 columns). */
const ROWS = 2000

export const make = Effect.gen(function* () {
  const db = yield* Database

  const insertErrors = (batchId: string, from: number, errors: ReadonlyArray<ProductBatch.BatchError>) =>
    Chunks.forEach(
      errors.map((e, i) => ({
        batch_id: batchId,
        position: from + i,
        idx: e.index,
        retailer_id: e.retailer_id,
        code: e.code,
        message: e.message,
        field: e.field
      })),
      ROWS,
      (rows) => db.query((k) => k.insertInto("product_batch_errors").values(rows).execute())
    )

  const findById = (id: string) => findOne(db, (k) => k.selectFrom("product_batches").selectAll().where("id", "=", id), columns.fromRow)

  const insertChunk = (batch: ProductBatch.ProductBatch, seq: number, requests: ReadonlyArray<ProductBatch.ChunkRequest>) =>
    db.query((k) =>
      k
        .insertInto("product_batch_chunks")
        .values({
          batch_id: batch.id,
          seq,
          catalog_id: batch.catalogId,
          size: requests.length,
          requests: JSON.stringify(requests),
          handle: null,
          sent_at: null,
          next_poll_at: null,
          finished: 0
        })
        .execute()
    )

  const routes = BatchRepo.BatchRepo.of({
    create: (tenant, batch, chunks, errors) =>
      db.withTransaction(
        Effect.gen(function* () {
          yield* db.query((k) =>
            k
              .insertInto("product_batches")
              .values({ ...columns.toRow({ ...batch, storeId: tenant.storeId, mode: tenant.mode }), error_count: errors.length })
              .execute()
          )
          yield* Effect.forEach(chunks, (requests, seq) => insertChunk(batch, seq, requests), { discard: true })
          yield* insertErrors(batch.id, 0, errors)
        })
      ),

    appendChunk: (tenant, batch, seq, requests) =>
      batch.storeId === tenant.storeId && batch.mode === tenant.mode ? Effect.asVoid(insertChunk(batch, seq, requests)) : Effect.void,

    seal: (tenant, id, total, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          const chunks = yield* db.query((k) =>
            k
              .selectFrom("product_batch_chunks")
              .select((eb) => eb.fn.countAll<number | string>().as("n"))
              .where("batch_id", "=", id)
              .executeTakeFirstOrThrow()
          )
          const empty = Number(chunks.n) === 0
          yield* db.query((k) =>
            scopedUpdate(k, "product_batches", tenant)
              .set({ total, updated_at: now, ...(empty ? { status: "finished", finished_at: now } : {}) })
              .where("id", "=", id)
              .execute()
          )
        })
      ),

    find: (tenant, id) => findOne(db, (k) => scoped(k, "product_batches", tenant).selectAll().where("id", "=", id), columns.fromRow),

    list: (tenant, catalogId, page) =>
      findPage(db, page, (k) => scoped(k, "product_batches", tenant).selectAll().where("catalog_id", "=", catalogId), columns.fromRow),

    errors: (tenant, id, page) =>
      findPage(
        db,
        page,
        (k) =>
          k
            .selectFrom("product_batch_errors as e")
            .innerJoin("product_batches as b", "b.id", "e.batch_id")
            .select(["e.position", "e.idx", "e.retailer_id", "e.code", "e.message", "e.field"])
            .where(ownedBy("b", tenant))
            .where("e.batch_id", "=", id),
        (r) => ({
          position: Number(r.position),
          index: Number(r.idx),
          retailer_id: r.retailer_id,
          code: r.code,
          message: r.message,
          field: r.field
        }),
        { by: "e.position", direction: "asc" }
      ),

    hasOpen: (tenant, catalogId) =>
      db
        .query((k) =>
          scoped(k, "product_batches", tenant)
            .select("id")
            .where("catalog_id", "=", catalogId)
            .where("status", "in", ["queued", "in_progress"])
            .limit(1)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => row !== undefined)),

    removeCatalog: (tenant, catalogId) =>
      db.withTransaction(
        Effect.gen(function* () {
          const ids = (yield* db.query((k) => scoped(k, "product_batches", tenant).select("id").where("catalog_id", "=", catalogId).execute())).map(
            (r) => r.id
          )
          if (ids.length === 0) return
          yield* db.query((k) => k.deleteFrom("product_batch_errors").where("batch_id", "in", ids).execute())
          yield* db.query((k) => k.deleteFrom("product_batch_chunks").where("batch_id", "in", ids).execute())
          yield* db.query((k) => k.deleteFrom("product_batches").where("id", "in", ids).execute())
        })
      )
  })

  const work = BatchRepo.BatchWorkRepo.of({
    find: findById,

    openChunks: (id) =>
      db
        .query((k) =>
          k
            .selectFrom("product_batch_chunks")
            .select(["seq", "size", "handle", "sent_at", "next_poll_at"])
            .where("batch_id", "=", id)
            .where("finished", "=", 0)
            .orderBy("seq", "asc")
            .execute()
        )
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              seq: Number(r.seq),
              size: Number(r.size),
              handle: r.handle,
              sentAt: r.sent_at === null ? null : Number(r.sent_at),
              nextPollAt: r.next_poll_at === null ? null : Number(r.next_poll_at)
            }))
          )
        ),

    chunkRequests: (id, seq) =>
      db
        .query((k) => k.selectFrom("product_batch_chunks").select("requests").where("batch_id", "=", id).where("seq", "=", seq).executeTakeFirst())
        .pipe(Effect.map((row) => (row === undefined ? [] : (JSON.parse(row.requests) as ReadonlyArray<ProductBatch.ChunkRequest>)))),

    sentSince: (catalogId, since) =>
      db
        .query((k) =>
          k
            .selectFrom("product_batch_chunks")
            .select("sent_at")
            .where("catalog_id", "=", catalogId)
            .where("sent_at", ">=", since)
            .orderBy("sent_at", "asc")
            .execute()
        )
        .pipe(Effect.map((rows) => rows.map((r) => Number(r.sent_at)))),

    markSent: (id, seq, handle, at, nextPollAt) =>
      db.withTransaction(
        Effect.gen(function* () {
          const result = yield* db.query((k) =>
            k
              .updateTable("product_batch_chunks")
              .set({ handle, sent_at: at, next_poll_at: nextPollAt })
              .where("batch_id", "=", id)
              .where("seq", "=", seq)
              .where("handle", "is", null)
              .executeTakeFirst()
          )
          if (Number(result.numUpdatedRows) === 0) return false
          yield* db.query((k) =>
            k
              .updateTable("product_batches")
              .set({ status: "in_progress", updated_at: at })
              .where("id", "=", id)
              .where("status", "=", "queued")
              .execute()
          )
          return true
        })
      ),

    setNextPoll: (id, seq, at) =>
      db
        .query((k) => k.updateTable("product_batch_chunks").set({ next_poll_at: at }).where("batch_id", "=", id).where("seq", "=", seq).execute())
        .pipe(Effect.asVoid),

    finishChunk: (id, seq, outcome, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          const done = yield* db.query((k) =>
            k
              .updateTable("product_batch_chunks")
              .set({ finished: 1, requests: "[]" })
              .where("batch_id", "=", id)
              .where("seq", "=", seq)
              .where("finished", "=", 0)
              .executeTakeFirst()
          )
          if (Number(done.numUpdatedRows) === 0) return false
          const batch = yield* db.query((k) => k.selectFrom("product_batches").select(["error_count"]).where("id", "=", id).executeTakeFirstOrThrow())
          yield* insertErrors(id, Number(batch.error_count), outcome.errors)
          const left = yield* db.query((k) =>
            k
              .selectFrom("product_batch_chunks")
              .select((eb) => eb.fn.countAll<number | string>().as("n"))
              .where("batch_id", "=", id)
              .where("finished", "=", 0)
              .executeTakeFirstOrThrow()
          )
          const last = Number(left.n) === 0
          yield* db.query((k) =>
            k
              .updateTable("product_batches")
              .set({
                error_count: sql`error_count + ${outcome.errors.length}`,
                processed: sql`processed + ${outcome.succeeded + outcome.failed}`,
                succeeded: sql`succeeded + ${outcome.succeeded}`,
                failed: sql`failed + ${outcome.failed}`,
                status: last ? "finished" : "in_progress",
                finished_at: last ? now : null,
                updated_at: now
              })
              .where("id", "=", id)
              .execute()
          )
          return true
        })
      ),

    setStatus: (id, status, now) =>
      db
        .query((k) =>
          k
            .updateTable("product_batches")
            .set({ status, updated_at: now, ...(status === "finished" || status === "failed" ? { finished_at: now } : {}) })
            .where("id", "=", id)
            .execute()
        )
        .pipe(Effect.asVoid)
  })

  return { routes, work }
})

export const layer = Layer.effectContext(
  Effect.map(make, ({ routes, work }) => Context.make(BatchRepo.BatchRepo, routes).pipe(Context.add(BatchRepo.BatchWorkRepo, work)))
)
