import { it } from "@effect/vitest"
import { JobQueue } from "@switchboard/domain"
import { postgresAvailable, testDatabase } from "@switchboard/testing"
import { runStorageContracts, storageContracts } from "@switchboard/testing/contracts"
import { Context, Effect, Layer } from "effect"
import { CompiledQuery } from "kysely"
import { Database } from "@switchboard/store-sql"
import { describe, expect } from "vitest"
import { StorePostgres } from "../src/index.js"

describe.skipIf(!postgresAvailable)("PostgreSQL store", () => {
  runStorageContracts("postgres", () => Layer.unwrapScoped(Effect.map(testDatabase, (url) => StorePostgres.layer({ url }))), storageContracts)

  it.scopedLive("workers on separate pools never claim the same job", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const queues = yield* Effect.forEach(
        Array.from({ length: 4 }, () => StorePostgres.layer({ url, poolSize: 4 })),
        (layer) => Effect.map(Layer.build(layer), (context) => Context.get(context, JobQueue.JobQueue)),
        { concurrency: "unbounded" }
      )
      const kind = "race.pools"
      const ids = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, n) => n),
        (n) => queues[0].enqueue({ kind, payload: { n } }),
        {
          concurrency: 8
        }
      )

      // each worker runs 3 concurrent claim loops on its own pool until nothing is left
      const worker = (queue: JobQueue.JobQueue["Type"], w: number) =>
        Effect.gen(function* () {
          const mine: Array<string> = []
          while (true) {
            const jobs = yield* queue.claim({ workerId: `worker-${w}`, kinds: [kind], limit: 5, leaseMs: 30_000 })
            if (jobs.length === 0) return mine
            for (const job of jobs) {
              mine.push(job.id)
              expect(yield* queue.complete({ id: job.id, attempt: job.attempt })).toBe(true)
            }
          }
        })
      const claimed = (yield* Effect.all(
        queues.flatMap((queue, w) => [worker(queue, w), worker(queue, w), worker(queue, w)]),
        { concurrency: "unbounded" }
      )).flat()

      expect(claimed).toHaveLength(ids.length)
      expect(new Set(claimed)).toEqual(new Set(ids))
      expect((yield* queues[1].stats()).done).toBe(ids.length)
    })
  )

  it.scopedLive("a transaction that need not be durable commits without waiting for the disk; every other one waits", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const db = Context.get(yield* Layer.build(StorePostgres.layerDatabase({ url })), Database.Database)
      const setting = db
        .execute(CompiledQuery.raw("show synchronous_commit"))
        .pipe(Effect.map(({ rows }) => (rows[0] as { synchronous_commit: string }).synchronous_commit))
      expect(yield* db.withTransaction(setting)).toBe("on")
      expect(yield* db.withTransaction(setting, { durable: true })).toBe("on")
      expect(yield* db.withTransaction(setting, { durable: false })).toBe("off")
      // a nested call joins the outer transaction, whatever it asks
      expect(yield* db.withTransaction(db.withTransaction(setting, { durable: false }))).toBe("on")
      expect(yield* db.withTransaction(db.withTransaction(setting), { durable: false })).toBe("off")
      // it ends with its transaction: the pool's connections are back to durable commits
      expect(
        yield* Effect.all(
          Array.from({ length: 12 }, () => db.withTransaction(setting)),
          { concurrency: "unbounded" }
        )
      ).toEqual(Array(12).fill("on"))
      // and what it wrote is committed: another pool reads it
      yield* db.execute(CompiledQuery.raw("create table relaxed (n int)"))
      yield* db.withTransaction(db.execute(CompiledQuery.raw("insert into relaxed values (1), (2)")), { durable: false })
      const other = Context.get(yield* Layer.build(StorePostgres.layerDatabase({ url })), Database.Database)
      expect((yield* other.execute(CompiledQuery.raw("select count(*)::int as n from relaxed"))).rows).toEqual([{ n: 2 }])
    })
  )

  it.scopedLive("concurrent starts apply each migration once", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const applied = yield* Effect.all(
        Array.from({ length: 4 }, () => StorePostgres.migrate(url)),
        { concurrency: "unbounded" }
      )
      const names = applied.flat()
      expect(names).toEqual([...new Set(names)])
      expect(names).toContain("0001_foundation")
      expect(yield* StorePostgres.migrate(url)).toEqual([])
    })
  )
})
