/**
 * What truly differs between the SQL dialects, as a capability the store packages provide.
 * Repositories read it instead of testing which database they run on.
 */
import { Context, Layer } from "effect"

export interface SqlDialectShape {
  readonly name: "sqlite" | "postgres"
  /**
   * Whether the job claim locks the rows it picks with `FOR UPDATE SKIP LOCKED` (PostgreSQL,
   * where several workers claim concurrently). SQLite has one writer and no such clause.
   */
  readonly lockForClaim: boolean
}

export class SqlDialect extends Context.Tag("@switchboard/store-sql/SqlDialect")<SqlDialect, SqlDialectShape>() {}

export const sqlite: SqlDialectShape = { name: "sqlite", lockForClaim: false }
export const postgres: SqlDialectShape = { name: "postgres", lockForClaim: true }

export const layer = (dialect: SqlDialectShape): Layer.Layer<SqlDialect> => Layer.succeed(SqlDialect, dialect)
