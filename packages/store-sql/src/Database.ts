/**
 * The one choke point between the repositories and Kysely: every query goes through
 * `query`/`queryUnique`, which run on the transaction open in the current fiber (if any) or
 * on the pool, and translate driver errors in one place.
 *
 * Transactions are tracked with a FiberRef: `withTransaction` opens a Kysely controlled
 * transaction, runs the effect with the FiberRef set, commits on success and rolls back on
 * failure or interruption. A nested `withTransaction` joins the outer one. Forked fibers
 * inherit the transaction.
 *
 * This matters on SQLite: Kysely's SQLite driver has one connection behind a mutex, so a
 * query issued on the root Kysely while the same fiber holds a transaction would wait for
 * itself forever. Repositories therefore never execute on `kysely` directly.
 */
import { Transactor } from "@switchboard/domain"
import { Context, Data, Effect, Exit, FiberRef, Layer, Option } from "effect"
import { CompiledQuery, type ControlledTransaction, type Kysely, type QueryResult } from "kysely"
import type { Tables } from "./Tables.js"

/** A unique or primary-key constraint refused a write. */
export class UniqueViolation extends Data.TaggedError("UniqueViolation")<{ readonly cause: unknown }> {
  override get message(): string {
    return this.cause instanceof Error ? this.cause.message : "unique constraint violated"
  }
}

/**
 * Whether a driver error is a unique (or primary key) violation: better-sqlite3's
 * `SQLITE_CONSTRAINT_UNIQUE` / `SQLITE_CONSTRAINT_PRIMARYKEY`, PostgreSQL's SQLSTATE 23505.
 * The only place that knows the drivers' error codes.
 */
export const isUniqueViolation = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null || !("code" in error)) return false
  const code = (error as { readonly code: unknown }).code
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505"
}

export interface DatabaseShape {
  /**
   * The root Kysely: to build and `.compile()` queries (and for migrations). Executing on
   * it directly bypasses the current transaction; use `query`.
   */
  readonly kysely: Kysely<Tables>
  /** Runs `f` on the current transaction or the pool. Driver errors are defects. */
  readonly query: <A>(f: (db: Kysely<Tables>) => Promise<A>) => Effect.Effect<A>
  /**
   * As `query`, but a unique violation fails with `UniqueViolation`. Inside a transaction
   * the statement runs under a savepoint, so the violation leaves the transaction usable
   * (PostgreSQL would otherwise abort it).
   */
  readonly queryUnique: <A>(f: (db: Kysely<Tables>) => Promise<A>) => Effect.Effect<A, UniqueViolation>
  /** Executes an already compiled query (see `Prepared`) on the current transaction or the pool. */
  readonly execute: <R>(query: CompiledQuery<R>) => Effect.Effect<QueryResult<R>>
  /** Commits on success, rolls back on failure or interruption; nested calls join the outer transaction. */
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>, options?: Transactor.TransactionOptions) => Effect.Effect<A, E, R>
  /** Whether the current fiber runs inside a transaction. */
  readonly inTransaction: Effect.Effect<boolean>
  /** Runs `f` once the current transaction has committed (never if it rolls back), or now outside one. */
  readonly afterCommit: (f: () => void) => Effect.Effect<void>
  /**
   * A bulk load, where the driver has one (PostgreSQL's `COPY … FROM STDIN`; undefined on
   * SQLite): the rows of `pieces` (each piece whole rows, row after row, one value per column
   * of `columns`: pieces keep each array of values small) into `table`, in one statement of
   * its own on a pool connection, committed when it answers.
   * Never inside the current transaction: callers check `inTransaction` and insert instead.
   */
  readonly copyIn: CopyIn | undefined
}

/** See `DatabaseShape.copyIn`. */
export type CopyIn = (table: string, columns: ReadonlyArray<string>, pieces: ReadonlyArray<ReadonlyArray<unknown>>) => Effect.Effect<void>

export class Database extends Context.Tag("@switchboard/store-sql/Database")<Database, DatabaseShape>() {}

type Trx = ControlledTransaction<Tables>

/** An open transaction, with what runs once it has committed. */
interface Open {
  readonly trx: Trx
  readonly committed: Array<() => void>
}

const orDie = <A>(run: () => Promise<A>): Effect.Effect<A> => Effect.orDie(Effect.tryPromise({ try: run, catch: (e) => e }))

const uniqueOrDie = <A>(run: () => Promise<A>): Effect.Effect<A, UniqueViolation> =>
  Effect.tryPromise({ try: run, catch: (e) => e }).pipe(
    Effect.catchAll((e) => (isUniqueViolation(e) ? Effect.fail(new UniqueViolation({ cause: e })) : Effect.die(e)))
  )

/** Runs `step` on the open transaction; when it fails, rolls back so the connection is released, and fails with its error. */
const orRollBack = async (trx: Trx, step: () => Promise<unknown>): Promise<void> => {
  try {
    await step()
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => undefined)
    throw error
  }
}

/** Commits; when the commit itself fails, rolls back so the connection is released. */
const commit = (trx: Trx): Promise<void> => orRollBack(trx, () => trx.commit().execute())

/**
 * A store's way to run a compiled query at once, without Kysely's driver (SQLite: the one
 * connection is in this process and its statements are synchronous). `ownTransaction` says
 * whether the calling fiber holds the open transaction. It answers undefined when it cannot
 * run the query now: the connection is inside a transaction another fiber holds, so the
 * query must wait for it through Kysely, as before.
 */
export type RunNow = (query: CompiledQuery<unknown>, ownTransaction: boolean) => QueryResult<unknown> | undefined

export interface MakeOptions {
  readonly runNow?: RunNow | undefined
  /**
   * The statement that makes the open transaction's commit answer before it is durable
   * (`withTransaction(…, { durable: false })`); none where commits are so already (SQLite).
   */
  readonly relaxCommit?: CompiledQuery<unknown> | undefined
  /** Bulk loads (`DatabaseShape.copyIn`), where the driver has them (PostgreSQL's COPY). */
  readonly copyIn?: CopyIn | undefined
}

/**
 * The service over a Kysely instance. The caller owns (and eventually destroys) `kysely`.
 * With `runNow`, `execute` runs a compiled query through it where it can: the same statement
 * on the same connection, answering the same result, without a promise or a fiber's
 * suspension per query.
 */
export const make = (kysely: Kysely<Tables>, options: MakeOptions = {}): DatabaseShape => {
  const { runNow, relaxCommit } = options
  const current = FiberRef.unsafeMake<Option.Option<Open>>(Option.none())

  const query = <A>(f: (db: Kysely<Tables>) => Promise<A>): Effect.Effect<A> =>
    Effect.flatMap(FiberRef.get(current), (open) => orDie(() => f(Option.isSome(open) ? open.value.trx : kysely)))

  const underSavepoint = async <A>(trx: Trx, f: (db: Kysely<Tables>) => Promise<A>): Promise<A> => {
    // One name for every savepoint: they nest, and both dialects address the innermost one.
    // A fixed text also keeps SQLite's statement cache small.
    const name = "sb_unique"
    await trx.executeQuery(CompiledQuery.raw(`savepoint ${name}`))
    let result: A
    try {
      result = await f(trx)
    } catch (error) {
      await trx.executeQuery(CompiledQuery.raw(`rollback to savepoint ${name}`))
      await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`))
      throw error
    }
    await trx.executeQuery(CompiledQuery.raw(`release savepoint ${name}`))
    return result
  }

  const queryUnique = <A>(f: (db: Kysely<Tables>) => Promise<A>): Effect.Effect<A, UniqueViolation> =>
    Effect.flatMap(FiberRef.get(current), (open) =>
      Option.isSome(open) ? uniqueOrDie(() => underSavepoint(open.value.trx, f)) : uniqueOrDie(() => f(kysely))
    )

  const executeLater = <R>(compiled: CompiledQuery<R>): Effect.Effect<QueryResult<R>> => query((db) => db.executeQuery(compiled))
  const execute: <R>(compiled: CompiledQuery<R>) => Effect.Effect<QueryResult<R>> =
    runNow === undefined
      ? executeLater
      : <R>(compiled: CompiledQuery<R>) =>
          Effect.flatMap(FiberRef.get(current), (open) => {
            let result: QueryResult<unknown> | undefined
            try {
              result = runNow(compiled, Option.isSome(open))
            } catch (error) {
              return Effect.die(error)
            }
            return result === undefined ? executeLater(compiled) : Effect.succeed(result as QueryResult<R>)
          })

  const begin = (relaxed: boolean) =>
    orDie(async () => {
      const trx = await kysely.startTransaction().execute()
      if (relaxed) await orRollBack(trx, () => trx.executeQuery(relaxCommit!))
      return trx
    })

  const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>, options?: Transactor.TransactionOptions): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(current), (open) =>
      Option.isSome(open)
        ? effect
        : Effect.acquireUseRelease(
            Effect.map(begin(options?.durable === false && relaxCommit !== undefined), (trx): Open => ({ trx, committed: [] })),
            (tx) => Effect.locally(Effect.locally(effect, current, Option.some(tx)), Transactor.InTransaction, true),
            (tx, exit) =>
              Exit.isSuccess(exit)
                ? Effect.zipRight(
                    orDie(() => commit(tx.trx)),
                    Effect.sync(() => {
                      for (const f of tx.committed) f()
                    })
                  )
                : orDie(() => tx.trx.rollback().execute())
          )
    )

  return {
    kysely,
    query,
    queryUnique,
    execute,
    withTransaction,
    inTransaction: Effect.map(FiberRef.get(current), Option.isSome),
    copyIn: options.copyIn,
    afterCommit: (f) =>
      Effect.flatMap(FiberRef.get(current), (open) =>
        Effect.sync(() => {
          if (Option.isSome(open)) open.value.committed.push(f)
          else f()
        })
      )
  }
}

/** The Database service over `kysely`, which the caller creates and destroys. */
export const layer = (kysely: Kysely<Tables>, options?: MakeOptions): Layer.Layer<Database> => Layer.sync(Database, () => make(kysely, options))

/** The domain's Transactor port, implemented by the Database's transactions. */
export const layerTransactor: Layer.Layer<Transactor.Transactor, never, Database> = Layer.effect(
  Transactor.Transactor,
  Effect.map(Database, (db) => Transactor.Transactor.of({ withTransaction: db.withTransaction }))
)
