/**
 * The contract of every storage port, written once and run by each store (SQLite,
 * PostgreSQL) against its own Layer. Time goes through Effect's Clock, so leases, run times
 * and lock timeouts are driven with `TestClock`.
 *
 * The suite shares one database across its tests; each test works in its own stores, job
 * kinds and idempotency scopes, so tests never see each other's rows.
 */
import { layer } from "@effect/vitest"
import {
  Errors,
  Id,
  IdempotencyStore,
  Inbox,
  JobQueue,
  Store,
  StoreRepo,
  type Template,
  TemplateRepo,
  Transactor
} from "@switchboard/domain"
import { Data, Deferred, Duration, Effect, Exit, Fiber, type Layer, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import type { Services } from "../Repositories.js"
import { campaignContract } from "./campaigns.js"
import { messagingContract } from "./MessagingContract.js"

// ---------------------------------------------------------------------------------------
// fixtures

const liveAccount = (): Store.OperatorAccount => ({ ...Store.newSandboxAccount(), kind: "live" })

/** A new store (with its keys) written through the repository. */
const createStore = (options: { readonly live?: boolean } = {}) =>
  Effect.gen(function* () {
    const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: options.live ? liveAccount() : null })
    yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
    return made
  })

const body = (text: string): ReadonlyArray<Template.Component> => [
  { type: "BODY", text: `${text} {{1}}`, example: { body_text: [["Ann"]] } }
]

const template = (
  storeId: string,
  name: string,
  overrides: Partial<Omit<Template.Template, "storeId" | "name">> = {}
): Template.Template => {
  const now = new Date()
  return {
    id: Id.make("tpl"),
    storeId,
    name,
    language: "en_US",
    category: "UTILITY",
    status: "PENDING",
    components: body(`Hello from ${name}`),
    rejectedReason: null,
    operatorId: `op_${Id.randomToken(8)}`,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
}

const insertTemplate = (t: Template.Template) => Effect.flatMap(TemplateRepo.TemplateRepo, (repo) => repo.insert(t))

const state = (name: string, overrides: Partial<TemplateRepo.TemplateState> = {}): TemplateRepo.TemplateState => ({
  operatorId: `op_${name}`,
  name,
  language: "en_US",
  category: "UTILITY",
  status: "APPROVED",
  components: body(`Hello from ${name}`),
  rejectedReason: null,
  ...overrides
})

const uniqueKind = (label: string) => `test.${label}.${Id.randomToken(10)}`

const claimOf = (kind: string, options: { readonly limit?: number; readonly leaseMs?: number; readonly workerId?: string } = {}) =>
  Effect.flatMap(JobQueue.JobQueue, (queue) =>
    queue.claim({
      workerId: options.workerId ?? "worker-1",
      kinds: [kind],
      limit: options.limit ?? 10,
      leaseMs: options.leaseMs ?? 30_000
    })
  )

const leaseOf = (job: JobQueue.Job): JobQueue.Lease => ({ id: job.id, attempt: job.attempt })

const nowMillis = Effect.clockWith((clock) => clock.currentTimeMillis)

class Boom extends Data.TaggedError("Boom") {}
const boom = () => new Boom()

// ---------------------------------------------------------------------------------------

/**
 * Registers the storage contract as a `describe` block named after `name`; `makeLayer`
 * provides every port over a fresh, migrated database (built once for the block).
 */
export const contractSuite = (name: string, makeLayer: () => Layer.Layer<Services, unknown>): void =>
  layer(makeLayer(), { timeout: Duration.minutes(2) })(`storage contract (${name})`, (it) => {
    describe("StoreRepo", () => {
      it.effect("stores a store with its accounts and finds it by id", () =>
        Effect.gen(function* () {
          const repo = yield* StoreRepo.StoreRepo
          const plain = yield* createStore()
          const withLive = yield* createStore({ live: true })
          expect(yield* repo.findById(plain.store.id)).toEqual(Option.some(plain.store))
          expect(yield* repo.findById(withLive.store.id)).toEqual(Option.some(withLive.store))
          expect(Option.getOrThrow(yield* repo.findById(withLive.store.id)).live?.kind).toBe("live")
          expect(yield* repo.findById(Id.make("str"))).toEqual(Option.none())
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
          expect(yield* repo.findByKeyHash(yield* Store.hashKey(a.liveKey))).toEqual(
            Option.some({ store: a.store, mode: "live" })
          )
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
      it.effect("is scoped by store: another store never sees, finds or deletes the rows", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const a = (yield* createStore()).store
          const b = (yield* createStore()).store
          const t = template(a.id, "order_update")
          yield* insertTemplate(t)

          expect(yield* repo.find(a.id, "order_update", "en_US")).toEqual(Option.some(t))
          expect(yield* repo.findByName(a.id, "order_update")).toEqual([t])
          expect((yield* repo.list(a.id, { limit: 10 })).items).toEqual([t])

          expect(yield* repo.find(b.id, "order_update", "en_US")).toEqual(Option.none())
          expect(yield* repo.findByName(b.id, "order_update")).toEqual([])
          expect(yield* repo.list(b.id, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.updateStatus(b.id, "order_update", "en_US", { status: "APPROVED", rejectedReason: null })).toBe(false)
          expect(yield* repo.deleteByName(b.id, "order_update")).toBe(0)
          expect(yield* repo.replaceAll(b.id, [], () => Id.make("tpl"))).toBe(0)

          expect(yield* repo.find(a.id, "order_update", "en_US")).toEqual(Option.some(t))
        })
      )

      it.effect("refuses a second (store, name, language) with ResourceAlreadyExists", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const a = (yield* createStore()).store
          const b = (yield* createStore()).store
          yield* insertTemplate(template(a.id, "welcome"))
          const error = yield* Effect.flip(insertTemplate(template(a.id, "welcome", { status: "APPROVED" })))
          expect(error).toBeInstanceOf(Errors.ResourceAlreadyExists)
          expect(error.resource).toBe("template")
          // another language, or another store, is another template
          yield* insertTemplate(template(a.id, "welcome", { language: "fr" }))
          yield* insertTemplate(template(b.id, "welcome"))
          expect((yield* repo.findByName(a.id, "welcome")).map((t) => t.language)).toEqual(["en_US", "fr"])
          expect((yield* repo.find(a.id, "welcome", "en_US")).pipe(Option.map((t) => t.status))).toEqual(Option.some("PENDING"))
        })
      )

      it.effect("lists newest first, strictly before the cursor, with hasMore", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const { store } = yield* createStore()
          const inserted: Array<Template.Template> = []
          for (let i = 0; i < 5; i++) {
            const t = template(store.id, `promo_${i}`, { status: i % 2 === 0 ? "APPROVED" : "PENDING" })
            inserted.push(t)
            yield* insertTemplate(t)
          }
          const newestFirst = [...inserted].reverse()

          const first = yield* repo.list(store.id, { limit: 2 })
          expect(first.items.map((t) => t.id)).toEqual(newestFirst.slice(0, 2).map((t) => t.id))
          expect(first.hasMore).toBe(true)
          const second = yield* repo.list(store.id, { limit: 2, after: first.items[1].id })
          expect(second.items.map((t) => t.id)).toEqual(newestFirst.slice(2, 4).map((t) => t.id))
          expect(second.hasMore).toBe(true)
          const third = yield* repo.list(store.id, { limit: 2, after: second.items[1].id })
          expect(third.items.map((t) => t.id)).toEqual([newestFirst[4].id])
          expect(third.hasMore).toBe(false)
          const exact = yield* repo.list(store.id, { limit: 5 })
          expect(exact.items).toEqual(newestFirst)
          expect(exact.hasMore).toBe(false)

          const approved = newestFirst.filter((t) => t.status === "APPROVED")
          const page = yield* repo.list(store.id, { limit: 1, status: "APPROVED" })
          expect(page.items).toEqual([approved[0]])
          expect(page.hasMore).toBe(true)
          const rest = yield* repo.list(store.id, { limit: 10, status: "APPROVED", after: approved[0].id })
          expect(rest.items).toEqual(approved.slice(1))
          expect(rest.hasMore).toBe(false)
          expect(yield* repo.list(store.id, { limit: 10, status: "REJECTED" })).toEqual({ items: [], hasMore: false })
        })
      )

      it.effect("replaceAll inserts the unknown, updates the changed, deletes the gone, and counts them", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const { store } = yield* createStore()
          const other = (yield* createStore()).store
          const kept = template(store.id, "kept", { status: "APPROVED", operatorId: "op_kept", components: body("Hello from kept") })
          const changed = template(store.id, "changed", { status: "PENDING", operatorId: "op_changed", components: body("Hello from changed") })
          const gone = template(store.id, "gone")
          const foreign = template(other.id, "gone")
          for (const t of [kept, changed, gone, foreign]) yield* insertTemplate(t)

          const newIds: Array<string> = []
          const count = yield* repo.replaceAll(
            store.id,
            [
              state("kept"),
              state("changed", { status: "REJECTED", rejectedReason: "INVALID_FORMAT", category: "MARKETING" }),
              state("fresh", { language: "de", status: "PENDING" })
            ],
            () => {
              const id = Id.make("tpl")
              newIds.push(id)
              return id
            }
          )
          expect(count).toBe(3)

          expect(yield* repo.find(store.id, "kept", "en_US")).toEqual(Option.some(kept))
          const updated = Option.getOrThrow(yield* repo.find(store.id, "changed", "en_US"))
          expect(updated).toMatchObject({ id: changed.id, status: "REJECTED", rejectedReason: "INVALID_FORMAT", category: "MARKETING" })
          const fresh = Option.getOrThrow(yield* repo.find(store.id, "fresh", "de"))
          expect(newIds).toEqual([fresh.id])
          expect(fresh).toMatchObject({ status: "PENDING", operatorId: "op_fresh", components: body("Hello from fresh") })
          expect(yield* repo.find(store.id, "gone", "en_US")).toEqual(Option.none())
          // another store's row of the same name is untouched
          expect(yield* repo.find(other.id, "gone", "en_US")).toEqual(Option.some(foreign))

          // the same report again changes nothing
          const again = yield* repo.replaceAll(
            store.id,
            [
              state("kept"),
              state("changed", { status: "REJECTED", rejectedReason: "INVALID_FORMAT", category: "MARKETING" }),
              state("fresh", { language: "de", status: "PENDING" })
            ],
            () => Id.make("tpl")
          )
          expect(again).toBe(0)
          expect((yield* repo.list(store.id, { limit: 10 })).items).toHaveLength(3)

          // an empty report empties the store
          expect(yield* repo.replaceAll(store.id, [], () => Id.make("tpl"))).toBe(3)
          expect((yield* repo.list(store.id, { limit: 10 })).items).toEqual([])
          expect(yield* repo.find(other.id, "gone", "en_US")).toEqual(Option.some(foreign))
        })
      )

      it.effect("updateStatus answers whether a row changed", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const { store } = yield* createStore()
          const t = template(store.id, "shipping", { status: "PENDING" })
          yield* insertTemplate(t)

          expect(yield* repo.updateStatus(store.id, "shipping", "en_US", { status: "REJECTED", rejectedReason: "SPAM" })).toBe(true)
          expect(Option.getOrThrow(yield* repo.find(store.id, "shipping", "en_US"))).toMatchObject({
            status: "REJECTED",
            rejectedReason: "SPAM",
            category: "UTILITY"
          })
          expect(yield* repo.updateStatus(store.id, "shipping", "en_US", { status: "REJECTED", rejectedReason: "SPAM" })).toBe(false)
          expect(yield* repo.updateStatus(store.id, "shipping", "en_US", { status: "APPROVED", rejectedReason: null })).toBe(true)
          expect(yield* repo.updateStatus(store.id, "shipping", "en_US", { status: "APPROVED", rejectedReason: null })).toBe(false)
          expect(
            yield* repo.updateStatus(store.id, "shipping", "en_US", { status: "APPROVED", rejectedReason: null, category: "MARKETING" })
          ).toBe(true)
          expect(Option.getOrThrow(yield* repo.find(store.id, "shipping", "en_US"))).toMatchObject({
            status: "APPROVED",
            rejectedReason: null,
            category: "MARKETING"
          })
          expect(yield* repo.updateStatus(store.id, "shipping", "fr", { status: "PAUSED", rejectedReason: null })).toBe(false)
          expect(yield* repo.updateStatus(store.id, "nope", "en_US", { status: "PAUSED", rejectedReason: null })).toBe(false)
        })
      )

      it.effect("deleteByName removes every language and answers how many", () =>
        Effect.gen(function* () {
          const repo = yield* TemplateRepo.TemplateRepo
          const { store } = yield* createStore()
          yield* insertTemplate(template(store.id, "bye"))
          yield* insertTemplate(template(store.id, "bye", { language: "es" }))
          yield* insertTemplate(template(store.id, "stay"))
          expect(yield* repo.deleteByName(store.id, "bye")).toBe(2)
          expect(yield* repo.findByName(store.id, "bye")).toEqual([])
          expect(yield* repo.findByName(store.id, "stay")).toHaveLength(1)
          expect(yield* repo.deleteByName(store.id, "bye")).toBe(0)
        })
      )
    })

    describe("Transactor", () => {
      it.effect("commits every write of a successful effect", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const made = yield* Store.make({ name: "Committed", live: null })
          const t = template(made.store.id, "inside")
          yield* tx.withTransaction(
            Effect.gen(function* () {
              yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
              yield* insertTemplate(t)
              // reads inside the transaction see its writes
              expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.some(made.store))
            })
          )
          expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.some(made.store))
          expect(yield* (yield* TemplateRepo.TemplateRepo).find(made.store.id, "inside", "en_US")).toEqual(Option.some(t))
        })
      )

      it.effect("rolls back every write when the effect fails", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const existing = (yield* createStore()).store
          const made = yield* Store.make({ name: "Rolled back", live: null })
          const kind = uniqueKind("rollback")
          const error = yield* Effect.flip(
            tx.withTransaction(
              Effect.gen(function* () {
                yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
                yield* insertTemplate(template(existing.id, "doomed"))
                yield* (yield* JobQueue.JobQueue).enqueue({ kind, payload: { doomed: true } })
                return yield* boom()
              })
            )
          )
          expect(error).toBeInstanceOf(Boom)
          expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.none())
          expect(yield* (yield* StoreRepo.StoreRepo).findByKeyHash(made.keys[0].hash)).toEqual(Option.none())
          expect(yield* (yield* TemplateRepo.TemplateRepo).find(existing.id, "doomed", "en_US")).toEqual(Option.none())
          expect(yield* claimOf(kind)).toEqual([])
        })
      )

      it.effect("rolls back when the effect dies", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const made = yield* Store.make({ name: "Died", live: null })
          const exit = yield* Effect.exit(
            tx.withTransaction(
              Effect.zipRight((yield* StoreRepo.StoreRepo).create(made.store, made.keys), Effect.dieMessage("defect"))
            )
          )
          expect(Exit.isFailure(exit)).toBe(true)
          expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.none())
        })
      )

      it.effect("nested transactions join the outer one", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const repo = yield* StoreRepo.StoreRepo
          const outer = yield* Store.make({ name: "Outer", live: null })
          const inner = yield* Store.make({ name: "Inner", live: null })
          yield* Effect.flip(
            tx.withTransaction(
              Effect.gen(function* () {
                yield* repo.create(outer.store, outer.keys)
                // the inner transaction succeeds, but it is the outer one: its writes go with it
                yield* tx.withTransaction(repo.create(inner.store, inner.keys))
                return yield* boom()
              })
            )
          )
          expect(yield* repo.findById(outer.store.id)).toEqual(Option.none())
          expect(yield* repo.findById(inner.store.id)).toEqual(Option.none())

          const a = yield* Store.make({ name: "A", live: null })
          const b = yield* Store.make({ name: "B", live: null })
          yield* tx.withTransaction(
            Effect.zipRight(repo.create(a.store, a.keys), tx.withTransaction(repo.create(b.store, b.keys)))
          )
          expect(Option.isSome(yield* repo.findById(a.store.id))).toBe(true)
          expect(Option.isSome(yield* repo.findById(b.store.id))).toBe(true)
        })
      )

      it.effect("rolls back when interrupted", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const repo = yield* StoreRepo.StoreRepo
          const made = yield* Store.make({ name: "Interrupted", live: null })
          const written = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(
            tx.withTransaction(
              Effect.gen(function* () {
                yield* repo.create(made.store, made.keys)
                yield* Deferred.succeed(written, undefined)
                return yield* Effect.never
              })
            )
          )
          yield* Deferred.await(written)
          yield* Fiber.interrupt(fiber)
          expect(yield* repo.findById(made.store.id)).toEqual(Option.none())
        })
      )

      it.effect("a refused insert inside a transaction leaves the transaction usable", () =>
        Effect.gen(function* () {
          const tx = yield* Transactor.Transactor
          const templates = yield* TemplateRepo.TemplateRepo
          const { store } = yield* createStore()
          const first = template(store.id, "dup")
          const after = template(store.id, "after_dup")
          yield* tx.withTransaction(
            Effect.gen(function* () {
              yield* insertTemplate(first)
              const error = yield* Effect.flip(insertTemplate(template(store.id, "dup")))
              expect(error).toBeInstanceOf(Errors.ResourceAlreadyExists)
              yield* insertTemplate(after)
            })
          )
          expect(yield* templates.find(store.id, "dup", "en_US")).toEqual(Option.some(first))
          expect(yield* templates.find(store.id, "after_dup", "en_US")).toEqual(Option.some(after))
        })
      )
    })

    describe("JobQueue", () => {
      it.effect("enqueues, claims once under a lease, completes", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("basic")
          const payload = { campaignId: "cmp_1", numbers: ["+15550001"], nested: { ok: true } }
          const id = yield* queue.enqueue({ kind, payload })
          expect(id.startsWith("job_")).toBe(true)

          const claimed = yield* claimOf(kind)
          expect(claimed).toHaveLength(1)
          expect(claimed[0]).toMatchObject({ id, kind, payload, attempt: 1 })
          expect(claimed[0].createdAt).toBeInstanceOf(Date)
          expect(yield* claimOf(kind)).toEqual([])

          expect(yield* queue.complete(leaseOf(claimed[0]))).toBe(true)
          expect(yield* queue.complete(leaseOf(claimed[0]))).toBe(false)
          expect(yield* queue.heartbeat(leaseOf(claimed[0]), 30_000)).toBe(false)
          yield* TestClock.adjust(Duration.hours(1))
          expect(yield* claimOf(kind)).toEqual([])
        })
      )

      it.effect("claims only the given kinds, all kinds when omitted, at most `limit`, earliest run time first", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("order")
          const otherKind = uniqueKind("other")
          const now = yield* nowMillis
          const late = yield* queue.enqueue({ kind, payload: 1, runAt: new Date(now - 1_000) })
          const early = yield* queue.enqueue({ kind, payload: 2, runAt: new Date(now - 3_000) })
          const middle = yield* queue.enqueue({ kind, payload: 3, runAt: new Date(now - 2_000) })
          const other = yield* queue.enqueue({ kind: otherKind, payload: 4 })

          const two = yield* claimOf(kind, { limit: 2 })
          expect(two.map((j) => j.id)).toEqual([early, middle])
          const rest = yield* claimOf(kind, { limit: 2 })
          expect(rest.map((j) => j.id)).toEqual([late])

          const any = yield* queue.claim({ workerId: "w", limit: 1000, leaseMs: 30_000 })
          expect(any.map((j) => j.id)).toContain(other)
          expect(any.map((j) => j.id)).not.toContain(early)
          expect(yield* queue.claim({ workerId: "w", kinds: [], limit: 10, leaseMs: 30_000 })).toEqual([])
        })
      )

      it.effect("a dedupe key is enqueued once and answers the existing id", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("dedupe")
          const dedupeKey = `dedupe:${Id.randomToken(12)}`
          const first = yield* queue.enqueue({ kind, payload: { n: 1 }, dedupeKey })
          const second = yield* queue.enqueue({ kind, payload: { n: 2 }, dedupeKey })
          expect(second).toBe(first)
          const concurrent = yield* Effect.all(
            Array.from({ length: 5 }, (_, n) => queue.enqueue({ kind, payload: { n }, dedupeKey })),
            { concurrency: "unbounded" }
          )
          expect(new Set(concurrent)).toEqual(new Set([first]))
          const claimed = yield* claimOf(kind)
          expect(claimed.map((j) => [j.id, j.payload])).toEqual([[first, { n: 1 }]])
          // even once done, the key stays taken
          expect(yield* queue.complete(leaseOf(claimed[0]))).toBe(true)
          expect(yield* queue.enqueue({ kind, payload: { n: 3 }, dedupeKey })).toBe(first)
          expect(yield* claimOf(kind)).toEqual([])
          // no key: a new job each time
          const a = yield* queue.enqueue({ kind, payload: null })
          const b = yield* queue.enqueue({ kind, payload: null })
          expect(a).not.toBe(b)
        })
      )

      it.effect("a job whose run time has not come is not claimable", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("future")
          const now = yield* nowMillis
          const id = yield* queue.enqueue({ kind, payload: {}, runAt: new Date(now + 60_000) })
          expect(yield* claimOf(kind)).toEqual([])
          yield* TestClock.adjust(Duration.seconds(59))
          expect(yield* claimOf(kind)).toEqual([])
          yield* TestClock.adjust(Duration.seconds(1))
          expect((yield* claimOf(kind)).map((j) => j.id)).toEqual([id])
        })
      )

      it.effect("concurrent claimers never get the same job", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("race")
          const ids = yield* Effect.all(
            Array.from({ length: 20 }, (_, n) => queue.enqueue({ kind, payload: { n } })),
            { concurrency: 4 }
          )
          const claims = yield* Effect.all(
            Array.from({ length: 10 }, (_, w) => claimOf(kind, { limit: 3, workerId: `worker-${w}` })),
            { concurrency: "unbounded" }
          )
          const claimed = claims.flat().map((j) => j.id)
          expect(claimed).toHaveLength(new Set(claimed).size)
          expect(new Set(claimed)).toEqual(new Set(ids))
          expect(claims.flat().every((j) => j.attempt === 1)).toBe(true)
        })
      )

      it.effect("an expired lease makes the job claimable again, and fences the old lease", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("lease")
          const id = yield* queue.enqueue({ kind, payload: { x: 1 } })
          const [first] = yield* claimOf(kind, { leaseMs: 1_000, workerId: "a" })
          expect(first).toMatchObject({ id, attempt: 1 })

          yield* TestClock.adjust(Duration.millis(500))
          expect(yield* queue.heartbeat(leaseOf(first), 1_000)).toBe(true) // lease now ends at 1500
          yield* TestClock.adjust(Duration.millis(800))
          expect(yield* claimOf(kind, { workerId: "b" })).toEqual([]) // 1300: still leased
          yield* TestClock.adjust(Duration.millis(300))

          const [second] = yield* claimOf(kind, { leaseMs: 1_000, workerId: "b" }) // 1600: expired
          expect(second).toMatchObject({ id, attempt: 2, payload: { x: 1 } })
          const stale = leaseOf(first)
          expect(yield* queue.heartbeat(stale, 1_000)).toBe(false)
          expect(yield* queue.complete(stale)).toBe(false)
          expect(yield* queue.retry(stale, new Date(0), "stale")).toBe(false)
          expect(yield* queue.fail(stale, "stale")).toBe(false)

          expect(yield* queue.heartbeat(leaseOf(second), 1_000)).toBe(true)
          expect(yield* queue.complete(leaseOf(second))).toBe(true)
          yield* TestClock.adjust(Duration.hours(1))
          expect(yield* claimOf(kind)).toEqual([])
        })
      )

      it.effect("retry requeues at a later time; fail gives up for good", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("retry")
          const before = yield* queue.stats()
          const id = yield* queue.enqueue({ kind, payload: "p" })
          const [first] = yield* claimOf(kind)
          const now = yield* nowMillis
          expect(yield* queue.retry(leaseOf(first), new Date(now + 10_000), "throttled")).toBe(true)
          expect(yield* queue.complete(leaseOf(first))).toBe(false) // no longer running
          expect(yield* claimOf(kind)).toEqual([])
          yield* TestClock.adjust(Duration.seconds(10))
          const [second] = yield* claimOf(kind)
          expect(second).toMatchObject({ id, attempt: 2, payload: "p" })
          expect(yield* queue.fail(leaseOf(second), "permanent")).toBe(true)
          expect(yield* queue.fail(leaseOf(second), "permanent")).toBe(false)
          yield* TestClock.adjust(Duration.hours(1))
          expect(yield* claimOf(kind)).toEqual([])
          const after = yield* queue.stats()
          expect(after.dead - before.dead).toBe(1)
        })
      )

      it.effect("stats count jobs by state", () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("stats")
          const before = yield* queue.stats()
          for (let i = 0; i < 3; i++) yield* queue.enqueue({ kind, payload: i })
          const [job] = yield* claimOf(kind, { limit: 1 })
          const mid = yield* queue.stats()
          expect(mid.queued - before.queued).toBe(2)
          expect(mid.running - before.running).toBe(1)
          yield* queue.complete(leaseOf(job))
          const after = yield* queue.stats()
          expect(after.running - before.running).toBe(0)
          expect(after.done - before.done).toBe(1)
        })
      )
    })

    describe("IdempotencyStore", () => {
      const scope = () => `str_${Id.randomToken(8)}:live`

      it.effect("reserves once; a second caller sees the request in progress, then its response", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const s = scope()
          expect(yield* store.reserve(s, "k1", "hash-a", 60_000)).toEqual({ _tag: "Reserved" })
          expect(yield* store.reserve(s, "k1", "hash-a", 60_000)).toEqual({ _tag: "InProgress", requestHash: "hash-a" })
          expect(yield* store.reserve(s, "k1", "hash-b", 60_000)).toEqual({ _tag: "InProgress", requestHash: "hash-a" })
          expect(yield* store.find(s, "k1")).toEqual(Option.none())

          const response = { status: 201, body: '{"id":"tpl_1"}' }
          yield* store.complete(s, "k1", response)
          expect(yield* store.find(s, "k1")).toEqual(Option.some(response))
          expect(yield* store.reserve(s, "k1", "hash-a", 60_000)).toEqual({ _tag: "Completed", requestHash: "hash-a", response })
          // a completed key is never taken over, however old
          yield* TestClock.adjust(Duration.days(2))
          expect(yield* store.reserve(s, "k1", "hash-b", 1_000)).toEqual({ _tag: "Completed", requestHash: "hash-a", response })
          // scopes are independent
          expect(yield* store.reserve(scope(), "k1", "hash-a", 60_000)).toEqual({ _tag: "Reserved" })
        })
      )

      it.effect("takes over a reservation older than the lock timeout", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const s = scope()
          expect(yield* store.reserve(s, "k", "hash-a", 1_000)).toEqual({ _tag: "Reserved" })
          yield* TestClock.adjust(Duration.millis(999))
          expect(yield* store.reserve(s, "k", "hash-a", 1_000)).toEqual({ _tag: "InProgress", requestHash: "hash-a" })
          yield* TestClock.adjust(Duration.millis(2))
          expect(yield* store.reserve(s, "k", "hash-b", 1_000)).toEqual({ _tag: "Reserved" })
          expect(yield* store.reserve(s, "k", "hash-a", 1_000)).toEqual({ _tag: "InProgress", requestHash: "hash-b" })
        })
      )

      it.effect("release forgets an unfinished reservation but never a completed one", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const s = scope()
          yield* store.reserve(s, "k", "hash-a", 60_000)
          yield* store.release(s, "k")
          expect(yield* store.reserve(s, "k", "hash-b", 60_000)).toEqual({ _tag: "Reserved" })
          yield* store.complete(s, "k", { status: 200, body: "{}" })
          yield* store.release(s, "k")
          expect(yield* store.find(s, "k")).toEqual(Option.some({ status: 200, body: "{}" }))
        })
      )

      it.effect("concurrent reservations of one key: exactly one wins", () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore.IdempotencyStore
          const s = scope()
          const results = yield* Effect.all(
            Array.from({ length: 8 }, () => store.reserve(s, "k", "hash", 60_000)),
            { concurrency: "unbounded" }
          )
          expect(results.filter((r) => r._tag === "Reserved")).toHaveLength(1)
          expect(results.filter((r) => r._tag === "InProgress")).toHaveLength(7)
        })
      )
    })

    describe("Inbox", () => {
      it.effect("stores an entry as received and finds it by id", () =>
        Effect.gen(function* () {
          const inbox = yield* Inbox.Inbox
          const entry: Inbox.InboxEntry = {
            id: Id.make("whk"),
            kind: "live",
            body: JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "1", text: "héllo ✓" }] }),
            receivedAt: new Date(Math.floor(Date.now() / 1000) * 1000 + 123)
          }
          yield* inbox.insert(entry)
          expect(yield* inbox.find(entry.id)).toEqual(Option.some(entry))
          expect(yield* inbox.find(Id.make("whk"))).toEqual(Option.none())
          yield* inbox.markProcessed(entry.id, "ok: 2 events")
          expect(yield* inbox.find(entry.id)).toEqual(Option.some(entry))
          const sandbox = { ...entry, id: Id.make("whk"), kind: "sandbox" as const }
          yield* inbox.insert(sandbox)
          expect(yield* inbox.find(sandbox.id)).toEqual(Option.some(sandbox))
        })
      )

      it.effect("an entry written with its job in a failed transaction is not kept", () =>
        Effect.gen(function* () {
          const inbox = yield* Inbox.Inbox
          const entry: Inbox.InboxEntry = { id: Id.make("whk"), kind: "sandbox", body: "{}", receivedAt: new Date() }
          yield* Effect.flip(
            (yield* Transactor.Transactor).withTransaction(
              Effect.gen(function* () {
                yield* inbox.insert(entry)
                yield* (yield* JobQueue.JobQueue).enqueue({ kind: uniqueKind("inbox"), payload: { inboxId: entry.id } })
                return yield* boom()
              })
            )
          )
          expect(yield* inbox.find(entry.id)).toEqual(Option.none())
        })
      )
    })

    messagingContract(it)
    campaignContract(it)
  })
