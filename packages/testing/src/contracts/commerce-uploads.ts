/**
 * The feed upload's two ways of writing a catalog, proven equal where both exist: while the
 * file is read, in one transaction a malformed file rolls back (`ProductRepo.refreshWhileReading`,
 * PostgreSQL's way), and once it has been read whole, a transaction per group (every store). The
 * same files give the same counts, stored products, upload errors and operator batch chunks;
 * a malformed file writes nothing either way.
 */
import { BatchRepo, Catalog, Feed, FeedReader, FeedRepo, ProductRepo, Uploads } from "@switchboard/domain"
import { Effect, Option, Stream } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

type Tenant = ReturnType<typeof tenantOf>
const HEADER = ["retailer_id", "name", "price", "currency", "image_url", "inventory"]

/** A reader of `lines` (the header first), in groups of 1,000 rows, failing after the last when `malformedAt` names a line. */
const readerOf = (lines: ReadonlyArray<ReadonlyArray<string>>, malformedAt?: number): FeedReader.FeedReader["Type"] => ({
  firstLine: () => Effect.succeed(lines[0].join(",")),
  rows: () => {
    const rows = lines.map((cells, i) => ({ line: i + 1, cells }))
    const groups = Array.from({ length: Math.ceil(rows.length / 1000) }, (_, g) => rows.slice(g * 1000, g * 1000 + 1000))
    const read = Stream.fromIterable(groups)
    return malformedAt === undefined
      ? read
      : Stream.concat(read, Stream.fail(new FeedReader.FeedFileError({ line: malformedAt, message: "a quoted cell is never closed" })))
  },
  download: () => Effect.die("not used"),
  discard: () => Effect.void
})

/** `n` product lines from `P{from}`: every 97th with a bad price, every 3rd renamed when `renamed`. */
const lines = (from: number, n: number, renamed: boolean) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k
    return [
      `P${i}`,
      renamed && i % 3 === 0 ? `Renamed ${i}` : `Item ${i}`,
      i % 97 === 0 ? "abc" : String(100 + i),
      "USD",
      `https://img.example.com/${i}.png`,
      String(i % 7)
    ]
  })

/** A new catalog: its feeds, and an upload to one of them with the catalog written `whileReading` or not, answering what it left. */
const catalogOf = (tenant: Tenant, whileReading: boolean) =>
  Effect.gen(function* () {
    const feeds = yield* FeedRepo.FeedRepo
    const repo = yield* ProductRepo.ProductRepo
    const batches = yield* BatchRepo.BatchRepo
    const work = yield* BatchRepo.BatchWorkRepo
    const catalogId = yield* Catalog.CatalogId.generate
    const feed = (deletionEnabled: boolean): Effect.Effect<Feed.Feed> =>
      Effect.map(Feed.FeedId.generate, (id) => ({
        id,
        storeId: tenant.storeId,
        mode: tenant.mode,
        catalogId,
        name: "Nightly",
        delimiter: "COMMA",
        defaultCurrency: null,
        deletionEnabled,
        schedule: null,
        createdAt: 0,
        updatedAt: 0
      }))
    const upload = (f: Feed.Feed, file: ReadonlyArray<ReadonlyArray<string>>, malformedAt?: number) =>
      Effect.gen(function* () {
        yield* feeds.insert(tenant, f)
        const started = yield* Uploads.start(tenant, f, { inputMethod: "file", filename: "products.csv", url: null })
        const { upload: ended, failure } = yield* Uploads.process(tenant, f, started, "products.csv").pipe(
          Effect.provideService(FeedReader.FeedReader, readerOf(file, malformedAt)),
          Effect.provideService(ProductRepo.ProductRepo, { ...repo, refreshWhileReading: whileReading })
        )
        const errors = yield* feeds.uploadErrors(tenant, ended.id, { limit: 100_000 })
        const chunks: Array<unknown> = []
        if (ended.batchHandle !== null) {
          for (let seq = 0; ; seq++) {
            const requests = yield* work.chunkRequests(ended.batchHandle as never, seq)
            if (requests.length === 0) break
            chunks.push(requests)
          }
        }
        const batch = ended.batchHandle === null ? Option.none() : yield* batches.find(tenant, ended.batchHandle as never)
        const stored = (yield* repo.all(tenant, catalogId))
          .map(({ id: _, catalogId: __, ...p }) => p)
          .sort((a, b) => (a.retailerId < b.retailerId ? -1 : 1))
        return {
          outcome: [ended.status, ended.numDetectedItems, ended.numPersistedItems, ended.numInvalidItems, ended.numDeletedItems, ended.error],
          failure: Option.map(failure, (f) => [f.line, f.message]),
          errors: errors.items.map(({ position: _, ...e }) => e),
          batch: Option.map(batch, (b) => [b.status, b.total, b.source]),
          chunks,
          stored
        }
      })
    return { feed, upload }
  })

/** The three uploads of one catalog, with the catalog written `whileReading` or not; what each left. */
const uploads = (tenant: Tenant, whileReading: boolean) =>
  Effect.gen(function* () {
    const { feed, upload } = yield* catalogOf(tenant, whileReading)
    const first = yield* upload(yield* feed(false), [
      HEADER,
      ...lines(0, 11_000, false),
      ["P5", "Again", "100", "USD", "https://img.example.com/5.png", "1"]
    ])
    // renamed a third, without P0 to P99: those are deleted
    const second = yield* upload(yield* feed(true), [HEADER, ...lines(100, 10_900, true)])
    // every product changed, then a malformed line after more than two groups: nothing is written
    const malformed = yield* upload(
      yield* feed(true),
      [HEADER, ...lines(0, 11_000, false).map(([rid, , ...rest]) => [rid, "Changed", ...rest])],
      11_002
    )
    return { first, second, malformed }
  })

export const uploadTests = (it: ContractIt): void => {
  describe("Uploads.process: the catalog written while the file is read, or once it is read whole", () => {
    it.effect("the same counts, stored products, upload errors and batch chunks either way; a malformed file writes nothing either way", () =>
      Effect.gen(function* () {
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const whole = yield* uploads(live, false)
        // only where the store allows it: on SQLite the open transaction would hold the one
        // connection the staging writes wait for
        if ((yield* ProductRepo.ProductRepo).refreshWhileReading) expect(yield* uploads(live, true)).toEqual(whole)

        // and what they are
        expect(whole.first.outcome).toEqual(["finished", 11_001, 10_886, 115, 0, null])
        expect(whole.first.errors.at(-1)).toEqual({
          row_number: 11_002,
          retailer_id: "P5",
          field: "retailer_id",
          message: "repeats line 7",
          severity: "fatal"
        })
        expect(whole.first.chunks.map((c) => (c as ReadonlyArray<unknown>).length)).toEqual([5000, 5000, 886])
        expect(whole.first.batch).toEqual(Option.some(["queued", 10_886, "feed"]))
        expect(whole.second.outcome).toEqual(["finished", 10_900, 10_788, 112, 98, null])
        expect(whole.second.stored.length).toBe(10_788)
        expect(whole.second.stored.filter((p) => p.name.startsWith("Renamed")).length).toBe(3596)
        expect(whole.malformed.outcome).toEqual(["failed", 0, 0, 0, 0, "line 11002: a quoted cell is never closed"])
        expect(whole.malformed.batch).toEqual(Option.none())
        expect(whole.malformed.stored).toEqual(whole.second.stored)
      })
    )

    it.effect("uploads to one catalog at once, in opposite orders, both finish (they hold the catalog in turn)", () =>
      Effect.gen(function* () {
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const { feed, upload } = yield* catalogOf(live, (yield* ProductRepo.ProductRepo).refreshWhileReading)
        const rows = lines(0, 11_000, false)
        const [forward, backward] = yield* Effect.all(
          [upload(yield* feed(false), [HEADER, ...rows]), upload(yield* feed(false), [HEADER, ...[...rows].reverse()])],
          { concurrency: 2 }
        )
        expect([forward.outcome[0], forward.outcome[2], backward.outcome[0], backward.outcome[2]]).toEqual(["finished", 10_886, "finished", 10_886])
        expect(backward.stored).toEqual(forward.stored)
      })
    )

    it.effect("more uploads at once than the store's pool could hold transactions for all finish, the same", () =>
      Effect.gen(function* () {
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const whileReading = (yield* ProductRepo.ProductRepo).refreshWhileReading
        const done = yield* Effect.all(
          Array.from({ length: 12 }, (_, n) =>
            Effect.flatMap(catalogOf(live, whileReading), ({ feed, upload }) =>
              Effect.flatMap(feed(false), (f) => upload(f, [HEADER, ...lines(n * 1000, 1500, false)]))
            )
          ),
          { concurrency: "unbounded" }
        )
        expect(done.map((d) => [d.outcome[0], d.outcome[1], d.stored.length])).toEqual(
          Array.from({ length: 12 }, (_, n) => ["finished", 1500, lines(n * 1000, 1500, false).filter(([, , price]) => price !== "abc").length])
        )
      })
    )
  })
}
