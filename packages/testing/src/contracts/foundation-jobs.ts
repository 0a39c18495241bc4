/** The contract of `JobQueue` (leases, fencing by attempt, dedupe), and `IdempotencyStore` (the inbox's is in `foundation-inbox.ts`). */
import { Id, IdempotencyStore, JobQueue, Transactor } from "@switchboard/domain"
import { Duration, Effect, Fiber, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { claimOf, leaseOf, nowMillis, uniqueKind } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const jobTests = (it: ContractIt): void => {
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
        expect(claimed[0].createdAt).toEqual(expect.any(Number))
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
        const late = yield* queue.enqueue({ kind, payload: 1, runAt: now - 1_000 })
        const early = yield* queue.enqueue({ kind, payload: 2, runAt: now - 3_000 })
        const middle = yield* queue.enqueue({ kind, payload: 3, runAt: now - 2_000 })
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

    it.effect("a wait ends when this process commits a job of its kinds, not for other kinds nor before the commit", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const kind = uniqueKind("woken")
        const otherKind = uniqueKind("asleep")
        const forKind = yield* Effect.fork(queue.awaitEnqueue(600_000, [kind]))
        const forAny = yield* Effect.fork(queue.awaitEnqueue(600_000))
        const forOther = yield* Effect.fork(queue.awaitEnqueue(600_000, [otherKind]))
        yield* Effect.yieldNow()
        yield* (yield* Transactor.Transactor).withTransaction(
          Effect.gen(function* () {
            yield* queue.enqueue({ kind, payload: 1 })
            yield* Effect.yieldNow()
            // queued, not committed: a runner woken now would find nothing
            expect(Option.isNone(yield* Fiber.poll(forKind))).toBe(true)
          })
        )
        expect(yield* Fiber.join(forKind)).toBe(true)
        expect(yield* Fiber.join(forAny)).toBe(true)
        yield* Effect.yieldNow()
        expect(Option.isNone(yield* Fiber.poll(forOther))).toBe(true)
        yield* queue.enqueueAll([{ kind: otherKind, payload: 2 }])
        expect(yield* Fiber.join(forOther)).toBe(true)
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

    it.effect(
      "enqueueAll is enqueue on each in turn: ids in order, run times kept, each dedupe key once (taken before or repeated in the list)",
      () =>
        Effect.gen(function* () {
          const queue = yield* JobQueue.JobQueue
          const kind = uniqueKind("all")
          const key = (n: number) => `all:${kind}:${n}`
          const taken = yield* queue.enqueue({ kind, payload: { n: 0 }, dedupeKey: key(0) })
          const now = yield* nowMillis
          yield* queue.enqueueAll([])
          yield* queue.enqueueAll([
            { kind, payload: { n: 1 }, dedupeKey: key(1) },
            { kind, payload: { n: 2 }, dedupeKey: key(0) },
            { kind, payload: { n: 3 } },
            { kind, payload: { n: 4 }, dedupeKey: key(1) },
            { kind, payload: { n: 5 }, dedupeKey: key(5), runAt: now + 60_000 },
            { kind, payload: { n: 6 } }
          ])
          const claimed = yield* claimOf(kind, { limit: 100, leaseMs: 3_600_000 })
          expect(claimed.map((j) => j.payload)).toEqual([{ n: 0 }, { n: 1 }, { n: 3 }, { n: 6 }])
          expect(claimed[0].id).toBe(taken)
          expect([...claimed.map((j) => j.id)].sort()).toEqual(claimed.map((j) => j.id))
          // the list's keys are taken like enqueue's
          expect(yield* queue.enqueue({ kind, payload: { n: 7 }, dedupeKey: key(1) })).toBe(claimed[1].id)
          yield* TestClock.adjust(Duration.seconds(60))
          expect((yield* claimOf(kind, { leaseMs: 3_600_000 })).map((j) => j.payload)).toEqual([{ n: 5 }])
          // a long list (more rows than one statement binds on SQLite) is enqueued whole
          yield* queue.enqueueAll(Array.from({ length: 1_200 }, (_, n) => ({ kind, payload: n, dedupeKey: `${key(100)}:${n % 1_100}` })))
          const many = yield* claimOf(kind, { limit: 2_000 })
          expect(many.map((j) => j.payload)).toEqual(Array.from({ length: 1_100 }, (_, n) => n))
        })
    )

    it.effect("a job whose run time has not come is not claimable", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const kind = uniqueKind("future")
        const now = yield* nowMillis
        const id = yield* queue.enqueue({ kind, payload: {}, runAt: now + 60_000 })
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
        expect(yield* queue.retry(stale, 0, "stale")).toBe(false)
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
        expect(yield* queue.retry(leaseOf(first), now + 10_000, "throttled")).toBe(true)
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
}
