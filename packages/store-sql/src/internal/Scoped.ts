/**
 * The tenant rule, written once. A tenant's rows carry its store id and mode; every statement
 * a route runs on them starts from `scoped` (or `scopedUpdate`, `scopedDelete`), which names
 * both, so no repository spells the tenant's WHERE clause by hand.
 *
 *   scoped(k, "calls", tenant).select(select).where("id", "=", id)
 *   scoped(k, "templates", { storeId })        // a table (or a lookup) of the store alone
 *
 * The scope is a `Tenant` (store id and mode), only on tables with both columns, or a store
 * alone (`{ storeId }`). A prepared statement's stand-ins (`prepare((p) => scoped(…, p))`)
 * work the same: the helper only places values.
 *
 * A table reached through a join is scoped by its alias: `.where(ownedBy("p", tenant))`.
 *
 * The reads every repository repeats are here too: `findOne` (an `Option`), `findAll`, and
 * `findPage` (rows after the cursor in the list's order, one more than the limit, sliced;
 * `preparedPage` compiles it once per shape), each decoding rows with the table's column map
 * (`Columns.map`, whose JSON columns decode through their field's Schema).
 */
import { Pagination } from "@switchboard/domain"
import { Effect, Option } from "effect"
import type {
  Compilable,
  CompiledQuery,
  DeleteQueryBuilder,
  DeleteResult,
  Expression,
  ExpressionBuilder,
  Kysely,
  SelectQueryBuilder,
  SqlBool,
  UpdateQueryBuilder,
  UpdateResult
} from "kysely"
import type { DatabaseShape } from "../Database.js"
import { prepare } from "./Prepared.js"
import type { Tables } from "../Tables.js"

/** The tables whose rows carry a store id (of `Tables`, or of a module's wider database type). */
export type StoreTable<DB = Tables> = { [T in keyof DB & string]: DB[T] extends { readonly store_id: string } ? T : never }[keyof DB & string]
/** The tables whose rows carry a store id and a mode: a tenant's. */
export type TenantTable<DB = Tables> = {
  [T in keyof DB & string]: DB[T] extends { readonly store_id: string; readonly mode: string } ? T : never
}[keyof DB & string]

/** A tenant (store and mode). */
export interface TenantScope {
  readonly storeId: string
  readonly mode: string
}
/** A store alone, across its modes. */
export interface StoreScope {
  readonly storeId: string
  readonly mode?: undefined
}

// biome-ignore lint/complexity/noBannedTypes: Kysely's type of a select that has no columns yet
type Select<DB, T> = SelectQueryBuilder<DB, T & keyof DB, {}>
type Update<DB, T> = UpdateQueryBuilder<DB, T & keyof DB, T & keyof DB, UpdateResult>
type Delete<DB, T> = DeleteQueryBuilder<DB, T & keyof DB, DeleteResult>

// One builder for the three statements: Kysely cannot check a column of a table named by a
// type parameter, so the two WHERE clauses are placed untyped, here and nowhere else.
interface Filterable {
  where(column: string, op: "=", value: unknown): Filterable
}
const scope = <Q>(query: Filterable, { storeId, mode }: TenantScope | StoreScope): Q => {
  const byStore = query.where("store_id", "=", storeId)
  return (mode === undefined ? byStore : byStore.where("mode", "=", mode)) as Q
}

/** `SELECT … FROM table WHERE store_id = ? [AND mode = ?]`. */
export function scoped<DB, T extends TenantTable<DB>>(k: Kysely<DB>, table: T, tenant: TenantScope): Select<DB, T>
export function scoped<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, store: StoreScope): Select<DB, T>
export function scoped<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, s: TenantScope | StoreScope): Select<DB, T> {
  return scope((k as unknown as Kysely<Record<string, object>>).selectFrom(table) as unknown as Filterable, s)
}

/** `UPDATE table … WHERE store_id = ? [AND mode = ?]`. */
export function scopedUpdate<DB, T extends TenantTable<DB>>(k: Kysely<DB>, table: T, tenant: TenantScope): Update<DB, T>
export function scopedUpdate<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, store: StoreScope): Update<DB, T>
export function scopedUpdate<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, s: TenantScope | StoreScope): Update<DB, T> {
  return scope((k as unknown as Kysely<Record<string, object>>).updateTable(table) as unknown as Filterable, s)
}

/** `DELETE FROM table WHERE store_id = ? [AND mode = ?]`. */
export function scopedDelete<DB, T extends TenantTable<DB>>(k: Kysely<DB>, table: T, tenant: TenantScope): Delete<DB, T>
export function scopedDelete<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, store: StoreScope): Delete<DB, T>
export function scopedDelete<DB, T extends StoreTable<DB>>(k: Kysely<DB>, table: T, s: TenantScope | StoreScope): Delete<DB, T> {
  return scope((k as unknown as Kysely<Record<string, object>>).deleteFrom(table) as unknown as Filterable, s)
}

/**
 * The tenant's rows of the table aliased `alias` in a join (`.where(ownedBy("p", tenant))`):
 * `(alias.store_id = ? [and alias.mode = ?])`, for a statement that reaches a tenant's table
 * through another.
 */
export const ownedBy =
  (alias: string, { storeId, mode }: TenantScope | StoreScope) =>
  (eb: ExpressionBuilder<any, any>): Expression<SqlBool> => {
    const byStore = eb(`${alias}.store_id`, "=", storeId)
    return mode === undefined ? byStore : eb.and([byStore, eb(`${alias}.mode`, "=", mode)])
  }

/** A statement that answers rows. */
interface Reads<Row> {
  execute(): Promise<Array<Row>>
}
interface ReadsFirst<Row> {
  executeTakeFirst(): Promise<Row | undefined>
}

/** The first row `build` answers, decoded. */
export const findOne = <Row, A>(
  db: DatabaseShape,
  build: (k: Kysely<Tables>) => ReadsFirst<Row>,
  decode: (row: Row) => A
): Effect.Effect<Option.Option<A>> =>
  Effect.map(
    db.query((k) => build(k).executeTakeFirst()),
    (row) => (row === undefined ? Option.none() : Option.some(decode(row)))
  )

/** Every row `build` answers, decoded, in its order. */
export const findAll = <Row, A>(db: DatabaseShape, build: (k: Kysely<Tables>) => Reads<Row>, decode: (row: Row) => A): Effect.Effect<Array<A>> =>
  Effect.map(
    db.query((k) => build(k).execute()),
    (rows) => rows.map(decode)
  )

/** A list's order: the cursor column and its direction (`desc`: newest first, the cursor is the last id seen). */
export interface Order {
  readonly by: string
  readonly direction: "asc" | "desc"
}

const newestFirst: Order = { by: "id", direction: "desc" }

/** What a list query is before its cursor, order and limit: any select whose rows have the cursor column. */
interface Pageable<Row> extends Reads<Row> {
  where(column: string, op: "<" | ">", value: unknown): Pageable<Row>
  orderBy(column: string, direction: "asc" | "desc"): Pageable<Row>
  limit(limit: number): Pageable<Row>
}

/**
 * One page of the rows `build` answers: those after `request.after` in `order` (by id, newest
 * first, unless told), at most `request.limit`, and whether more follow.
 */
export const findPage = <Row, A>(
  db: DatabaseShape,
  request: { readonly limit: number; readonly after?: string | number | undefined },
  build: (k: Kysely<Tables>) => Reads<Row>,
  decode: (row: Row) => A,
  order: Order = newestFirst
): Effect.Effect<Pagination.Slice<A>> =>
  Effect.map(
    db.query((k) => {
      const query = build(k) as unknown as Pageable<Row>
      const after = request.after === undefined ? query : query.where(order.by, order.direction === "desc" ? "<" : ">", request.after)
      return after
        .orderBy(order.by, order.direction)
        .limit(request.limit + 1)
        .execute()
    }),
    (rows) => Pagination.sliceOf(rows.map(decode), request.limit)
  )

/**
 * `findPage` for a list that runs on every request, compiled once per shape (with or without
 * a cursor, each optional filter given or not) on first use: `build(p, given)` places the
 * stand-ins of `p` (the scope and the filters) and applies a filter only when it is `given`.
 * A call binds the values to the compiled SQL (see `Prepared`).
 */
export const preparedPage = <F extends Record<string, string>, Row, A>(
  db: DatabaseShape,
  build: (p: TenantScope & F, given: (filter: keyof F) => boolean) => Reads<Row>,
  decode: (row: Row) => A,
  order: Order = newestFirst
) => {
  const statements = new Map<string, (params: Record<string, unknown>) => CompiledQuery<Row>>()
  const compile = (withAfter: boolean, filters: ReadonlyArray<string>) =>
    prepare((p: Record<string, unknown>) => {
      const query = build(p as TenantScope & F, (filter) => filters.includes(filter as string)) as unknown as Pageable<Row>
      return (withAfter ? query.where(order.by, order.direction === "desc" ? "<" : ">", p.after) : query)
        .orderBy(order.by, order.direction)
        .limit(p.limit as number) as unknown as Compilable<Row>
    })
  return (scope: TenantScope | StoreScope, request: Pagination.PageRequest, filters: Partial<F> = {}): Effect.Effect<Pagination.Slice<A>> => {
    const given = Object.keys(filters).filter((name) => (filters as Record<string, unknown>)[name] !== undefined)
    const key = `${request.after !== undefined}:${given.join(",")}`
    let statement = statements.get(key)
    if (statement === undefined) {
      statement = compile(request.after !== undefined, given)
      statements.set(key, statement)
    }
    return Effect.map(db.execute(statement({ ...scope, ...filters, after: request.after ?? "", limit: request.limit + 1 })), ({ rows }) =>
      Pagination.sliceOf(rows.map(decode), request.limit)
    )
  }
}
