/**
 * The commerce storage contract for feeds (run on SQLite and PostgreSQL): feeds, uploads and
 * upload errors are scoped by tenant; errors page by position; deleting a feed takes its
 * uploads and errors; the worker finds an upload with its feed and tenant by id alone.
 */
import { Catalog, Feed, FeedRepo, Time } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const feedTests = (it: ContractIt): void => {
  describe("FeedRepo and FeedWorkRepo", () => {
    it.effect("feeds, uploads and their errors are the tenant's; a feed goes with its uploads", () =>
      Effect.gen(function* () {
        const repo = yield* FeedRepo.FeedRepo
        const work = yield* FeedRepo.FeedWorkRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const now = yield* Time.now
        const cat = yield* Catalog.CatalogId.generate
        const feed: Feed.Feed = {
          id: yield* Feed.FeedId.generate,
          storeId: store.id,
          mode: "live",
          catalogId: cat,
          name: "Nightly",
          delimiter: "TAB",
          defaultCurrency: "EUR",
          deletionEnabled: true,
          schedule: { interval: "WEEKLY", url: "https://shop.example.com/f.tsv", hour: 3, day_of_week: 1 },
          createdAt: now,
          updatedAt: now
        }
        yield* repo.insert(live, feed)
        expect(yield* repo.find(live, feed.id)).toEqual(Option.some(feed))
        const upload: Feed.Upload = {
          id: yield* Feed.UploadId.generate,
          feedId: feed.id,
          storeId: store.id,
          mode: "live",
          catalogId: cat,
          inputMethod: "url",
          filename: null,
          url: "https://shop.example.com/f.tsv",
          status: "processing",
          numDetectedItems: 0,
          numPersistedItems: 0,
          numInvalidItems: 0,
          numDeletedItems: 0,
          error: null,
          batchHandle: null,
          startedAt: now,
          endedAt: null
        }
        yield* repo.insertUpload(live, upload)
        const ended = { ...upload, status: "finished" as const, numDetectedItems: 3, numPersistedItems: 2, numInvalidItems: 1, endedAt: now + 5 }
        yield* repo.saveUpload(live, ended)
        expect(yield* repo.findUpload(live, upload.id)).toEqual(Option.some(ended))
        const found = yield* work.findUpload(upload.id)
        expect(Option.map(found, (f) => [f.tenant, f.feed.id, f.upload.status])).toEqual(Option.some([live, feed.id, "finished"]))
        yield* repo.addUploadErrors(live, upload.id, 0, [
          { row_number: 4, retailer_id: "A", field: "price", message: "bad", severity: "fatal" },
          { row_number: 9, retailer_id: null, field: "retailer_id", message: "missing", severity: "fatal" }
        ])
        const first = yield* repo.uploadErrors(live, upload.id, { limit: 1 })
        const rest = yield* repo.uploadErrors(live, upload.id, { limit: 5, after: first.items[0].position })
        expect([...first.items, ...rest.items].map((e) => e.row_number)).toEqual([4, 9])
        for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id)]) {
          expect(Option.isNone(yield* repo.find(stranger, feed.id))).toBe(true)
          expect((yield* repo.list(stranger, cat, { limit: 10 })).items).toEqual([])
          expect(Option.isNone(yield* repo.findUpload(stranger, upload.id))).toBe(true)
          expect((yield* repo.uploadErrors(stranger, upload.id, { limit: 10 })).items).toEqual([])
          expect(yield* repo.save(stranger, { ...feed, name: "Stolen" })).toBe(false)
          expect(yield* repo.remove(stranger, feed.id)).toBe(false)
        }
        expect(yield* repo.save(live, { ...feed, schedule: null, updatedAt: now + 1 })).toBe(true)
        expect(Option.map(yield* repo.find(live, feed.id), (f) => f.schedule)).toEqual(Option.some(null))
        expect(yield* repo.remove(live, feed.id)).toBe(true)
        expect(Option.isNone(yield* repo.findUpload(live, upload.id))).toBe(true)
        expect((yield* repo.uploadErrors(live, upload.id, { limit: 10 })).items).toEqual([])
      })
    )
  })
}
