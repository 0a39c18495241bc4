/**
 * The RetentionStore port: each table's finished rows older than a time, deleted a batch at a
 * time as `DELETE … WHERE key IN (SELECT key … LIMIT n)` (both dialects; SQLite has no
 * `DELETE … LIMIT` by default), each batch one short statement on its own index
 * (migration 0019).
 */
import { Retention } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { sql } from "kysely"
import { Database } from "./Database.js"

export const make: Effect.Effect<Retention.RetentionStore["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  const prune = (table: Retention.Table, before: number, limit: number) =>
    db
      .query((k) => {
        switch (table) {
          case "inbox":
            return sql`DELETE FROM inbox WHERE id IN (SELECT id FROM inbox WHERE processed_at IS NOT NULL AND processed_at < ${before} LIMIT ${limit})`.execute(
              k
            )
          case "jobs":
            return sql`DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status IN ('done', 'dead') AND updated_at < ${before} LIMIT ${limit})`.execute(
              k
            )
          case "webhook_deliveries":
            return sql`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE created_at < ${before} LIMIT ${limit})`.execute(
              k
            )
          case "idempotency_keys":
            return sql`DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM idempotency_keys WHERE status = 'completed' AND updated_at < ${before} LIMIT ${limit})`.execute(
              k
            )
        }
      })
      .pipe(Effect.map((result) => Number(result.numAffectedRows ?? 0n)))
  const count = (table: Retention.Table) =>
    db
      .query((k) =>
        k
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as("n"))
          .executeTakeFirstOrThrow()
      )
      .pipe(Effect.map((row) => Number(row.n)))
  return { prune, count }
})

export const layer: Layer.Layer<Retention.RetentionStore, never, Database> = Layer.effect(Retention.RetentionStore, make)
