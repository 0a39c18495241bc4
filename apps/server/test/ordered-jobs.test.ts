/**
 * Jobs of an `ordered` kind (`inbox.process`: operator webhooks, whose effects can depend on
 * the order they arrived in, e.g. a template PAUSED then APPROVED) run one at a time in a
 * runner, in the order they were queued, even when the runner may run several jobs at once
 * and a later job would finish first. The same jobs of a kind that is not ordered overlap:
 * the check can tell the difference. Over a real store, both dialects.
 */
import { it as effectIt } from "@effect/vitest"
import { JobQueue, type Transactor } from "@switchboard/domain"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Effect, Fiber, type Layer } from "effect"
import { describe, expect } from "vitest"
import { DIALECTS, eventually } from "@switchboard/testing"
import { JobRunner } from "@switchboard/worker"

const JOBS = 6

const layerFor = (target: string): Layer.Layer<JobQueue.JobQueue | Transactor.Transactor, unknown> =>
  target.startsWith("postgres") ? StorePostgres.layer({ url: target, poolSize: 4 }) : StoreSqlite.layer({ filename: target })

/** Runs JOBS jobs of one kind (each sleeping longer the earlier it was queued); answers the log of starts and ends. */
const runJobs = (ordered: boolean) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue.JobQueue
    const kind = ordered ? "test.ordered" : "test.unordered"
    const log: Array<string> = []
    for (let i = 0; i < JOBS; i++) yield* queue.enqueue({ kind, payload: { i } })
    const handlers: Record<string, JobRunner.Handler<never>> = {
      [kind]: {
        ordered,
        // outside a transaction: SQLite's one connection would otherwise run them one at a time anyway
        transactional: false,
        run: (job) =>
          Effect.gen(function* () {
            const i = (job.payload as { i: number }).i
            log.push(`start ${i}`)
            yield* Effect.sleep(`${(JOBS - i) * 15} millis`)
            log.push(`end ${i}`)
          })
      }
    }
    const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, concurrency: 4, pollMs: 20, leaseMs: 30_000 }))
    yield* Effect.promise(() => eventually(() => log.filter((l) => l.startsWith("end")).length === JOBS || undefined, "every job done", 30_000))
    yield* Fiber.interrupt(runner)
    return log
  })

describe("ordered job kinds", () => {
  for (const dialect of DIALECTS) {
    effectIt.scopedLive.skipIf(!dialect.available)(`run one at a time, in the order queued (${dialect.name})`, () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(Effect.promise(dialect.createDatabase), (d) => Effect.promise(d.drop))
        const ordered = yield* Effect.provide(runJobs(true), layerFor(database.url))
        expect(ordered).toEqual(Array.from({ length: JOBS }, (_, i) => [`start ${i}`, `end ${i}`]).flat())
        const unordered = yield* Effect.provide(runJobs(false), layerFor(database.url))
        // four at once: a later job starts before an earlier one ends
        expect(unordered.indexOf("start 1")).toBeLessThan(unordered.indexOf("end 0"))
      })
    )
  }
})

/** JOBS jobs of an ordered kind that runs jobs together; `failTogether` makes the first joint run fail. */
const runTogether = (failTogether: boolean) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue.JobQueue
    const kind = "test.together"
    const log: Array<string> = []
    let failures = failTogether ? 1 : 0
    for (let i = 0; i < JOBS; i++) yield* queue.enqueue({ kind, payload: { i } })
    const handlers: Record<string, JobRunner.Handler<never>> = {
      [kind]: {
        ordered: true,
        run: (job) => Effect.sync(() => log.push(`alone ${(job.payload as { i: number }).i}`)),
        runMany: (jobs) =>
          failures-- > 0
            ? Effect.fail("the joint run failed")
            : Effect.sync(() => log.push(`together ${jobs.map((job) => (job.payload as { i: number }).i).join(",")}`))
      }
    }
    const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, concurrency: 4, pollMs: 20, leaseMs: 30_000 }))
    yield* Effect.promise(() => eventually(async () => (await Effect.runPromise(queue.stats())).done === JOBS || undefined, "every job done", 30_000))
    yield* Fiber.interrupt(runner)
    return log
  })

describe("ordered job kinds with runMany", () => {
  for (const dialect of DIALECTS) {
    effectIt.scopedLive.skipIf(!dialect.available)(`run the first attempts claimed together as one, in order, each once (${dialect.name})`, () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(Effect.promise(dialect.createDatabase), (d) => Effect.promise(d.drop))
        const log = yield* Effect.provide(runTogether(false), layerFor(database.url))
        // claimed four at a time: the first four together, then the last two
        expect(log).toEqual(["together 0,1,2,3", "together 4,5"])
      })
    )
    effectIt.scopedLive.skipIf(!dialect.available)(`run each alone, in order, when the joint run fails (${dialect.name})`, () =>
      Effect.gen(function* () {
        const database = yield* Effect.acquireRelease(Effect.promise(dialect.createDatabase), (d) => Effect.promise(d.drop))
        const log = yield* Effect.provide(runTogether(true), layerFor(database.url))
        expect(log).toEqual(["alone 0", "alone 1", "alone 2", "alone 3", "together 4,5"])
      })
    )
  }
})
