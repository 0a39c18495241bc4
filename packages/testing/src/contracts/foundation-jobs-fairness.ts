/**
 * The contract of `JobQueue`'s fair claiming (`runnable` then `claimIds`), of `defer` (a job
 * put back for later without counting an attempt) and of `oldestRunnable` (how far behind
 * the runners are).
 */
import { Id, JobQueue } from "@switchboard/domain"
import { Duration, Effect, TestClock } from "effect"
import { describe, expect } from "vitest"
import { claimOf, leaseOf, nowMillis, uniqueKind } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

const store = () => `str_${Id.randomToken(12)}`

export const jobFairnessTests = (it: ContractIt): void => {
  describe("JobQueue fair claiming", () => {
    it.effect("runnable lists up to `limit` runnable jobs of each kind, oldest first, without the excluded stores", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const flood = uniqueKind("flood")
        const quiet = uniqueKind("quiet")
        const [hostile, other] = [store(), store()]
        const now = yield* nowMillis
        const floods: Array<string> = []
        for (let i = 0; i < 20; i++) floods.push(yield* queue.enqueue({ kind: flood, payload: i, storeId: hostile, runAt: now - 10_000 + i }))
        const others = yield* queue.enqueue({ kind: flood, payload: "other", storeId: other, runAt: now - 5_000 })
        const unowned = yield* queue.enqueue({ kind: flood, payload: "none", runAt: now - 4_000 })
        const quietJob = yield* queue.enqueue({ kind: quiet, payload: "q", storeId: other })
        yield* queue.enqueue({ kind: quiet, payload: "later", runAt: now + 60_000 })

        const both = yield* queue.runnable({
          kinds: [
            { kind: flood, limit: 3 },
            { kind: quiet, limit: 3 }
          ]
        })
        expect(both.filter((c) => c.kind === flood).map((c) => c.id)).toEqual(floods.slice(0, 3))
        expect(both.filter((c) => c.kind === quiet)).toEqual([{ id: quietJob, kind: quiet, storeId: other, runAt: expect.any(Number) }])
        expect(both.find((c) => c.id === floods[0])).toEqual({ id: floods[0], kind: flood, storeId: hostile, runAt: now - 10_000 })

        // the hostile store left out: the other store's job and the one that names no store
        const fair = yield* queue.runnable({ kinds: [{ kind: flood, limit: 5 }], excludeStores: [hostile] })
        expect(fair.map((c) => c.id)).toEqual([others, unowned])
        // a kind not named, or with no room, is not read
        expect(yield* queue.runnable({ kinds: [{ kind: flood, limit: 0 }] })).toEqual([])
        expect(yield* queue.runnable({ kinds: [] })).toEqual([])
      })
    )

    it.effect("runnable answers the same when hundreds of jobs are runnable (a range per kind, not one read of them all)", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const flood = uniqueKind("flood")
        const quiet = uniqueKind("quiet")
        const [hostile, other] = [store(), store()]
        const now = yield* nowMillis
        const floods: Array<{ id: string; storeId: string }> = []
        for (let i = 0; i < 300; i++) {
          const storeId = i % 3 === 0 ? other : hostile
          floods.push({ id: yield* queue.enqueue({ kind: flood, payload: i, storeId, runAt: now - 10_000 + i }), storeId })
        }
        const quiets: Array<string> = []
        for (let i = 0; i < 4; i++) quiets.push(yield* queue.enqueue({ kind: quiet, payload: i, runAt: now - 1_000 + i }))

        const both = yield* queue.runnable({
          kinds: [
            { kind: flood, limit: 4 },
            { kind: quiet, limit: 10 }
          ]
        })
        expect(both.filter((c) => c.kind === flood).map((c) => c.id)).toEqual(floods.slice(0, 4).map((f) => f.id))
        expect(both.filter((c) => c.kind === quiet).map((c) => c.id)).toEqual(quiets)
        const fair = yield* queue.runnable({ kinds: [{ kind: flood, limit: 3 }], excludeStores: [hostile] })
        expect(fair.map((c) => c.id)).toEqual(
          floods
            .filter((f) => f.storeId === other)
            .slice(0, 3)
            .map((f) => f.id)
        )
        // the same answers once few are left, which the first read holds all of
        const claimed = yield* queue.claimIds({ workerId: "w", ids: floods.slice(0, 290).map((f) => f.id), leaseMs: 60_000 })
        expect(claimed).toHaveLength(290)
        const rest = yield* queue.runnable({
          kinds: [
            { kind: flood, limit: 4 },
            { kind: quiet, limit: 2 }
          ]
        })
        expect(rest.filter((c) => c.kind === flood).map((c) => c.id)).toEqual(floods.slice(290, 294).map((f) => f.id))
        expect(rest.filter((c) => c.kind === quiet).map((c) => c.id)).toEqual(quiets.slice(0, 2))
        const restFair = yield* queue.runnable({ kinds: [{ kind: flood, limit: 5 }], excludeStores: [hostile] })
        expect(restFair.map((c) => c.id)).toEqual(
          floods
            .slice(290)
            .filter((f) => f.storeId === other)
            .map((f) => f.id)
        )
      })
    )

    it.effect("claimIds claims the jobs named that are still runnable, each once, with their store", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const kind = uniqueKind("ids")
        const owner = store()
        const now = yield* nowMillis
        const a = yield* queue.enqueue({ kind, payload: "a", storeId: owner, runAt: now - 2_000 })
        const b = yield* queue.enqueue({ kind, payload: "b", runAt: now - 1_000 })
        const later = yield* queue.enqueue({ kind, payload: "later", runAt: now + 60_000 })

        const claimed = yield* queue.claimIds({ workerId: "w1", ids: [b, a, later, "job_unknown"], leaseMs: 30_000 })
        // in claim order (run time); the job not yet due and the unknown id left out
        expect(claimed.map((j) => [j.id, j.payload, j.attempt, j.storeId])).toEqual([
          [a, "a", 1, owner],
          [b, "b", 1, null]
        ])
        // taken: neither listed nor claimed again, by this worker or another
        expect(yield* queue.claimIds({ workerId: "w2", ids: [a, b], leaseMs: 30_000 })).toEqual([])
        expect((yield* queue.runnable({ kinds: [{ kind, limit: 10 }] })).map((c) => c.id)).toEqual([])
        expect(yield* queue.claimIds({ workerId: "w2", ids: [], leaseMs: 30_000 })).toEqual([])

        // two claimers of the same ids at once: each job goes to one of them
        const many = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          (i) => queue.enqueue({ kind, payload: i })
        )
        const [x, y] = yield* Effect.all(
          [queue.claimIds({ workerId: "x", ids: many, leaseMs: 30_000 }), queue.claimIds({ workerId: "y", ids: many, leaseMs: 30_000 })],
          { concurrency: "unbounded" }
        )
        expect([...x, ...y].map((j) => j.id).sort()).toEqual([...many].sort())

        // an expired lease makes a job runnable again, with the next attempt
        yield* TestClock.adjust(Duration.seconds(31))
        const again = yield* queue.claimIds({ workerId: "w3", ids: [a], leaseMs: 30_000 })
        expect(again.map((j) => [j.id, j.attempt])).toEqual([[a, 2]])
        expect(yield* queue.complete(leaseOf(claimed[0]))).toBe(false)
      })
    )

    it.effect("defer puts a job back for later without counting an attempt; fenced by the lease", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const kind = uniqueKind("defer")
        const id = yield* queue.enqueue({ kind, payload: "wait" })
        const [first] = yield* claimOf(kind)
        expect(first.attempt).toBe(1)
        const now = yield* nowMillis
        expect(yield* queue.defer(leaseOf(first), now + 5_000)).toBe(true)
        // a second defer, or any write, under the same lease changes nothing
        expect(yield* queue.defer(leaseOf(first), now)).toBe(false)
        expect(yield* queue.complete(leaseOf(first))).toBe(false)
        expect(yield* queue.isLive(id)).toBe(true)
        // not runnable before its time
        expect(yield* claimOf(kind)).toEqual([])
        yield* TestClock.adjust(Duration.seconds(5))
        const [second] = yield* claimOf(kind)
        // the same attempt number: waiting was not an attempt
        expect(second).toMatchObject({ id, attempt: 1, payload: "wait" })
        // a stale lease (expired and taken over) cannot defer it
        yield* TestClock.adjust(Duration.seconds(31))
        const [third] = yield* claimOf(kind)
        expect(third.attempt).toBe(2)
        expect(yield* queue.defer(leaseOf(second), now)).toBe(false)
        expect(yield* queue.complete(leaseOf(third))).toBe(true)
      })
    )

    it.effect("oldestRunnable answers when the oldest runnable job became runnable", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const kind = uniqueKind("oldest")
        const now = yield* nowMillis
        // older than any other test's job
        const at = now - 1_000_000_000 - Math.floor(Math.random() * 1000)
        yield* queue.enqueue({ kind, payload: null, runAt: at })
        expect(yield* queue.oldestRunnable()).toBe(at)
        // claimed (running under a live lease): no longer waiting
        const [job] = yield* claimOf(kind)
        const after = yield* queue.oldestRunnable()
        expect(after === null || after > at).toBe(true)
        expect(after === null || after <= now).toBe(true)
        expect(yield* queue.complete(leaseOf(job))).toBe(true)
      })
    )
  })
}
