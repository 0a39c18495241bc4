import { Context, Effect, FiberRef } from "effect"

/**
 * Runs an effect in one database transaction: every repository call inside it uses the
 * same transaction, which commits when the effect succeeds and rolls back when it fails or
 * is interrupted. Nested calls join the outer transaction.
 */
export class Transactor extends Context.Tag("@switchboard/domain/Transactor")<
  Transactor,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>, options?: TransactionOptions) => Effect.Effect<A, E, R>
  }
>() {}

export interface TransactionOptions {
  /**
   * `false`: the commit answers without waiting for the database to make it durable (on
   * PostgreSQL, `synchronous_commit` off for this transaction; on SQLite every commit is so
   * already). A crash of the database server, never one of ours, may then lose it: only for a
   * transaction whose loss something else repairs (a mirrored write's settle, which the sweep
   * finishes again). Ignored by a nested call, which joins the outer transaction.
   */
  readonly durable?: boolean
}

/** Runs `effect` in one transaction (joining the caller's when there is one). */
export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Transactor> =>
  Effect.flatMap(Transactor, (tx) => tx.withTransaction(effect))

/**
 * Whether the current fiber runs inside a database transaction: the store's transactor sets it
 * while one is open. An operator call must never start while it is true (see `Mirror.ts`);
 * apps/server's operator guard reads it.
 */
export const InTransaction: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)
