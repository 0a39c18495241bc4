/**
 * The calls module's storage contract (run on SQLite and PostgreSQL): the permission record
 * changes only by compare-and-set on its version (of concurrent changes from one version
 * exactly one is written), calls are scoped by tenant, filtered, changed only from the
 * statuses named, and a call the operator announces is stored once per operator call id.
 */
import { CallPermission, CallRepo, CallSettings, Time } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import { callBatchTests } from "./calls-batches.js"
import { newCall } from "./calls-fixtures.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"

const tests = (it: ContractIt): void => {
  describe("CallPermissionRepo", () => {
    it.effect("compare-and-set on the version: one writer per version, the first write creates; another tenant sees nothing", () =>
      Effect.gen(function* () {
        const repo = yield* CallRepo.CallPermissionRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const phone = "+15551230007"
        const fresh = CallPermission.fresh(live, phone, yield* Time.now)
        const results = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) => repo.compareAndSet(live, fresh, { requestTimes: [i], updatedAt: fresh.createdAt + i })),
          { concurrency: "unbounded" }
        )
        const written = results.filter(Option.isSome)
        expect(written).toHaveLength(1)
        const stored = Option.getOrThrow(yield* repo.find(live, phone))
        expect(stored.version).toBe(1)
        expect(stored.requestTimes).toEqual(written[0].value.requestTimes)
        // a stale version writes nothing
        expect(Option.isNone(yield* repo.compareAndSet(live, fresh, { status: "temporary" }))).toBe(true)
        const next = yield* repo.compareAndSet(live, stored, { status: "temporary", expiresAt: 123456, lastRequestMessageId: "wamid.x" })
        expect(Option.map(next, (p) => [p.status, p.expiresAt, p.version, p.lastRequestMessageId])).toEqual(
          Option.some(["temporary", 123456, 2, "wamid.x"])
        )
        expect(Option.isNone(yield* repo.compareAndSet(live, stored, { status: "permanent" }))).toBe(true)
        for (const stranger of [tenantOf(store.id, "test"), tenantOf(other.id, "live")]) {
          expect(Option.isNone(yield* repo.find(stranger, phone))).toBe(true)
        }
      })
    )
  })

  describe("CallRepo", () => {
    it.effect("find, list with filters and update see only the tenant's rows; update changes only from the statuses named", () =>
      Effect.gen(function* () {
        const repo = yield* CallRepo.CallRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const a = yield* newCall(live)
        const b = yield* newCall(live, { direction: "user_initiated", status: "ringing", phone: "+15551230008", operatorCallId: "wacid.b" })
        yield* repo.insert(live, a)
        yield* repo.insert(live, b)
        expect((yield* repo.list(live, { limit: 10 })).items.map((c) => c.id)).toEqual([b.id, a.id])
        expect((yield* repo.list(live, { limit: 10, direction: "user_initiated" })).items.map((c) => c.id)).toEqual([b.id])
        expect((yield* repo.list(live, { limit: 10, status: "calling" })).items.map((c) => c.id)).toEqual([a.id])
        expect((yield* repo.list(live, { limit: 10, phone: "+15551230008" })).items.map((c) => c.id)).toEqual([b.id])
        const page = yield* repo.list(live, { limit: 1 })
        expect(page.hasMore).toBe(true)
        expect((yield* repo.list(live, { limit: 1, after: b.id })).items.map((c) => c.id)).toEqual([a.id])

        expect(Option.isNone(yield* repo.update(live, a.id, ["ringing"], { status: "accepted" }))).toBe(true)
        const rung = yield* repo.update(live, a.id, ["calling"], { status: "ringing", operatorCallId: "wacid.a", updatedAt: a.updatedAt + 1 })
        expect(Option.map(rung, (c) => [c.status, c.operatorCallId])).toEqual(Option.some(["ringing", "wacid.a"]))
        const ended = yield* repo.update(live, a.id, ["ringing"], {
          status: "ended",
          endStatus: "COMPLETED",
          durationSeconds: 42,
          error: { code: 1, message: "x" },
          updatedAt: a.updatedAt + 2
        })
        expect(Option.map(ended, (c) => [c.status, c.durationSeconds, c.error])).toEqual(Option.some(["ended", 42, { code: 1, message: "x" }]))
        expect(Option.map(yield* repo.findByOperatorId(live, "wacid.a"), (c) => c.id)).toEqual(Option.some(a.id))

        for (const stranger of [tenantOf(store.id, "test"), tenantOf((yield* createStore()).store.id, "live")]) {
          expect(Option.isNone(yield* repo.find(stranger, a.id))).toBe(true)
          expect(Option.isNone(yield* repo.findByOperatorId(stranger, "wacid.a"))).toBe(true)
          expect((yield* repo.list(stranger, { limit: 10 })).items).toEqual([])
          expect(Option.isNone(yield* repo.update(stranger, b.id, ["ringing"], { status: "accepted" }))).toBe(true)
        }
        const between = yield* repo.createdBetween(live, a.createdAt, a.createdAt + 1000, 100)
        expect(between.map((c) => c.id).sort()).toEqual([a.id, b.id].sort())
      })
    )

    it.effect("a call the operator announces is stored once per operator call id, even concurrently", () =>
      Effect.gen(function* () {
        const repo = yield* CallRepo.CallRepo
        const { store } = yield* createStore()
        const test = tenantOf(store.id, "test")
        const calls = yield* Effect.all(
          Array.from({ length: 8 }, () => newCall(test, { direction: "user_initiated", status: "ringing", operatorCallId: "wacid.same" })),
          { concurrency: 1 }
        )
        const results = yield* Effect.all(
          calls.map((c) => repo.insertFromOperator(test, c)),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r.created)).toHaveLength(1)
        expect(new Set(results.map((r) => r.call.id)).size).toBe(1)
        expect((yield* repo.list(test, { limit: 10 })).items).toHaveLength(1)
        // the same operator id in another tenant is another call
        const live = tenantOf(store.id, "live")
        expect((yield* repo.insertFromOperator(live, yield* newCall(live, { operatorCallId: "wacid.same" }))).created).toBe(true)
      })
    )
  })
}

const settingsTests = (it: ContractIt): void => {
  describe("CallSettingsRepo", () => {
    it.effect("one record per tenant, replaced by save; SIP secrets kept apart; another tenant sees nothing", () =>
      Effect.gen(function* () {
        const repo = yield* CallRepo.CallSettingsRepo
        const { store } = yield* createStore()
        const live = tenantOf(store.id, "live")
        expect(Option.isNone(yield* repo.find(live))).toBe(true)
        const calling = { ...CallSettings.DEFAULTS, status: "DISABLED" as const }
        yield* repo.save(live, { storeId: live.storeId, mode: live.mode, calling, sipSecrets: { "sip.example.com": "pw1" }, updatedAt: 1000 })
        yield* repo.save(live, {
          storeId: live.storeId,
          mode: live.mode,
          calling: CallSettings.DEFAULTS,
          sipSecrets: { "sip.example.com": "pw2" },
          updatedAt: 2000
        })
        expect(yield* repo.find(live)).toEqual(
          Option.some({
            storeId: live.storeId,
            mode: "live",
            calling: CallSettings.DEFAULTS,
            sipSecrets: { "sip.example.com": "pw2" },
            updatedAt: 2000
          })
        )
        expect(Option.isNone(yield* repo.find(tenantOf(store.id, "test")))).toBe(true)
      })
    )
  })
}

export const callsContract: ModuleContract = {
  name: "calls",
  tests: (it) => {
    tests(it)
    settingsTests(it)
    callBatchTests(it)
  }
}
