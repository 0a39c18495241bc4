/** The contract of `StoreRepo`, `TemplateRepo` and `TemplateStatusRepo`: stores with their keys and accounts, templates scoped by store. */
import { Errors, Id, Store, StoreRepo, Template, TemplateRepo, Tenant } from "@switchboard/domain"
import { Effect, Exit, Option } from "effect"
import { describe, expect } from "vitest"
import { body, createStore, insertTemplate, state, template, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const storeTests = (it: ContractIt): void => {
  describe("StoreRepo", () => {
    it.effect("stores a store with its accounts and finds it by id", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const plain = yield* createStore()
        const withLive = yield* createStore({ live: true })
        expect(yield* repo.findById(plain.store.id)).toEqual(Option.some(plain.store))
        expect(yield* repo.findById(withLive.store.id)).toEqual(Option.some(withLive.store))
        expect(Option.getOrThrow(yield* repo.findById(withLive.store.id)).live?.kind).toBe("live")
        expect(yield* repo.findById(yield* Tenant.StoreId.generate)).toEqual(Option.none())
        const ids = (yield* repo.list()).map((s) => s.id)
        expect(ids).toContain(plain.store.id)
        expect(ids).toContain(withLive.store.id)
      })
    )

    it.effect("finds the store and mode of a key hash, and nothing for an unknown hash", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const a = yield* createStore()
        const b = yield* createStore()
        for (const made of [a, b]) {
          for (const key of made.keys) {
            const found = Option.getOrThrow(yield* repo.findByKeyHash(key.hash))
            expect(found.store).toEqual(made.store)
            expect(found.mode).toBe(key.mode)
          }
        }
        expect(yield* repo.findByKeyHash(yield* Store.hashKey(a.liveKey))).toEqual(Option.some({ store: a.store, mode: "live", expiresAt: null }))
        expect(yield* repo.findByKeyHash(yield* Store.hashKey(`sk_live_${Id.randomToken(32)}`))).toEqual(Option.none())
      })
    )

    it.effect("routes phone number ids and WABA ids to the owning store and account", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const { store } = yield* createStore({ live: true })
        const live = store.live!
        expect(yield* repo.findByPhoneNumberId(store.sandbox.phoneNumberId)).toEqual(Option.some({ store, kind: "sandbox" }))
        expect(yield* repo.findByPhoneNumberId(live.phoneNumberId)).toEqual(Option.some({ store, kind: "live" }))
        expect(yield* repo.findByWabaId(store.sandbox.wabaId)).toEqual(Option.some({ store, kind: "sandbox" }))
        expect(yield* repo.findByWabaId(live.wabaId)).toEqual(Option.some({ store, kind: "live" }))
        expect(yield* repo.findByPhoneNumberId("999000111222333")).toEqual(Option.none())
        expect(yield* repo.findByWabaId("999000111222333")).toEqual(Option.none())
        // a WABA id is not a phone number id
        expect(yield* repo.findByPhoneNumberId(store.sandbox.wabaId)).toEqual(Option.none())
      })
    )

    it.effect("writes a store and its keys in one transaction", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const existing = yield* createStore()
        const made = yield* Store.make({ name: "Clash", live: null })
        // the second key reuses a hash that exists: the whole create must roll back
        const keys = [made.keys[0], { ...made.keys[1], hash: existing.keys[0].hash }]
        const exit = yield* Effect.exit(repo.create(made.store, keys))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* repo.findById(made.store.id)).toEqual(Option.none())
        expect(yield* repo.findByKeyHash(made.keys[0].hash)).toEqual(Option.none())
      })
    )
  })

  describe("TemplateRepo", () => {
    it.effect("is scoped by store, not mode: another store never sees, finds or deletes the rows", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const statuses = yield* TemplateRepo.TemplateStatusRepo
        const a = (yield* createStore()).store
        const b = (yield* createStore()).store
        const t = yield* template(a.id, "order_update")
        yield* insertTemplate(t)

        // both modes of the store see the same rows
        for (const tenant of [tenantOf(a.id, "live"), tenantOf(a.id, "test")]) {
          expect(yield* repo.find(tenant, "order_update", "en_US")).toEqual(Option.some(t))
          expect(yield* repo.findByName(tenant, "order_update")).toEqual([t])
          expect((yield* repo.list(tenant, { limit: 10 })).items).toEqual([t])
        }

        const other = tenantOf(b.id)
        expect(yield* repo.find(other, "order_update", "en_US")).toEqual(Option.none())
        expect(yield* repo.findByName(other, "order_update")).toEqual([])
        expect(yield* repo.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
        expect(yield* statuses.updateStatus(b.id, "order_update", "en_US", { status: "APPROVED", rejectedReason: null })).toBe(false)
        expect(yield* repo.deleteByName(other, "order_update")).toBe(0)
        expect(yield* repo.replaceAll(other, [], Template.TemplateId.generate)).toBe(0)

        expect(yield* repo.find(tenantOf(a.id), "order_update", "en_US")).toEqual(Option.some(t))
      })
    )

    it.effect("refuses a second (store, name, language) with ResourceAlreadyExists", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const a = (yield* createStore()).store
        const b = (yield* createStore()).store
        yield* insertTemplate(yield* template(a.id, "welcome"))
        const error = yield* Effect.flip(insertTemplate(yield* template(a.id, "welcome", { status: "APPROVED" })))
        expect(error).toBeInstanceOf(Errors.ResourceAlreadyExists)
        expect(error.resource).toBe("template")
        // the other mode's key is the same store: still taken
        const again = yield* template(a.id, "welcome")
        expect(yield* Effect.flip(repo.insert(tenantOf(a.id, "test"), again))).toBeInstanceOf(Errors.ResourceAlreadyExists)
        // another language, or another store, is another template
        yield* insertTemplate(yield* template(a.id, "welcome", { language: "fr" }))
        yield* insertTemplate(yield* template(b.id, "welcome"))
        expect((yield* repo.findByName(tenantOf(a.id), "welcome")).map((t) => t.language)).toEqual(["en_US", "fr"])
        expect((yield* repo.find(tenantOf(a.id), "welcome", "en_US")).pipe(Option.map((t) => t.status))).toEqual(Option.some("PENDING"))
      })
    )

    it.effect("lists newest first, strictly before the cursor, with hasMore", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id)
        const inserted: Array<Template.Template> = []
        for (let i = 0; i < 5; i++) {
          const t = yield* template(store.id, `promo_${i}`, { status: i % 2 === 0 ? "APPROVED" : "PENDING" })
          inserted.push(t)
          yield* insertTemplate(t)
        }
        const newestFirst = [...inserted].reverse()

        const first = yield* repo.list(tenant, { limit: 2 })
        expect(first.items.map((t) => t.id)).toEqual(newestFirst.slice(0, 2).map((t) => t.id))
        expect(first.hasMore).toBe(true)
        const second = yield* repo.list(tenant, { limit: 2, after: first.items[1].id })
        expect(second.items.map((t) => t.id)).toEqual(newestFirst.slice(2, 4).map((t) => t.id))
        expect(second.hasMore).toBe(true)
        const third = yield* repo.list(tenant, { limit: 2, after: second.items[1].id })
        expect(third.items.map((t) => t.id)).toEqual([newestFirst[4].id])
        expect(third.hasMore).toBe(false)
        const exact = yield* repo.list(tenant, { limit: 5 })
        expect(exact.items).toEqual(newestFirst)
        expect(exact.hasMore).toBe(false)

        const approved = newestFirst.filter((t) => t.status === "APPROVED")
        const page = yield* repo.list(tenant, { limit: 1, status: "APPROVED" })
        expect(page.items).toEqual([approved[0]])
        expect(page.hasMore).toBe(true)
        const rest = yield* repo.list(tenant, { limit: 10, status: "APPROVED", after: approved[0].id })
        expect(rest.items).toEqual(approved.slice(1))
        expect(rest.hasMore).toBe(false)
        expect(yield* repo.list(tenant, { limit: 10, status: "REJECTED" })).toEqual({ items: [], hasMore: false })
      })
    )

    it.effect("replaceAll inserts the unknown, updates the changed, deletes the gone, and counts them", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const { store } = yield* createStore()
        const other = (yield* createStore()).store
        const tenant = tenantOf(store.id)
        const kept = yield* template(store.id, "kept", { status: "APPROVED", operatorId: "op_kept", components: body("Hello from kept") })
        const changed = yield* template(store.id, "changed", { status: "PENDING", operatorId: "op_changed", components: body("Hello from changed") })
        const gone = yield* template(store.id, "gone")
        const foreign = yield* template(other.id, "gone")
        for (const t of [kept, changed, gone, foreign]) yield* insertTemplate(t)

        const newIds: Array<string> = []
        const newId = Effect.tap(Template.TemplateId.generate, (id) => Effect.sync(() => newIds.push(id)))
        const report = [
          state("kept"),
          state("changed", { status: "REJECTED", rejectedReason: "INVALID_FORMAT", category: "MARKETING" }),
          state("fresh", { language: "de", status: "PENDING" })
        ]
        expect(yield* repo.replaceAll(tenant, report, newId)).toBe(3)

        expect(yield* repo.find(tenant, "kept", "en_US")).toEqual(Option.some(kept))
        const updated = Option.getOrThrow(yield* repo.find(tenant, "changed", "en_US"))
        expect(updated).toMatchObject({ id: changed.id, status: "REJECTED", rejectedReason: "INVALID_FORMAT", category: "MARKETING" })
        const fresh = Option.getOrThrow(yield* repo.find(tenant, "fresh", "de"))
        expect(newIds).toEqual([fresh.id])
        expect(fresh).toMatchObject({ status: "PENDING", operatorId: "op_fresh", components: body("Hello from fresh") })
        expect(yield* repo.find(tenant, "gone", "en_US")).toEqual(Option.none())
        // another store's row of the same name is untouched
        expect(yield* repo.find(tenantOf(other.id), "gone", "en_US")).toEqual(Option.some(foreign))

        // the same report again changes nothing
        expect(yield* repo.replaceAll(tenant, report, newId)).toBe(0)
        expect(newIds).toHaveLength(1)
        expect((yield* repo.list(tenant, { limit: 10 })).items).toHaveLength(3)

        // an empty report empties the store
        expect(yield* repo.replaceAll(tenant, [], newId)).toBe(3)
        expect((yield* repo.list(tenant, { limit: 10 })).items).toEqual([])
        expect(yield* repo.find(tenantOf(other.id), "gone", "en_US")).toEqual(Option.some(foreign))
      })
    )

    it.effect("TemplateStatusRepo.updateStatus answers whether a row changed", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const statuses = yield* TemplateRepo.TemplateStatusRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id)
        yield* insertTemplate(yield* template(store.id, "shipping", { status: "PENDING" }))
        const update = (language: string, change: Parameters<typeof statuses.updateStatus>[3], name = "shipping") =>
          statuses.updateStatus(store.id, name, language, change)

        expect(yield* update("en_US", { status: "REJECTED", rejectedReason: "SPAM" })).toBe(true)
        expect(Option.getOrThrow(yield* repo.find(tenant, "shipping", "en_US"))).toMatchObject({
          status: "REJECTED",
          rejectedReason: "SPAM",
          category: "UTILITY"
        })
        expect(yield* update("en_US", { status: "REJECTED", rejectedReason: "SPAM" })).toBe(false)
        expect(yield* update("en_US", { status: "APPROVED", rejectedReason: null })).toBe(true)
        expect(yield* update("en_US", { status: "APPROVED", rejectedReason: null })).toBe(false)
        expect(yield* update("en_US", { status: "APPROVED", rejectedReason: null, category: "MARKETING" })).toBe(true)
        expect(Option.getOrThrow(yield* repo.find(tenant, "shipping", "en_US"))).toMatchObject({
          status: "APPROVED",
          rejectedReason: null,
          category: "MARKETING"
        })
        expect(yield* update("fr", { status: "PAUSED", rejectedReason: null })).toBe(false)
        expect(yield* update("en_US", { status: "PAUSED", rejectedReason: null }, "nope")).toBe(false)
      })
    )

    it.effect("TemplateStatusRepo.updateDetails records a category or a quality rating, answering whether a row changed", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const statuses = yield* TemplateRepo.TemplateStatusRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id)
        yield* insertTemplate(yield* template(store.id, "rated", { status: "APPROVED" }))
        const find = () => Effect.map(repo.find(tenant, "rated", "en_US"), Option.getOrThrow)
        expect((yield* find()).qualityScore).toBeNull()

        expect(yield* statuses.updateDetails(store.id, "rated", "en_US", { qualityScore: "YELLOW" })).toBe(true)
        expect(yield* find()).toMatchObject({ qualityScore: "YELLOW", category: "UTILITY", status: "APPROVED" })
        expect(yield* statuses.updateDetails(store.id, "rated", "en_US", { qualityScore: "YELLOW" })).toBe(false)
        expect(yield* statuses.updateDetails(store.id, "rated", "en_US", { category: "MARKETING" })).toBe(true)
        expect(yield* find()).toMatchObject({ qualityScore: "YELLOW", category: "MARKETING" })
        expect(yield* statuses.updateDetails(store.id, "rated", "en_US", {})).toBe(false)
        expect(yield* statuses.updateDetails(store.id, "rated", "fr", { qualityScore: "RED" })).toBe(false)

        // a sync that reports no rating keeps the one recorded; one that reports it replaces it
        yield* repo.replaceAll(
          tenant,
          [state("rated", { category: "MARKETING", status: "APPROVED", operatorId: (yield* find()).operatorId })],
          Template.TemplateId.generate
        )
        expect((yield* find()).qualityScore).toBe("YELLOW")
        yield* repo.replaceAll(tenant, [state("rated", { category: "MARKETING", qualityScore: "GREEN" })], Template.TemplateId.generate)
        expect((yield* find()).qualityScore).toBe("GREEN")
      })
    )

    it.effect("deleteByName removes every language and answers how many", () =>
      Effect.gen(function* () {
        const repo = yield* TemplateRepo.TemplateRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id)
        yield* insertTemplate(yield* template(store.id, "bye"))
        yield* insertTemplate(yield* template(store.id, "bye", { language: "es" }))
        yield* insertTemplate(yield* template(store.id, "stay"))
        expect(yield* repo.deleteByName(tenant, "bye")).toBe(2)
        expect(yield* repo.findByName(tenant, "bye")).toEqual([])
        expect(yield* repo.findByName(tenant, "stay")).toHaveLength(1)
        expect(yield* repo.deleteByName(tenant, "bye")).toBe(0)
      })
    )
  })
}
