/**
 * Queries compiled once. `prepare` builds a query with placeholder values, compiles it, and
 * answers a function that binds real values to the compiled SQL: nothing is rebuilt or
 * recompiled per call, and on SQLite the identical SQL text hits the statement cache.
 */
import { type Compilable, CompiledQuery, type QueryExecutorProvider, type RawBuilder } from "kysely"

const Placeholder = Symbol.for("@switchboard/store-sql/Placeholder")

interface Placeholder {
  readonly [Placeholder]: string
}

const isPlaceholder = (value: unknown): value is Placeholder => typeof value === "object" && value !== null && Placeholder in value

type Slot = { readonly param: string } | { readonly constant: unknown }

/**
 * `build` receives stand-ins for the named parameters of `P` (use them wherever a value goes:
 * `where("id", "=", p.id)`, `limit(p.limit)`); values written literally in the
 * query stay constants.
 */
export const prepare = <P extends Record<string, unknown>, R>(build: (params: P) => Compilable<R>): ((params: P) => CompiledQuery<R>) => {
  const stand = new Proxy({} as P, {
    get: (_, name) => Object.freeze({ [Placeholder]: String(name) })
  })
  const compiled = build(stand).compile()
  const slots: ReadonlyArray<Slot> = compiled.parameters.map((value) => (isPlaceholder(value) ? { param: value[Placeholder] } : { constant: value }))
  const sql = compiled.sql
  return (params) =>
    CompiledQuery.raw(
      sql,
      slots.map((slot) => ("param" in slot ? params[slot.param] : slot.constant))
    ) as CompiledQuery<R>
}

/** `prepare` for a statement written as `sql` text (`build` answers it with the stand-ins in place), compiled by `kysely`. */
export const prepareSql = <P extends Record<string, unknown>, R>(
  kysely: QueryExecutorProvider,
  build: (params: P) => RawBuilder<R>
): ((params: P) => CompiledQuery<R>) => prepare((p: P) => ({ compile: () => build(p).compile(kysely) }))

const Cell = Symbol.for("@switchboard/store-sql/Cell")

const none: Array<unknown> = []

interface Cell {
  readonly [Cell]: number
}

const isCell = (value: unknown): value is Cell => typeof value === "object" && value !== null && Cell in value

/** `multiRow`'s stand-in rows as the table's rows: each tuple's cells named by `columns`, in order (the columns of an `INSERT`'s `values`). */
export const namedRows = <T>(columns: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<never>>): Array<T> =>
  rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])) as T)

/**
 * A statement over many rows (an `INSERT … VALUES` of n rows) compiled once per row count.
 * `build` receives one stand-in tuple per row, a stand-in per column (`row[0]` … `row[width - 1]`),
 * to place where that row's values go; values written literally stay constants. A call binds
 * rows of values (tuples in the same column order) to the compiled SQL by position: nothing is
 * rebuilt, compiled or looked up by name per row. The statements of the last `counts` row
 * counts are kept (16 unless said).
 */
export const multiRow = <R>(width: number, build: (rows: ReadonlyArray<ReadonlyArray<never>>) => Compilable<R>, counts = 16) => {
  const compiled = new Map<
    number,
    { readonly sql: string; readonly slots: Int32Array; readonly constants: ReadonlyArray<unknown>; readonly inOrder: boolean }
  >()
  const compile = (n: number) => {
    const stands = Array.from({ length: n }, (_, row) =>
      Array.from({ length: width }, (_, column) => Object.freeze({ [Cell]: row * width + column }) as never)
    )
    const query = build(stands).compile()
    const constants: Array<unknown> = []
    const slots = Int32Array.from(query.parameters, (value) => (isCell(value) ? value[Cell] : -1 - (constants.push(value) - 1)))
    const entry = { sql: query.sql, slots, constants, inOrder: slots.length === n * width && slots.every((slot, i) => slot === i) }
    if (compiled.size >= counts) compiled.delete(compiled.keys().next().value!)
    compiled.set(n, entry)
    return entry
  }
  const bind = (rows: ReadonlyArray<ReadonlyArray<unknown>>): CompiledQuery<R> => {
    const { sql, slots, constants } = compiled.get(rows.length) ?? compile(rows.length)
    const values = new Array<unknown>(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]
      values[i] = slot >= 0 ? rows[(slot / width) | 0][slot % width] : constants[-1 - slot]
    }
    return CompiledQuery.raw(sql, values) as CompiledQuery<R>
  }
  /**
   * As a call, for `n` rows given as one flat array (row after row, `width` values each):
   * when the statement binds every cell in that order and nothing else (the usual INSERT),
   * the array itself is bound (Kysely freezes it: pass a new one each call), with no tuple
   * per row nor copy. With `reuse`, the array is bound as it is, not frozen: the caller may
   * fill it again for its next statement once this one has run (one array for every chunk of
   * a bulk insert, not a new one of `n * width` values per statement).
   */
  const flat = (values: ReadonlyArray<unknown>, n: number, reuse = false): CompiledQuery<R> => {
    const entry = compiled.get(n) ?? compile(n)
    if (entry.inOrder && reuse && values.length === n * width)
      return { ...CompiledQuery.raw(entry.sql, none), parameters: values } as CompiledQuery<R>
    if (entry.inOrder)
      return CompiledQuery.raw(entry.sql, values.length === n * width ? (values as Array<unknown>) : values.slice(0, n * width)) as CompiledQuery<R>
    const bound = new Array<unknown>(entry.slots.length)
    for (let i = 0; i < entry.slots.length; i++) {
      const slot = entry.slots[i]
      bound[i] = slot >= 0 ? values[slot] : entry.constants[-1 - slot]
    }
    return CompiledQuery.raw(entry.sql, bound) as CompiledQuery<R>
  }
  return Object.assign(bind, { flat })
}
