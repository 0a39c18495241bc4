/**
 * The commerce storage contract for products and batches (run on SQLite and PostgreSQL):
 * products are unique by retailer id in a catalog, outcomes are applied in one go (an
 * existing product keeps its id and creation time, its errors are replaced), every read is
 * scoped by tenant; a batch chunk takes its handle once and is finished once, and the
 * batch's counts and status follow its chunks.
 */
import { BatchRepo, Catalog, Product, ProductBatch, ProductRepo, Time, Transactor } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, newRow, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

type Tenant = ReturnType<typeof tenantOf>

const product = (tenant: Tenant, catalogId: Catalog.CatalogId, retailerId: string, over: Partial<Product.Product> = {}) =>
  Effect.gen(function* () {
    return {
      ...(yield* newRow(tenant, Product.ProductId.generate)),
      catalogId,
      retailerId,
      name: `Product ${retailerId}`,
      description: null,
      price: 1999,
      salePrice: null,
      currency: "USD",
      availability: "in stock",
      condition: "new",
      imageUrl: `https://img.example.com/${retailerId}.jpg`,
      url: null,
      brand: null,
      category: null,
      inventory: 3,
      visibility: "published",
      reviewStatus: "pending",
      errors: [],
      ...over
    } satisfies Product.Product
  })

const imageError: Product.ProductError = { type: "IMAGE_QUALITY", severity: "MUST_FIX", code: "image_quality", message: "bad image" }
const policyError: Product.ProductError = { type: "POLICY_VIOLATION", severity: "MUST_FIX", code: "policy_violation", message: "counterfeit" }

export const productTests = (it: ContractIt): void => {
  describe("ProductRepo", () => {
    it.effect(
      "retailer ids are unique per catalog; apply upserts (keeping id and creation), deletes and replaces errors; filters and scoping hold",
      () =>
        Effect.gen(function* () {
          const repo = yield* ProductRepo.ProductRepo
          const { store } = yield* createStore()
          const { store: other } = yield* createStore()
          const live = tenantOf(store.id, "live")
          const cat = yield* Catalog.CatalogId.generate
          const a = yield* product(live, cat, "A")
          yield* repo.insert(live, a)
          const twice = yield* Effect.either(repo.insert(live, yield* product(live, cat, "A")))
          expect(twice._tag === "Left" && twice.left._tag).toBe("ResourceAlreadyExists")
          const otherCat = yield* Catalog.CatalogId.generate
          yield* repo.insert(live, yield* product(live, otherCat, "A"))

          const aAgain = yield* product(live, cat, "A", {
            name: "Renamed",
            reviewStatus: "rejected",
            errors: [imageError, policyError],
            createdAt: a.createdAt + 99
          })
          const b = yield* product(live, cat, "B", { reviewStatus: "approved", availability: "out of stock" })
          const c = yield* product(live, cat, "C", { reviewStatus: "rejected", errors: [imageError] })
          yield* repo.apply(live, cat, { upserts: [aAgain, b, c], deletes: [] })
          const found = yield* repo.findByRetailerIds(live, cat, ["A", "B", "C", "Z"])
          expect(found.map((p) => p.retailerId).sort()).toEqual(["A", "B", "C"])
          const storedA = found.find((p) => p.retailerId === "A")!
          expect([storedA.id, storedA.createdAt, storedA.name, storedA.errors]).toEqual([a.id, a.createdAt, "Renamed", [imageError, policyError]])
          expect(yield* repo.count(live, cat)).toBe(3)
          expect(yield* repo.countWithErrors(live, cat)).toBe(2)

          const ids = (filters: ProductRepo.ListFilters) =>
            Effect.map(repo.list(live, cat, filters, { limit: 10 }), (s) => s.items.map((p) => p.retailerId).sort())
          expect(yield* ids({ hasErrors: true })).toEqual(["A", "C"])
          expect(yield* ids({ hasErrors: false })).toEqual(["B"])
          expect(yield* ids({ reviewStatus: "approved" })).toEqual(["B"])
          expect(yield* ids({ availability: "out of stock" })).toEqual(["B"])
          expect(yield* ids({ retailerId: "C" })).toEqual(["C"])
          const page1 = yield* repo.list(live, cat, {}, { limit: 2 })
          const page2 = yield* repo.list(live, cat, {}, { limit: 2, after: page1.items[1].id })
          expect([page1.hasMore, page2.hasMore, page1.items.length + page2.items.length]).toEqual([true, false, 3])

          expect(yield* repo.diagnostics(live, cat)).toEqual([
            { type: "IMAGE_QUALITY", severity: "MUST_FIX", products: 2 },
            { type: "POLICY_VIOLATION", severity: "MUST_FIX", products: 1 }
          ])
          const e1 = yield* repo.errors(live, cat, {}, { limit: 2 })
          const e2 = yield* repo.errors(live, cat, {}, { limit: 2, after: { retailerId: e1.items[1].retailerId, n: e1.items[1].n } })
          expect([...e1.items, ...e2.items].map((e) => `${e.retailerId}:${e.type}`)).toEqual([
            "A:IMAGE_QUALITY",
            "A:POLICY_VIOLATION",
            "C:IMAGE_QUALITY"
          ])
          expect((yield* repo.errors(live, cat, { type: "POLICY_VIOLATION" }, { limit: 10 })).items.map((e) => e.productId)).toEqual([a.id])
          expect((yield* repo.errors(live, cat, { severity: "OPPORTUNITY" }, { limit: 10 })).items).toEqual([])

          for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id, "live")]) {
            expect(Option.isNone(yield* repo.find(stranger, a.id))).toBe(true)
            expect((yield* repo.list(stranger, cat, {}, { limit: 10 })).items).toEqual([])
            expect(yield* repo.findByRetailerIds(stranger, cat, ["A"])).toEqual([])
            expect((yield* repo.errors(stranger, cat, {}, { limit: 10 })).items).toEqual([])
            expect(yield* repo.remove(stranger, a.id)).toBe(false)
          }

          yield* repo.apply(live, cat, { upserts: [{ ...b, errors: [] }], deletes: ["A"] })
          expect(Option.isNone(yield* repo.find(live, a.id))).toBe(true)
          expect(yield* repo.diagnostics(live, cat)).toEqual([{ type: "IMAGE_QUALITY", severity: "MUST_FIX", products: 1 }])
          expect(yield* repo.remove(live, c.id)).toBe(true)
          expect(yield* repo.diagnostics(live, cat)).toEqual([])
          yield* repo.removeCatalog(live, cat)
          expect(yield* repo.count(live, cat)).toBe(0)
          expect(yield* repo.count(live, otherCat)).toBe(1)
        })
    )
  })

  describe("ProductRepo.refreshStaged", () => {
    it.effect(
      "writes the new products, those whose data differs (nulls compared as values) and those still pending; leaves the others and their errors; answers the written",
      () =>
        Effect.gen(function* () {
          const repo = yield* ProductRepo.ProductRepo
          const { store } = yield* createStore()
          const live = tenantOf(store.id, "live")
          const cat = yield* Catalog.CatalogId.generate
          const same = yield* product(live, cat, "SAME", { reviewStatus: "approved", description: null })
          const renamed = yield* product(live, cat, "RENAMED", { reviewStatus: "approved" })
          const described = yield* product(live, cat, "DESCRIBED", { reviewStatus: "rejected", errors: [imageError] })
          const flagged = yield* product(live, cat, "FLAGGED", { reviewStatus: "rejected", errors: [policyError] })
          yield* repo.apply(live, cat, { upserts: [same, renamed, described, flagged], deletes: [] })

          // the upload's view: fresh ids, pending, no errors; only data decides
          const fresh = (p: Product.Product, over: Partial<Product.Product> = {}) =>
            Effect.map(Product.ProductId.generate, (id) => ({ ...p, id, ...over }))
          /** The products staged under a key of their own, refreshed into `catalogId`, then unstaged. */
          const refresh = (catalogId: Catalog.CatalogId, products: ReadonlyArray<Product.Product>) =>
            Effect.gen(function* () {
              const key = `upl_${yield* Product.ProductId.generate}`
              yield* repo.stage(
                key,
                0,
                products.map((p) => ({ id: p.id, data: Product.dataOf(p) }))
              )
              const written = yield* repo.refreshStaged(live, catalogId, { key, from: 0, to: products.length, at: (yield* Time.now) + 5 })
              yield* repo.unstage(key)
              return written
            })
          const added = yield* product(live, cat, "ADDED")
          const written = yield* refresh(cat, [
            yield* fresh(same),
            yield* fresh(renamed, { name: "New name" }),
            yield* fresh(described, { description: "now described" }),
            yield* fresh(flagged),
            added
          ])
          expect([...written].sort()).toEqual(["ADDED", "DESCRIBED", "RENAMED"])

          const byRid = new Map(
            (yield* repo.findByRetailerIds(live, cat, ["SAME", "RENAMED", "DESCRIBED", "FLAGGED", "ADDED"])).map((p) => [p.retailerId, p])
          )
          expect([byRid.get("SAME")!.reviewStatus, byRid.get("SAME")!.id]).toEqual(["approved", same.id])
          expect([byRid.get("FLAGGED")!.reviewStatus, byRid.get("FLAGGED")!.errors]).toEqual(["rejected", [policyError]])
          expect([byRid.get("RENAMED")!.name, byRid.get("RENAMED")!.reviewStatus, byRid.get("RENAMED")!.id, byRid.get("RENAMED")!.createdAt]).toEqual(
            ["New name", "pending", renamed.id, renamed.createdAt]
          )
          expect([byRid.get("DESCRIBED")!.description, byRid.get("DESCRIBED")!.errors]).toEqual(["now described", []])
          expect(yield* repo.diagnostics(live, cat)).toEqual([{ type: "POLICY_VIOLATION", severity: "MUST_FIX", products: 1 }])
          // unchanged and reviewed: left; unchanged but still pending: written again (it may never have been sent)
          const again = yield* repo.findByRetailerIds(live, cat, ["SAME", "RENAMED"])
          expect(yield* refresh(cat, yield* Effect.forEach(again, (p) => fresh(p)))).toEqual(["RENAMED"])
          // another catalog's products are not this one's
          const elsewhere = yield* Catalog.CatalogId.generate
          expect(yield* refresh(elsewhere, [yield* fresh(added, { name: "Elsewhere" })])).toEqual(["ADDED"])
          expect((yield* repo.findByRetailerIds(live, cat, ["ADDED"])).map((p) => p.name)).toEqual([added.name])
        })
    )
  })

  describe("ProductRepo.stage and refreshStaged", () => {
    it.effect(
      "rows staged in a transaction (INSERT) and outside one (COPY where the store has it) refresh a catalog alike (same written, same stored products, any text), by position range; unstage drops them",
      () =>
        Effect.gen(function* () {
          const repo = yield* ProductRepo.ProductRepo
          const transactor = yield* Transactor.Transactor
          const { store } = yield* createStore()
          const live = tenantOf(store.id, "live")
          // two catalogs with the same products: one refreshed from rows staged by one path, the other by the other
          const seeded = (cat: Catalog.CatalogId) =>
            Effect.gen(function* () {
              const seed = [
                yield* product(live, cat, "SAME", { reviewStatus: "approved" }),
                yield* product(live, cat, "RENAMED", { reviewStatus: "approved" }),
                yield* product(live, cat, "DESCRIBED", { reviewStatus: "rejected", errors: [imageError] }),
                yield* product(live, cat, "FLAGGED", { reviewStatus: "rejected", errors: [policyError] }),
                yield* product(live, cat, "PENDING")
              ]
              yield* repo.apply(live, cat, { upserts: seed, deletes: [] })
              return seed
            })
          const inserted = yield* Catalog.CatalogId.generate
          const viaStaging = yield* Catalog.CatalogId.generate
          const seed = yield* seeded(inserted)
          const seedOfStaging = yield* seeded(viaStaging)
          const at = (yield* Time.now) + 5
          // text COPY escapes: tabs, line breaks, backslashes, COPY's own null and end markers, any script
          const awkward = "Tab\there; new\nline\r\n back\\slash \\N \\. «ünïcødé» 🛒"
          const upload = Effect.gen(function* () {
            const data = [
              { ...Product.dataOf(seed[0]) },
              { ...Product.dataOf(seed[1]), name: "New name" },
              { ...Product.dataOf(seed[2]), description: "now described" },
              { ...Product.dataOf(seed[3]) },
              { ...Product.dataOf(seed[4]) },
              { ...Product.dataOf(seed[0]), retailer_id: "ADDED", sale_price: 999, brand: "Brand", inventory: null },
              { ...Product.dataOf(seed[0]), retailer_id: "AWKWARD", name: awkward, description: "\\N", brand: "\\.", category: "", url: null },
              { ...Product.dataOf(seed[0]), retailer_id: "\t\\N", name: "\\", description: awkward, price: 0, inventory: 2 ** 40 }
            ]
            return yield* Effect.forEach(data, (d) => Effect.map(Product.ProductId.generate, (id) => ({ id, data: d })))
          })
          const key = `upl_${viaStaging}`
          const rows = yield* upload
          const insertedRows = yield* upload
          // the same rows through each path: in a transaction (multi-row INSERT), and in two blocks outside one
          yield* transactor.withTransaction(repo.stage(`${key}_inserted`, 0, insertedRows))
          yield* repo.stage(key, 0, rows.slice(0, 2))
          yield* repo.stage(key, 2, rows.slice(2))
          // another upload's staged rows are not these
          yield* repo.stage(`${key}_other`, 0, [{ id: yield* Product.ProductId.generate, data: { ...rows[5].data, retailer_id: "OTHER" } }])
          const first = yield* repo.refreshStaged(live, inserted, { key: `${key}_inserted`, from: 0, to: 8, at })
          const staged = [
            ...(yield* repo.refreshStaged(live, viaStaging, { key, from: 0, to: 3, at })),
            ...(yield* repo.refreshStaged(live, viaStaging, { key, from: 3, to: 8, at }))
          ]
          expect([...staged].sort()).toEqual([...first].sort())
          expect([...staged].sort()).toEqual(["\t\\N", "ADDED", "AWKWARD", "DESCRIBED", "PENDING", "RENAMED"])

          const rids = ["SAME", "RENAMED", "DESCRIBED", "FLAGGED", "PENDING", "ADDED", "AWKWARD", "\t\\N", "OTHER"]
          // each product as stored, with whether it kept the id of the seed's product
          const stored = (cat: Catalog.CatalogId, before: ReadonlyArray<Product.Product>) =>
            Effect.map(repo.findByRetailerIds(live, cat, rids), (ps) =>
              [...ps]
                .sort((a, b) => (a.retailerId < b.retailerId ? -1 : 1))
                .map(({ catalogId: _, id, ...p }) => ({ ...p, kept: before.some((s) => s.id === id) }))
            )
          const byInsert = yield* stored(inserted, seed)
          const fromStaging = yield* stored(viaStaging, seedOfStaging)
          expect(fromStaging).toEqual(byInsert)
          expect(fromStaging.map((p) => [p.retailerId, p.kept, p.reviewStatus, p.errors.length])).toEqual([
            ["\t\\N", false, "pending", 0],
            ["ADDED", false, "pending", 0],
            ["AWKWARD", false, "pending", 0],
            ["DESCRIBED", true, "pending", 0],
            ["FLAGGED", true, "rejected", 1],
            ["PENDING", true, "pending", 0],
            ["RENAMED", true, "pending", 0],
            ["SAME", true, "approved", 0]
          ])
          // every value as staged, whichever path staged it
          for (const row of rows) {
            const [found] = yield* repo.findByRetailerIds(live, viaStaging, [row.data.retailer_id])
            if (row.data.retailer_id === "SAME" || row.data.retailer_id === "FLAGGED") continue
            expect(Product.dataOf(found)).toEqual(row.data)
          }
          expect(yield* repo.diagnostics(live, viaStaging)).toEqual(yield* repo.diagnostics(live, inserted))

          // the same rows again: only the still pending are written; after unstage, nothing is
          expect([...(yield* repo.refreshStaged(live, viaStaging, { key, from: 0, to: 8, at }))].sort()).toEqual([
            "\t\\N",
            "ADDED",
            "AWKWARD",
            "DESCRIBED",
            "PENDING",
            "RENAMED"
          ])
          yield* repo.unstage(key)
          yield* repo.unstage(`${key}_inserted`)
          expect(yield* repo.refreshStaged(live, viaStaging, { key, from: 0, to: 8, at })).toEqual([])
          expect(yield* repo.refreshStaged(live, viaStaging, { key: `${key}_other`, from: 0, to: 1, at })).toEqual(["OTHER"])
          yield* repo.unstage(`${key}_other`)
        })
    )
  })

  describe("BatchRepo and BatchWorkRepo", () => {
    it.effect("a chunk takes its handle once and finishes once; counts, errors and status follow; reads are scoped by tenant", () =>
      Effect.gen(function* () {
        const repo = yield* BatchRepo.BatchRepo
        const work = yield* BatchRepo.BatchWorkRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const cat = yield* Catalog.CatalogId.generate
        const now = yield* Time.now
        const batch: ProductBatch.ProductBatch = {
          id: yield* ProductBatch.ProductBatchId.generate,
          storeId: store.id,
          mode: "live",
          catalogId: cat,
          source: "api",
          status: "queued",
          allowUpsert: true,
          total: 4,
          processed: 1,
          succeeded: 0,
          failed: 1,
          createdAt: now,
          updatedAt: now,
          finishedAt: null
        }
        const req = (index: number): ProductBatch.ChunkRequest => ({
          index,
          method: "CREATE",
          data: { retailer_id: `R${index}`, name: "N", price: 1, currency: "USD" }
        })
        const invalid: ProductBatch.BatchError = {
          index: 1,
          retailer_id: "R1",
          code: "validation_failed",
          message: "must be an integer",
          field: "price"
        }
        yield* repo.create(live, batch, [[req(0), req(2)], [req(3)]], [invalid])
        expect(Option.map(yield* repo.find(live, batch.id), (b) => b.status)).toEqual(Option.some("queued"))
        expect(Option.isNone(yield* repo.find(tenantOf(store.id, "test"), batch.id))).toBe(true)
        expect(yield* repo.hasOpen(live, cat)).toBe(true)
        expect((yield* work.openChunks(batch.id)).map((c) => [c.seq, c.size, c.handle])).toEqual([
          [0, 2, null],
          [1, 1, null]
        ])
        expect(yield* work.chunkRequests(batch.id, 1)).toEqual([req(3)])

        expect(yield* work.markSent(batch.id, 0, "h-0", now + 10, now + 20)).toBe(true)
        expect(yield* work.markSent(batch.id, 0, "h-again", now + 11, now + 21)).toBe(false)
        expect((yield* work.openChunks(batch.id))[0]).toEqual({ seq: 0, size: 2, handle: "h-0", sentAt: now + 10, nextPollAt: now + 20 })
        expect(Option.map(yield* work.find(batch.id), (b) => b.status)).toEqual(Option.some("in_progress"))
        expect(yield* work.sentSince(cat, now + 10)).toEqual([now + 10])
        expect(yield* work.sentSince(cat, now + 11)).toEqual([])

        const rejected: ProductBatch.BatchError = { index: 2, retailer_id: "R2", code: "image_quality", message: "bad image", field: null }
        expect(yield* work.finishChunk(batch.id, 0, { succeeded: 1, failed: 1, errors: [rejected] }, now + 30)).toBe(true)
        expect(yield* work.finishChunk(batch.id, 0, { succeeded: 1, failed: 1, errors: [rejected] }, now + 31)).toBe(false)
        const mid = Option.getOrThrow(yield* repo.find(live, batch.id))
        expect([mid.status, mid.processed, mid.succeeded, mid.failed]).toEqual(["in_progress", 3, 1, 2])
        yield* work.markSent(batch.id, 1, "h-1", now + 40, now + 50)
        expect(yield* work.finishChunk(batch.id, 1, { succeeded: 1, failed: 0, errors: [] }, now + 60)).toBe(true)
        const done = Option.getOrThrow(yield* repo.find(live, batch.id))
        expect([done.status, done.processed, done.succeeded, done.failed, done.finishedAt]).toEqual(["finished", 4, 2, 2, now + 60])
        expect(yield* work.openChunks(batch.id)).toEqual([])
        expect(yield* repo.hasOpen(live, cat)).toBe(false)

        const first = yield* repo.errors(live, batch.id, { limit: 1 })
        const rest = yield* repo.errors(live, batch.id, { limit: 5, after: first.items[0].position })
        expect([...first.items, ...rest.items].map((e) => [e.position, e.index, e.code])).toEqual([
          [0, 1, "validation_failed"],
          [1, 2, "image_quality"]
        ])
        expect((yield* repo.errors(tenantOf(store.id, "test"), batch.id, { limit: 5 })).items).toEqual([])
        expect((yield* repo.list(live, cat, { limit: 5 })).items.map((b) => b.id)).toEqual([batch.id])
        yield* repo.removeCatalog(live, cat)
        expect(Option.isNone(yield* repo.find(live, batch.id))).toBe(true)
      })
    )
  })
}
