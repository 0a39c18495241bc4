/**
 * The `Telemetry.OperationalGauges` port: the job queue by kind and status, the oldest due
 * job of each kind and the oldest unprocessed inbox entry, read when `/metrics` is scraped
 * (three grouped reads; `jobs` stays small under retention, and the inbox read uses the
 * index on `processed_at`).
 */
import { Telemetry, type Time } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "./Database.js"

export const make: Effect.Effect<Telemetry.OperationalGauges["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  const snapshot = (now: Time.Millis) =>
    Effect.all({
      jobs: db.query((k) =>
        k
          .selectFrom("jobs")
          .select((eb) => ["kind", "status", eb.fn.countAll<number | string>().as("n")])
          .groupBy(["kind", "status"])
          .execute()
      ),
      oldest: db.query((k) =>
        k
          .selectFrom("jobs")
          .select((eb) => ["kind", eb.fn.min("run_at").as("run_at")])
          .where("status", "=", "queued")
          .where("run_at", "<=", now)
          .groupBy("kind")
          .execute()
      ),
      inbox: db.query((k) =>
        k
          .selectFrom("inbox")
          .select((eb) => eb.fn.min("received_at").as("received_at"))
          .where("processed_at", "is", null)
          .executeTakeFirst()
      )
    }).pipe(
      Effect.map(
        ({ jobs, oldest, inbox }): Telemetry.QueueSnapshot => ({
          jobs: jobs.map((row) => ({ kind: row.kind, status: row.status, count: Number(row.n) })),
          oldestRunnable: oldest.map((row) => ({ kind: row.kind, runAt: Number(row.run_at) as Time.Millis })),
          oldestUnprocessedInbox: inbox?.received_at === null || inbox?.received_at === undefined ? null : (Number(inbox.received_at) as Time.Millis)
        })
      )
    )
  return { snapshot }
})

export const layer: Layer.Layer<Telemetry.OperationalGauges, never, Database> = Layer.effect(Telemetry.OperationalGauges, make)
