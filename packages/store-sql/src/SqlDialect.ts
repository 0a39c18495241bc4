/**
 * What truly differs between the SQL dialects, as a capability the store packages provide.
 * Repositories read it instead of testing which database they run on.
 */
import { Context, Layer } from "effect"
import { type Expression, type RawBuilder, sql } from "kysely"

export interface SqlDialectShape {
  readonly name: "sqlite" | "postgres"
  /**
   * Whether the job claim locks the rows it picks with `FOR UPDATE SKIP LOCKED` (PostgreSQL,
   * where several workers claim concurrently). SQLite has one writer and no such clause.
   */
  readonly lockForClaim: boolean
  /**
   * Whether a read can lock the rows it answers until the transaction ends (`FOR UPDATE`,
   * PostgreSQL), so that a batch that reads rows and then writes them takes its locks in the
   * order it reads them. SQLite has one writer (its transactions begin IMMEDIATE) and no
   * such clause.
   */
  readonly lockRows: boolean
  /**
   * Whether the driver binds a JS array as one SQL array parameter, so a bulk insert can pass
   * one array per column and `unnest` them (PostgreSQL: parsing one long VALUES list per
   * statement costs more than the insert). SQLite has no arrays: multi-row VALUES.
   */
  readonly arrayParameters: boolean
  /**
   * Whether other transactions write while one stays open (PostgreSQL: a transaction locks
   * only the rows it writes), so a long one (a feed upload's, held while its file is read)
   * delays no one else. SQLite has one writer: an open write transaction holds every other.
   */
  readonly concurrentWriters: boolean
  /**
   * A lock by name held until the current transaction ends, where writers are concurrent
   * (PostgreSQL: `pg_advisory_xact_lock`); undefined on SQLite, whose one writer holds them all.
   */
  readonly transactionLock: ((name: string) => RawBuilder<unknown>) | undefined
  /**
   * Whether an `UPDATE … FROM (VALUES …)` of many rows' own changes finds each target row by its
   * key (PostgreSQL). SQLite (3.53) reads the whole target table for it, whatever the plan says:
   * about 1 ms per statement at 50,000 rows, growing with the table; there a statement per row,
   * compiled once, costs a few microseconds.
   */
  readonly updateFromValues: boolean
}

export class SqlDialect extends Context.Tag("@switchboard/store-sql/SqlDialect")<SqlDialect, SqlDialectShape>() {}

export const sqlite: SqlDialectShape = {
  name: "sqlite",
  lockForClaim: false,
  lockRows: false,
  arrayParameters: false,
  concurrentWriters: false,
  transactionLock: undefined,
  updateFromValues: false
}
export const postgres: SqlDialectShape = {
  name: "postgres",
  lockForClaim: true,
  lockRows: true,
  arrayParameters: true,
  concurrentWriters: true,
  transactionLock: (name) => sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`,
  updateFromValues: true
}

export const layer = (dialect: SqlDialectShape): Layer.Layer<SqlDialect> => Layer.succeed(SqlDialect, dialect)

/**
 * The larger of two nullable values, ignoring a NULL (NULL only when both are). The
 * dialects' own functions disagree here: SQLite's scalar `max(a, b)` answers NULL when
 * either is NULL, PostgreSQL's `GREATEST` ignores NULLs. One CASE expression means the same
 * on both, so this is the one place that spells "the later of two times" in SQL.
 */
export const greatest = <T extends number | null>(a: Expression<T>, b: Expression<T>): Expression<T> =>
  sql<T>`(case when ${a} is null or ${b} > ${a} then ${b} else ${a} end)`
