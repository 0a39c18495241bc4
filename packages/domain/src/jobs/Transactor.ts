import { Context, Effect } from "effect"

/**
 * Runs an effect in one database transaction: every repository call inside it uses the
 * same transaction, which commits when the effect succeeds and rolls back when it fails or
 * is interrupted. Nested calls join the outer transaction.
 */
export class Transactor extends Context.Tag("@switchboard/domain/Transactor")<
  Transactor,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>() {}

/** Runs `effect` in one transaction (joining the caller's when there is one). */
export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Transactor> =>
  Effect.flatMap(Transactor, (tx) => tx.withTransaction(effect))
