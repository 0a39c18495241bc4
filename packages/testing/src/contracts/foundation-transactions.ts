/** The contract of `Transactor`: writes commit together or not at all (on failure, defect or interruption); nested transactions join the outer one. */
import { Errors, JobQueue, Store, StoreRepo, TemplateRepo, Transactor } from "@switchboard/domain"
import { Deferred, Effect, Exit, Fiber, Option } from "effect"
import { describe, expect } from "vitest"
import { Boom, boom, claimOf, createStore, insertTemplate, template, tenantOf, uniqueKind } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const transactorTests = (it: ContractIt): void => {
  describe("Transactor", () => {
    it.effect("commits every write of a successful effect", () =>
      Effect.gen(function* () {
        const tx = yield* Transactor.Transactor
        const made = yield* Store.make({ name: "Committed", live: null })
        const t = yield* template(made.store.id, "inside")
        yield* tx.withTransaction(
          Effect.gen(function* () {
            yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
            yield* insertTemplate(t)
            // reads inside the transaction see its writes
            expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.some(made.store))
          })
        )
        expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.some(made.store))
        expect(yield* (yield* TemplateRepo.TemplateRepo).find(tenantOf(made.store.id), "inside", "en_US")).toEqual(Option.some(t))
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
              yield* insertTemplate(yield* template(existing.id, "doomed"))
              yield* (yield* JobQueue.JobQueue).enqueue({ kind, payload: { doomed: true } })
              return yield* boom()
            })
          )
        )
        expect(error).toBeInstanceOf(Boom)
        expect(yield* (yield* StoreRepo.StoreRepo).findById(made.store.id)).toEqual(Option.none())
        expect(yield* (yield* StoreRepo.StoreRepo).findByKeyHash(made.keys[0].hash)).toEqual(Option.none())
        expect(yield* (yield* TemplateRepo.TemplateRepo).find(tenantOf(existing.id), "doomed", "en_US")).toEqual(Option.none())
        expect(yield* claimOf(kind)).toEqual([])
      })
    )

    it.effect("rolls back when the effect dies", () =>
      Effect.gen(function* () {
        const tx = yield* Transactor.Transactor
        const made = yield* Store.make({ name: "Died", live: null })
        const exit = yield* Effect.exit(
          tx.withTransaction(Effect.zipRight((yield* StoreRepo.StoreRepo).create(made.store, made.keys), Effect.dieMessage("defect")))
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
        yield* tx.withTransaction(Effect.zipRight(repo.create(a.store, a.keys), tx.withTransaction(repo.create(b.store, b.keys))))
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
        const first = yield* template(store.id, "dup")
        const after = yield* template(store.id, "after_dup")
        yield* tx.withTransaction(
          Effect.gen(function* () {
            yield* insertTemplate(first)
            const error = yield* Effect.flip(insertTemplate(yield* template(store.id, "dup")))
            expect(error).toBeInstanceOf(Errors.ResourceAlreadyExists)
            yield* insertTemplate(after)
          })
        )
        expect(yield* templates.find(tenantOf(store.id), "dup", "en_US")).toEqual(Option.some(first))
        expect(yield* templates.find(tenantOf(store.id), "after_dup", "en_US")).toEqual(Option.some(after))
      })
    )
  })
}
