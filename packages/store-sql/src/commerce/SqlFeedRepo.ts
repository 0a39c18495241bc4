/** The FeedRepo and FeedWorkRepo ports over `feeds`, `feed_uploads` and `feed_upload_errors`. */
import { FeedRepo, type Feed } from "@switchboard/domain"
import { Context, Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findOne, findPage, scoped, scopedDelete, scopedUpdate, ownedBy } from "../internal/Scoped.js"
import * as Chunks from "../internal/Chunks.js"
import { feedColumns, uploadColumns } from "./Tables.js"

/** Error rows per multi-row INSERT (7 columns). */
const ROWS = 2000

export const make = Effect.gen(function* () {
  const db = yield* Database

  const findFeed = (id: string) => findOne(db, (k) => k.selectFrom("feeds").selectAll().where("id", "=", id), feedColumns.fromRow)

  const routes = FeedRepo.FeedRepo.of({
    insert: (tenant, feed) =>
      db
        .query((k) =>
          k
            .insertInto("feeds")
            .values(feedColumns.toRow({ ...feed, storeId: tenant.storeId, mode: tenant.mode }))
            .execute()
        )
        .pipe(Effect.asVoid),

    find: (tenant, id) => findOne(db, (k) => scoped(k, "feeds", tenant).selectAll().where("id", "=", id), feedColumns.fromRow),

    list: (tenant, catalogId, page) =>
      findPage(db, page, (k) => scoped(k, "feeds", tenant).selectAll().where("catalog_id", "=", catalogId), feedColumns.fromRow),

    save: (tenant, feed) => {
      const { id: _, store_id: __, mode: ___, catalog_id: ____, created_at: _____, ...set } = feedColumns.toRow(feed)
      return db
        .query((k) => scopedUpdate(k, "feeds", tenant).set(set).where("id", "=", feed.id).executeTakeFirst())
        .pipe(Effect.map((r) => Number(r.numUpdatedRows) > 0))
    },

    remove: (tenant, id) =>
      db.withTransaction(
        Effect.gen(function* () {
          const gone = yield* db.query((k) => scopedDelete(k, "feeds", tenant).where("id", "=", id).executeTakeFirst())
          if (Number(gone.numDeletedRows) === 0) return false
          yield* db.query((k) =>
            k
              .deleteFrom("feed_upload_errors")
              .where("upload_id", "in", k.selectFrom("feed_uploads").select("id").where("feed_id", "=", id))
              .execute()
          )
          yield* db.query((k) => k.deleteFrom("feed_uploads").where("feed_id", "=", id).execute())
          return true
        })
      ),

    insertUpload: (tenant, upload) =>
      db
        .query((k) =>
          k
            .insertInto("feed_uploads")
            .values(uploadColumns.toRow({ ...upload, storeId: tenant.storeId, mode: tenant.mode }))
            .execute()
        )
        .pipe(Effect.asVoid),

    saveUpload: (tenant, upload) => {
      const { id: _, store_id: __, mode: ___, feed_id: ____, catalog_id: _____, ...set } = uploadColumns.toRow(upload)
      return db.query((k) => scopedUpdate(k, "feed_uploads", tenant).set(set).where("id", "=", upload.id).execute()).pipe(Effect.asVoid)
    },

    findUpload: (tenant, id) => findOne(db, (k) => scoped(k, "feed_uploads", tenant).selectAll().where("id", "=", id), uploadColumns.fromRow),

    listUploads: (tenant, feedId, page) =>
      findPage(db, page, (k) => scoped(k, "feed_uploads", tenant).selectAll().where("feed_id", "=", feedId), uploadColumns.fromRow),

    addUploadErrors: (_tenant, id, from, errors) =>
      Chunks.forEach(
        errors.map((e, i) => ({ upload_id: id, position: from + i, ...e })),
        ROWS,
        (rows) => db.query((k) => k.insertInto("feed_upload_errors").values(rows).execute())
      ).pipe(Effect.asVoid),

    uploadErrors: (tenant, id, page) =>
      findPage(
        db,
        page,
        (k) =>
          k
            .selectFrom("feed_upload_errors as e")
            .innerJoin("feed_uploads as u", "u.id", "e.upload_id")
            .select(["e.position", "e.row_number", "e.retailer_id", "e.field", "e.message", "e.severity"])
            .where(ownedBy("u", tenant))
            .where("e.upload_id", "=", id),
        (r) => ({
          position: Number(r.position),
          row_number: Number(r.row_number),
          retailer_id: r.retailer_id,
          field: r.field,
          message: r.message,
          severity: r.severity as Feed.UploadError["severity"]
        }),
        { by: "e.position", direction: "asc" }
      ),

    retailerIds: (tenant, catalogId, after, limit) =>
      db
        .query((k) =>
          k
            .selectFrom("products")
            .select(["retailer_id", "store_id", "mode"])
            .where("catalog_id", "=", catalogId)
            .$if(after !== undefined, (q) => q.where("retailer_id", ">", after!))
            .orderBy("retailer_id", "asc")
            .limit(limit)
            .execute()
        )
        // the unique index (catalog_id, retailer_id) answers; the tenant is checked on the rows
        .pipe(Effect.map((rows) => rows.filter((r) => r.store_id === tenant.storeId && r.mode === tenant.mode).map((r) => r.retailer_id))),

    removeCatalog: (tenant, catalogId) =>
      db.withTransaction(
        Effect.gen(function* () {
          const feeds = (yield* db.query((k) => scoped(k, "feeds", tenant).select("id").where("catalog_id", "=", catalogId).execute())).map(
            (r) => r.id
          )
          if (feeds.length === 0) return
          yield* db.query((k) =>
            k
              .deleteFrom("feed_upload_errors")
              .where("upload_id", "in", k.selectFrom("feed_uploads").select("id").where("feed_id", "in", feeds))
              .execute()
          )
          yield* db.query((k) => k.deleteFrom("feed_uploads").where("feed_id", "in", feeds).execute())
          yield* db.query((k) => k.deleteFrom("feeds").where("id", "in", feeds).execute())
        })
      )
  })

  const work = FeedRepo.FeedWorkRepo.of({
    find: findFeed,
    findUpload: (id) =>
      Effect.gen(function* () {
        const row = yield* db.query((k) => k.selectFrom("feed_uploads").selectAll().where("id", "=", id).executeTakeFirst())
        if (row === undefined) return Option.none()
        const upload = uploadColumns.fromRow(row)
        const feed = yield* findFeed(upload.feedId)
        return Option.map(feed, (f) => ({ tenant: { storeId: upload.storeId, mode: upload.mode }, feed: f, upload }))
      })
  })

  return { routes, work }
})

export const layer = Layer.effectContext(
  Effect.map(make, ({ routes, work }) => Context.make(FeedRepo.FeedRepo, routes).pipe(Context.add(FeedRepo.FeedWorkRepo, work)))
)
