/** The contract of `StoreRepo`'s keys: expiry, listing and rotation with a grace period. */
import { Store, StoreRepo, Time } from "@switchboard/domain"
import { Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { createStore } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const keyTests = (it: ContractIt): void => {
  describe("StoreRepo keys", () => {
    it.effect("lists a store's keys oldest first, with their times and no expiry", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const made = yield* createStore()
        const other = yield* createStore()
        expect(yield* repo.listKeys(made.store.id)).toEqual(made.keys)
        expect((yield* repo.listKeys(made.store.id)).map((k) => [k.mode, k.expiresAt])).toEqual([
          ["live", null],
          ["test", null]
        ])
        expect(yield* repo.listKeys(other.store.id)).toEqual(other.keys)
      })
    )

    it.effect("rotateKey: the old keys of the mode work until the grace period ends, the new key and the other mode's keep working", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const made = yield* createStore()
        const neighbour = yield* createStore()
        const [oldLive, test] = made.keys
        const start = yield* Time.now
        const fresh = yield* Store.newKey(made.store.id, "live")

        expect(yield* repo.rotateKey(fresh.record, start + Time.HOUR)).toBe(1)
        const found = (hash: string) =>
          Effect.map(
            repo.findByKeyHash(hash),
            Option.map((f) => [f.store.id, f.mode, f.expiresAt])
          )
        expect(yield* found(oldLive.hash)).toEqual(Option.some([made.store.id, "live", start + Time.HOUR]))
        expect(yield* found(fresh.record.hash)).toEqual(Option.some([made.store.id, "live", null]))
        expect(yield* found(test.hash)).toEqual(Option.some([made.store.id, "test", null]))

        yield* TestClock.adjust(Time.HOUR - 1)
        expect(Option.isSome(yield* repo.findByKeyHash(oldLive.hash))).toBe(true)
        yield* TestClock.adjust(1)
        // the grace period has ended: the old key is refused, every other key still works
        expect(yield* repo.findByKeyHash(oldLive.hash)).toEqual(Option.none())
        expect(Option.isSome(yield* repo.findByKeyHash(fresh.record.hash))).toBe(true)
        expect(Option.isSome(yield* repo.findByKeyHash(test.hash))).toBe(true)
        for (const key of neighbour.keys) expect(Option.isSome(yield* repo.findByKeyHash(key.hash))).toBe(true)

        const keys = yield* repo.listKeys(made.store.id)
        expect(keys.map((k) => k.id)).toEqual([oldLive.id, test.id, fresh.record.id])
        expect(keys.map((k) => k.expiresAt)).toEqual([start + Time.HOUR, null, null])
        expect(yield* repo.listKeys(neighbour.store.id)).toEqual(neighbour.keys)
      })
    )

    it.effect("rotateKey never extends an expiry already set; a grace of zero stops the old keys at once", () =>
      Effect.gen(function* () {
        const repo = yield* StoreRepo.StoreRepo
        const made = yield* createStore()
        const now = yield* Time.now
        const second = yield* Store.newKey(made.store.id, "test")
        expect(yield* repo.rotateKey(second.record, now + Time.MINUTE)).toBe(1)
        const third = yield* Store.newKey(made.store.id, "test")
        // the first key keeps its earlier expiry; only the second one gets the new bound
        expect(yield* repo.rotateKey(third.record, now + Time.HOUR)).toBe(1)
        expect((yield* repo.listKeys(made.store.id)).filter((k) => k.mode === "test").map((k) => k.expiresAt)).toEqual([
          now + Time.MINUTE,
          now + Time.HOUR,
          null
        ])
        const fourth = yield* Store.newKey(made.store.id, "test")
        expect(yield* repo.rotateKey(fourth.record, now)).toBe(3)
        for (const record of [made.keys[1], second.record, third.record]) {
          expect(yield* repo.findByKeyHash(record.hash)).toEqual(Option.none())
        }
        expect(Option.isSome(yield* repo.findByKeyHash(fourth.record.hash))).toBe(true)
        expect(Option.isSome(yield* repo.findByKeyHash(made.keys[0].hash))).toBe(true)
      })
    )
  })
}
