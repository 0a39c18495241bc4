/**
 * Feed routes (spec §4.1 feeds, issue 12 item 5): a catalog's feeds (list, create), a feed
 * (read, update, delete), its uploads (list, create from a file or a URL, read, errors).
 * Another tenant's catalog, feed or upload answers as an unknown one.
 */
import { Effect, Option } from "effect"
import { JobQueue } from "../jobs/JobQueue.js"
import { inTransaction } from "../jobs/Transactor.js"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Module from "../shared/Module.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Catalogs from "./Catalogs.js"
import * as Feed from "./Feed.js"
import { FeedRepo } from "./FeedRepo.js"
import * as Uploads from "./Uploads.js"
import { checkCallerUrl } from "../webhooks/WebhookTransport.js"

/** A schedule's URL, by the rule of every URL we call (flow endpoints use it too). */
const checkSchedule = (schedule: Feed.Schedule | null | undefined) =>
  schedule === null || schedule === undefined ? Effect.void : checkCallerUrl("schedule.url", schedule.url)

const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(FeedRepo, (repo) => Id.lookup(Feed.FeedId, "feed", id, (feedId) => repo.find(tenant, feedId)))

/** `POST /chat/catalogs/{id}/feeds`. */
export const create = (catalogId: string, input: Feed.CreateFeed) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    yield* checkSchedule(input.schedule)
    const now = yield* Time.now
    const feed: Feed.Feed = {
      id: yield* Feed.FeedId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      catalogId: catalog.id,
      name: input.name,
      delimiter: input.delimiter,
      defaultCurrency: input.default_currency ?? null,
      deletionEnabled: input.deletion_enabled,
      schedule: input.schedule ?? null,
      createdAt: now,
      updatedAt: now
    }
    yield* inTransaction(Effect.zipRight((yield* FeedRepo).insert(tenant, feed), Uploads.scheduleNext(feed, now)))
    return feed
  })

/** `GET /chat/catalogs/{id}/feeds`: newest first. */
export const list = (catalogId: string, query: { readonly limit: number; readonly cursor?: Feed.FeedId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const catalog = yield* Catalogs.lookup(tenant, catalogId)
    const slice = yield* (yield* FeedRepo).list(tenant, catalog.id, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Feed.FeedId.schema, (f) => f.id)
  })

/** `GET /chat/feeds/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** `PATCH /chat/feeds/{id}`: a new schedule is queued at once; the old one's job finds it changed and does nothing. */
export const update = (id: string, input: Feed.UpdateFeed) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const before = yield* lookup(tenant, id)
    yield* checkSchedule(input.schedule)
    const now = yield* Time.now
    const after: Feed.Feed = {
      ...before,
      name: input.name ?? before.name,
      delimiter: input.delimiter ?? before.delimiter,
      defaultCurrency: input.default_currency === undefined ? before.defaultCurrency : input.default_currency,
      deletionEnabled: input.deletion_enabled ?? before.deletionEnabled,
      schedule: input.schedule === undefined ? before.schedule : input.schedule,
      updatedAt: now
    }
    yield* inTransaction(
      Effect.gen(function* () {
        if (!(yield* (yield* FeedRepo).save(tenant, after))) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "feed", id }))
        if (input.schedule !== undefined) yield* Uploads.scheduleNext(after, now)
      })
    )
    return after
  })

/** `DELETE /chat/feeds/{id}`: the feed and its uploads; the products stay. */
export const remove = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const feed = yield* lookup(tenant, id)
    if (!(yield* (yield* FeedRepo).remove(tenant, feed.id))) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "feed", id }))
    return { id: feed.id, deleted: true as const }
  })

/** `POST /chat/feeds/{id}/uploads` with a file: processed before the answer; a malformed file is a 400 naming `file`. */
export const uploadFile = (id: string, file: { readonly path: string; readonly name: string }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const feed = yield* lookup(tenant, id)
    const upload = yield* Uploads.start(tenant, feed, { inputMethod: "file", filename: file.name, url: null })
    const { upload: ended, failure } = yield* Uploads.process(tenant, feed, upload, file.path)
    if (Option.isSome(failure)) return yield* Effect.fail(Uploads.refusal(failure.value))
    return ended
  })

/**
 * `POST /chat/feeds/{id}/uploads` with `{url}`: 202, fetched and processed by the worker. A
 * URL that is not a public http(s) address is a 400 naming `url` (the fetch checks the
 * address it connects to again).
 */
export const uploadUrl = (id: string, url: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const feed = yield* lookup(tenant, id)
    yield* checkCallerUrl("url", url)
    return yield* inTransaction(
      Effect.gen(function* () {
        const upload = yield* Uploads.start(tenant, feed, { inputMethod: "url", filename: null, url })
        yield* (yield* JobQueue).enqueue(Module.job(Uploads.UploadJob, { uploadId: upload.id }, { storeId: tenant.storeId }))
        return upload
      })
    )
  })

const uploadOf = (tenant: Tenant, feedId: string, uploadId: string) =>
  Effect.gen(function* () {
    const feed = yield* lookup(tenant, feedId)
    const repo = yield* FeedRepo
    const upload = yield* Id.lookup(Feed.UploadId, "feed upload", uploadId, (u) => repo.findUpload(tenant, u))
    if (upload.feedId !== feed.id) return yield* Effect.fail(new Errors.ResourceNotFound({ resource: "feed upload", id: uploadId }))
    return upload
  })

/** `GET /chat/feeds/{id}/uploads`: newest first. */
export const listUploads = (id: string, query: { readonly limit: number; readonly cursor?: Feed.UploadId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const feed = yield* lookup(tenant, id)
    const slice = yield* (yield* FeedRepo).listUploads(tenant, feed.id, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Feed.UploadId.schema, (u) => u.id)
  })

/** `GET /chat/feeds/{id}/uploads/{uploadId}`. */
export const getUpload = (id: string, uploadId: string) => Effect.flatMap(CurrentStore, ({ tenant }) => uploadOf(tenant, id, uploadId))

/** `GET /chat/feeds/{id}/uploads/{uploadId}/errors`: by row, paged. */
export const uploadErrors = (id: string, uploadId: string, query: { readonly limit: number; readonly cursor?: number | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const upload = yield* uploadOf(tenant, id, uploadId)
    const slice = yield* (yield* FeedRepo).uploadErrors(tenant, upload.id, { limit: query.limit, after: query.cursor })
    const page = Pagination.pageOf(slice, Feed.ErrorPosition, (e) => e.position)
    return { data: page.data.map(({ position: _, ...e }) => e), next_cursor: page.next_cursor }
  })
