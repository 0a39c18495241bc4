/**
 * The commerce module's storage contract (run on SQLite and PostgreSQL): shipping profiles
 * are scoped by tenant, and a tenant has at most one default, switched in one transaction.
 */
import { Catalog, CatalogRepo, CommerceSettingsRepo, ShippingProfile, ShippingProfileRepo, Time } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { feedTests } from "./commerce-feeds.js"
import { productTests } from "./commerce-products.js"
import { uploadTests } from "./commerce-uploads.js"
import { createStore, newRow, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"

const profile = (tenant: { readonly storeId: any; readonly mode: "live" | "test" }, name: string, isDefault = false) =>
  Effect.gen(function* () {
    return {
      ...(yield* newRow(tenant, ShippingProfile.ShippingProfileId.generate)),
      name,
      destinations: [{ country: "US", regions: [], rates: [{ name: "Standard", price: 499, currency: "USD", min_days: 2, max_days: 5 }] }],
      handlingTime: { min_days: 1, max_days: 3 },
      isDefault
    } satisfies ShippingProfile.ShippingProfile
  })

const tests = (it: ContractIt): void => {
  describe("ShippingProfileRepo", () => {
    it.effect("the first profile of a tenant becomes its default; a new default unsets the other; the other mode and store keep theirs", () =>
      Effect.gen(function* () {
        const repo = yield* ShippingProfileRepo.ShippingProfileRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const test = tenantOf(store.id, "test")
        const a = yield* repo.insert(live, yield* profile(live, "A"))
        expect(a.isDefault).toBe(true)
        const b = yield* repo.insert(live, yield* profile(live, "B"))
        expect(b.isDefault).toBe(false)
        const t = yield* repo.insert(test, yield* profile(test, "T"))
        const o = yield* repo.insert(tenantOf(other.id), yield* profile(tenantOf(other.id), "O"))
        const c = yield* repo.insert(live, yield* profile(live, "C", true))
        const defaults = (tenant: typeof live) =>
          Effect.map(repo.list(tenant, { limit: 100 }), (s) => s.items.filter((p) => p.isDefault).map((p) => p.id))
        expect(yield* defaults(live)).toEqual([c.id])
        yield* repo.update(live, b.id, { isDefault: true }, c.createdAt + 1)
        expect(yield* defaults(live)).toEqual([b.id])
        expect(yield* defaults(test)).toEqual([t.id])
        expect(yield* defaults(tenantOf(other.id))).toEqual([o.id])
        expect(a.id).not.toBe(b.id)
      })
    )

    it.effect("find, update and remove see only the tenant's rows", () =>
      Effect.gen(function* () {
        const repo = yield* ShippingProfileRepo.ShippingProfileRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const p = yield* repo.insert(live, yield* profile(live, "P"))
        for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id, "live")]) {
          expect(Option.isNone(yield* repo.find(stranger, p.id))).toBe(true)
          expect(Option.isNone(yield* repo.update(stranger, p.id, { name: "X" }, p.createdAt + 1))).toBe(true)
          expect(yield* repo.remove(stranger, p.id)).toBe(false)
        }
        const updated = yield* repo.update(live, p.id, { name: "Q" }, p.createdAt + 5)
        expect(Option.map(updated, (u) => [u.name, u.updatedAt, u.destinations])).toEqual(Option.some(["Q", p.createdAt + 5, p.destinations]))
        expect(Option.map(yield* repo.find(live, p.id), (f) => f.name)).toEqual(Option.some("Q"))
        expect(yield* repo.remove(live, p.id)).toBe(true)
        expect(Option.isNone(yield* repo.find(live, p.id))).toBe(true)
      })
    )
  })
}

const settingsTests = (it: ContractIt): void => {
  describe("CommerceSettingsRepo", () => {
    it.effect("one row per tenant: save inserts, then replaces; other tenants see none", () =>
      Effect.gen(function* () {
        const repo = yield* CommerceSettingsRepo.CommerceSettingsRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        expect(Option.isNone(yield* repo.find(live))).toBe(true)
        const first = {
          storeId: store.id,
          mode: "live" as const,
          isCartEnabled: true,
          isCatalogVisible: false,
          country: "US",
          currency: "USD",
          payments: {
            payment_type: "upi" as const,
            payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "main" } }]
          },
          orderUpdatesTemplate: { name: "order_update", language: "en_US" },
          updatedAt: 5
        }
        yield* repo.save(live, first)
        expect(yield* repo.find(live)).toEqual(Option.some(first))
        const second = { ...first, isCartEnabled: false, country: null, payments: null, orderUpdatesTemplate: null, updatedAt: 9 }
        yield* repo.save(live, second)
        expect(yield* repo.find(live)).toEqual(Option.some(second))
        expect(Option.isNone(yield* repo.find(tenantOf(store.id, "test")))).toBe(true)
      })
    )
  })
}

const catalogTests = (it: ContractIt): void => {
  describe("CatalogRepo", () => {
    it.effect("one operator catalog is at most one catalog of a tenant, held by one store (both its modes); other tenants see nothing", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepo.CatalogRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const now = yield* Time.now
        const make = (tenant: typeof live, operatorCatalogId: string) =>
          Effect.map(Catalog.CatalogId.generate, (id) => ({
            id,
            storeId: tenant.storeId,
            mode: tenant.mode,
            name: "C",
            operatorCatalogId,
            origin: "created" as const,
            connected: true,
            createdAt: now,
            updatedAt: now
          }))
        const c = yield* make(live, "700000000000001")
        yield* repo.insert(live, c)
        const twice = yield* Effect.either(repo.insert(live, yield* make(live, "700000000000001")))
        expect(twice._tag === "Left" && twice.left._tag).toBe("ResourceAlreadyExists")
        yield* repo.insert(tenantOf(store.id, "test"), yield* make(tenantOf(store.id, "test"), "700000000000001"))
        expect(yield* repo.heldByAnotherStore(live, "700000000000001")).toBe(false)
        expect(yield* repo.heldByAnotherStore(tenantOf(other.id), "700000000000001")).toBe(true)
        // another store may not hold it, and nothing of its is written
        const stolen = yield* Effect.either(repo.insert(tenantOf(other.id), yield* make(tenantOf(other.id), "700000000000001")))
        expect(stolen._tag === "Left" && stolen.left._tag).toBe("ResourceNotFound")
        expect((yield* repo.list(tenantOf(other.id), { limit: 10 })).items).toEqual([])
        expect((yield* repo.list(live, { limit: 10 })).items.map((x) => x.id)).toEqual([c.id])
        for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id)]) {
          expect(Option.isNone(yield* repo.find(stranger, c.id))).toBe(true)
          expect(Option.isNone(yield* repo.update(stranger, c.id, { name: "X" }, now + 1))).toBe(true)
          expect(yield* repo.remove(stranger, c.id)).toBe(false)
        }
        const updated = yield* repo.update(live, c.id, { name: "D", connected: false }, now + 7)
        expect(Option.map(updated, (u) => [u.name, u.connected, u.updatedAt])).toEqual(Option.some(["D", false, now + 7]))
        expect(yield* repo.remove(live, c.id)).toBe(true)
        // the store keeps its claim after deleting its catalog
        expect(yield* repo.heldByAnotherStore(tenantOf(other.id), "700000000000001")).toBe(true)
      })
    )

    it.effect("two stores inserting the same operator catalog at once: exactly one holds it", () =>
      Effect.gen(function* () {
        const repo = yield* CatalogRepo.CatalogRepo
        const now = yield* Time.now
        for (let round = 0; round < 5; round++) {
          const operatorCatalogId = `71000000000000${round}`
          const stores = [(yield* createStore()).store, (yield* createStore()).store]
          const rows = yield* Effect.forEach(stores, (s) =>
            Effect.map(Catalog.CatalogId.generate, (id) => ({
              id,
              storeId: s.id,
              mode: "live" as const,
              name: "C",
              operatorCatalogId,
              origin: "connected" as const,
              connected: true,
              createdAt: now,
              updatedAt: now
            }))
          )
          const outcomes = yield* Effect.forEach(rows, (row) => Effect.either(repo.insert(tenantOf(row.storeId), row)), { concurrency: "unbounded" })
          expect(outcomes.map((o) => (o._tag === "Left" ? o.left._tag : "ok")).sort()).toEqual(["ResourceNotFound", "ok"])
          const held = yield* Effect.forEach(stores, (s) => Effect.map(repo.list(tenantOf(s.id), { limit: 10 }), (page) => page.items.length))
          expect(held.sort()).toEqual([0, 1])
        }
      })
    )
  })
}

export const commerceContract: ModuleContract = {
  name: "commerce",
  tests: (it) => {
    tests(it)
    settingsTests(it)
    catalogTests(it)
    productTests(it)
    feedTests(it)
    uploadTests(it)
  }
}
