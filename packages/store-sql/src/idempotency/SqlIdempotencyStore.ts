/**
 * The IdempotencyStore port over the `idempotency_keys` table, keyed by (scope, key).
 *
 * `reserve` is race-free without a transaction: the insert of a new reservation is an
 * `ON CONFLICT DO NOTHING` (exactly one concurrent caller inserts), the takeover of a stale
 * reservation is one conditional UPDATE (exactly one caller changes the row), and everyone
 * else reads the state the winner left.
 */
import { IdempotencyStore } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"

export const make: Effect.Effect<IdempotencyStore.IdempotencyStore["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const reserve = (
    scope: string,
    key: string,
    requestHash: string,
    lockTimeoutMs: number,
    tries: number
  ): Effect.Effect<IdempotencyStore.Reservation> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const inserted = yield* db.query((k) =>
        k
          .insertInto("idempotency_keys")
          .values({
            scope,
            key,
            request_hash: requestHash,
            status: "in_progress",
            response_status: null,
            response_body: null,
            created_at: now,
            updated_at: now
          })
          .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
          .returning("key")
          .executeTakeFirst()
      )
      if (inserted !== undefined) return { _tag: "Reserved" } as const

      const takenOver = yield* db.query((k) =>
        k
          .updateTable("idempotency_keys")
          .set({ request_hash: requestHash, created_at: now, updated_at: now })
          .where("scope", "=", scope)
          .where("key", "=", key)
          .where("status", "=", "in_progress")
          .where("updated_at", "<", now - lockTimeoutMs)
          .executeTakeFirst()
      )
      if (takenOver.numUpdatedRows > 0n) return { _tag: "Reserved" } as const

      const row = yield* db.query((k) =>
        k
          .selectFrom("idempotency_keys")
          .select(["request_hash", "status", "response_status", "response_body"])
          .where("scope", "=", scope)
          .where("key", "=", key)
          .executeTakeFirst()
      )
      if (row === undefined) {
        // released between our insert and our read: try again
        if (tries > 0) return yield* reserve(scope, key, requestHash, lockTimeoutMs, tries - 1)
        return yield* Effect.dieMessage(`idempotency key ${scope}/${key} keeps vanishing`)
      }
      return row.status === "completed"
        ? {
            _tag: "Completed",
            requestHash: row.request_hash,
            response: { status: Number(row.response_status), body: row.response_body ?? "" }
          }
        : { _tag: "InProgress", requestHash: row.request_hash }
    })

  return IdempotencyStore.IdempotencyStore.of({
    reserve: (scope, key, requestHash, lockTimeoutMs) => reserve(scope, key, requestHash, lockTimeoutMs, 3),

    complete: (scope, key, response) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* db.query((k) =>
          k
            .updateTable("idempotency_keys")
            .set({ status: "completed", response_status: response.status, response_body: response.body, updated_at: now })
            .where("scope", "=", scope)
            .where("key", "=", key)
            .execute()
        )
      }),

    release: (scope, key) =>
      db
        .query((k) =>
          k.deleteFrom("idempotency_keys").where("scope", "=", scope).where("key", "=", key).where("status", "=", "in_progress").execute()
        )
        .pipe(Effect.asVoid),

    find: (scope, key) =>
      db
        .query((k) =>
          k
            .selectFrom("idempotency_keys")
            .select(["response_status", "response_body"])
            .where("scope", "=", scope)
            .where("key", "=", key)
            .where("status", "=", "completed")
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), (r) => ({ status: Number(r.response_status), body: r.response_body ?? "" }))))
  })
})

export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, Database> = Layer.effect(IdempotencyStore.IdempotencyStore, make)
