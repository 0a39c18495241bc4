/**
 * The job runner polls seldom while idle (the interval doubles from `pollMs` up to
 * `idlePollMs` while polls find nothing), yet a job queued by its own process starts at
 * once, and one queued by another process (another connection, another queue instance)
 * by the next poll. Over a real store, both dialects. On PostgreSQL another process's job
 * wakes the runner at once too (NOTIFY at its commit, `store-sql/src/JobWakeups.ts`).
 */
import { it as effectIt } from "@effect/vitest"
import { JobQueue, Transactor } from "@switchboard/domain"
import { StorePostgres } from "@switchboard/store-postgres"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Effect, Fiber, Layer } from "effect"
import { describe, expect } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { JobRunner } from "@switchboard/worker"

const storeFor = (target: string): Layer.Layer<JobQueue.JobQueue | Transactor.Transactor, unknown> =>
  target.startsWith("postgres") ? StorePostgres.layer({ url: target, poolSize: 4 }) : StoreSqlite.layer({ filename: target })

/** The store's queue, counting the polls made through it (the runner polls with `runnable`, then claims what it chose). */
const counting = (target: string, claims: { n: number }) =>
  Layer.provideMerge(
    Layer.effect(
      JobQueue.JobQueue,
      Effect.map(JobQueue.JobQueue, (q) =>
        JobQueue.JobQueue.of({ ...q, runnable: (input) => Effect.tap(q.runnable(input), () => Effect.sync(() => claims.n++)) })
      )
    ),
    storeFor(target)
  )

const KIND = "test.polling"

/** A fresh database of `dialect`, dropped with the scope. */
const freshDatabase = (dialect: (typeof DIALECTS)[number]) =>
  Effect.acquireRelease(Effect.promise(dialect.createDatabase), (d) => Effect.promise(d.drop))

/** A handler of KIND that records when each job (by its payload's name) started. */
const recorder = () => {
  const started = new Map<string, number>()
  const handlers: Record<string, JobRunner.Handler<never>> = {
    [KIND]: { run: (job) => Effect.sync(() => started.set((job.payload as { name: string }).name, Date.now())) }
  }
  return { started, handlers }
}

/** Runs `program` on a fresh database of `dialect`, through a queue that counts its polls, with KIND's recorder. */
const onCountingStore = <A, E>(
  dialect: (typeof DIALECTS)[number],
  program: (
    t: { readonly database: { readonly url: string }; readonly claims: { n: number } } & ReturnType<typeof recorder>
  ) => Effect.Effect<A, E, any>
) =>
  Effect.gen(function* () {
    const database = yield* freshDatabase(dialect)
    const claims = { n: 0 }
    return yield* Effect.provide(Effect.scoped(program({ database, claims, ...recorder() })), counting(database.url, claims))
  })

describe("job runner polling", () => {
  for (const dialect of DIALECTS) {
    effectIt.scopedLive.skipIf(!dialect.available)(
      `idle: polls back off; a job queued in-process starts at once, one queued elsewhere by the next poll (${dialect.name})`,
      () =>
        onCountingStore(dialect, ({ database, claims, started, handlers }) =>
          Effect.gen(function* () {
            const queue = yield* JobQueue.JobQueue
            const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, pollMs: 50, idlePollMs: 1500 }))
            // idle for 3 s: 50, 100, 200, 400, 800, then 1500 ms apart (a flat 50 ms would be 60 polls)
            yield* Effect.sleep("3 seconds")
            const idlePolls = claims.n
            expect(idlePolls).toBeGreaterThanOrEqual(4)
            expect(idlePolls).toBeLessThanOrEqual(10)

            /** Returns right after the runner's next poll (the one after it is then the longest interval away). */
            const afterPoll = Effect.gen(function* () {
              const seen = claims.n
              while (claims.n === seen) yield* Effect.sleep("5 millis")
            })
            // queued by this process: at once, not at the next poll (1.5 s away)
            yield* afterPoll
            const queuedAt = Date.now()
            yield* queue.enqueue({ kind: KIND, payload: { name: "here" } })
            const waitFor = (name: string, ms: number) =>
              Effect.gen(function* () {
                const until = Date.now() + ms
                while (!started.has(name) && Date.now() < until) yield* Effect.sleep("10 millis")
                return started.get(name)
              })
            const here = yield* waitFor("here", 5000)
            expect(here).toBeDefined()
            expect(here! - queuedAt).toBeLessThan(500)

            // queued through another connection (as another process would): found by a later poll
            yield* Effect.sleep("3 seconds") // back at the longest interval
            yield* afterPoll
            const elsewhereAt = Date.now()
            yield* Effect.provide(
              Effect.flatMap(JobQueue.JobQueue, (other) => other.enqueue({ kind: KIND, payload: { name: "elsewhere" } })),
              storeFor(database.url)
            )
            const elsewhere = yield* waitFor("elsewhere", 5000)
            expect(elsewhere).toBeDefined()
            expect(elsewhere! - elsewhereAt).toBeLessThan(1500 + 500)
            yield* Fiber.interrupt(runner)
          })
        ),
      30_000
    )
  }

  for (const dialect of DIALECTS) {
    effectIt.scopedLive.skipIf(!dialect.available)(
      `a job queued inside a transaction wakes the runner once the transaction has committed, not before (${dialect.name})`,
      () =>
        onCountingStore(dialect, ({ claims, started, handlers }) =>
          Effect.gen(function* () {
            const queue = yield* JobQueue.JobQueue
            const tx = yield* Transactor.Transactor
            // polls 20 s apart: a wake that came before the commit would find nothing and leave the job for 20 s
            const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, pollMs: 20_000, idlePollMs: 20_000 }))
            yield* Effect.sleep("1 second")
            const pollsBefore = claims.n
            let committedAt = 0
            yield* tx.withTransaction(
              Effect.gen(function* () {
                yield* queue.enqueue({ kind: KIND, payload: { name: "in-tx" } })
                yield* Effect.sleep("300 millis")
                // the queue's wake waits for the commit: no poll meanwhile
                expect(claims.n).toBe(pollsBefore)
                committedAt = Date.now()
              })
            )
            const until = Date.now() + 10_000
            while (!started.has("in-tx") && Date.now() < until) yield* Effect.sleep("10 millis")
            expect(started.has("in-tx")).toBe(true)
            // well before the next poll (generous for a loaded machine)
            expect(started.get("in-tx")! - committedAt).toBeLessThan(5000)
            yield* Fiber.interrupt(runner)
          })
        ),
      60_000
    )
  }

  const postgres = DIALECTS.find((d) => d.name === "PostgreSQL")
  effectIt.scopedLive.skipIf(!postgres?.available)(
    "PostgreSQL: a job queued by another process, committed, wakes an idle runner at once, not at its next poll 20 s away",
    () =>
      Effect.gen(function* () {
        const database = yield* freshDatabase(postgres!)
        const { started, handlers } = recorder()
        const program = Effect.gen(function* () {
          const runner = yield* Effect.forkScoped(JobRunner.run({ handlers, pollMs: 20_000, idlePollMs: 20_000 }))
          yield* Effect.sleep("1 second") // the first poll found nothing; the next is 20 s away
          const latencies: Array<number> = []
          for (const name of ["one", "two", "three"]) {
            const queuedAt = Date.now()
            // another pool and another queue, as another process: the job commits with its NOTIFY
            yield* Effect.provide(
              Effect.flatMap(JobQueue.JobQueue, (other) => other.enqueue({ kind: KIND, payload: { name } })),
              storeFor(database.url)
            )
            const until = Date.now() + 10_000
            while (!started.has(name) && Date.now() < until) yield* Effect.sleep("10 millis")
            expect(started.has(name), name).toBe(true)
            latencies.push(started.get(name)! - queuedAt)
          }
          // each well before the 20 s poll (generous bounds for a loaded machine; the bench measures the figure)
          expect(Math.max(...latencies)).toBeLessThan(5000)
          yield* Fiber.interrupt(runner)
        })
        yield* Effect.provide(Effect.scoped(program), storeFor(database.url))
      }),
    60_000
  )
})
