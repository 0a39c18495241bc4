/** The Inspection port: counts of the jobs not done by kind and status, and the latest inbox entries. */
import { Inspection } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "./Database.js"

export const make: Effect.Effect<Inspection.Inspection["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return Inspection.Inspection.of({
    jobCounts: () =>
      db
        .query((k) =>
          k
            .selectFrom("jobs")
            .select((eb) => ["kind", "status", eb.fn.countAll<number | string>().as("n"), eb.fn.min("created_at").as("oldest")])
            .where("status", "in", ["queued", "running", "dead"])
            .groupBy(["kind", "status"])
            .execute()
        )
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              kind: r.kind,
              status: r.status as "queued" | "running" | "dead",
              count: Number(r.n),
              oldestCreatedAt: Number(r.oldest)
            }))
          )
        ),
    recentInbox: (limit) =>
      db
        .query((k) =>
          k.selectFrom("inbox").select(["id", "kind", "body", "received_at", "processed_at", "outcome"]).orderBy("id", "desc").limit(limit).execute()
        )
        .pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              id: r.id,
              kind: r.kind,
              body: r.body,
              receivedAt: Number(r.received_at),
              processedAt: r.processed_at === null ? null : Number(r.processed_at),
              outcome: r.outcome
            }))
          )
        )
  })
})

export const layer: Layer.Layer<Inspection.Inspection, never, Database> = Layer.effect(Inspection.Inspection, make)
