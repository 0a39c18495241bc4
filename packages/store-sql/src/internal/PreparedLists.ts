/**
 * Queries over lists of values (`IN (…)` lists), compiled once per list lengths: the batch
 * reads of the inbox (the calls, sends, catalogs a batch names) ask for a few values a time,
 * in lengths that repeat, so each length's SQL is built and compiled once and then only bound.
 * As `Prepared.prepare`, `build` receives stand-ins for the named parameters of `P`; it also
 * receives one stand-in per value of each list, to place where that list's values go (`where("id", "in", ids)`).
 * Values written literally in the query stay constants. A list of none compiles as Kysely
 * would compile it for the same `build` (callers that would rather skip the query do so).
 */
import { type Compilable, CompiledQuery } from "kysely"

const Stand = Symbol.for("@switchboard/store-sql/ListStand")

interface Stand {
  readonly [Stand]: { readonly param: string } | { readonly list: number; readonly index: number }
}

const isStand = (value: unknown): value is Stand => typeof value === "object" && value !== null && Stand in value

type Slot =
  | { readonly kind: "param"; readonly param: string }
  | { readonly kind: "cell"; readonly list: number; readonly index: number }
  | { readonly kind: "constant"; readonly value: unknown }

/**
 * `build(params, lists)` for `lists` of the lengths asked; each call binds `params` and the
 * lists' values to the SQL compiled for their lengths. The statements of the last `counts`
 * length combinations are kept (`BATCH_COUNTS` unless said).
 */
export const preparedLists = <P extends Record<string, unknown>, R>(
  build: (params: P, lists: ReadonlyArray<ReadonlyArray<never>>) => Compilable<R>,
  counts = BATCH_COUNTS
): ((params: P, lists: ReadonlyArray<ReadonlyArray<unknown>>) => CompiledQuery<R>) => {
  const stand = new Proxy({} as P, {
    get: (_, name) => Object.freeze({ [Stand]: { param: String(name) } })
  })
  const compiled = new Map<string, { readonly sql: string; readonly slots: ReadonlyArray<Slot> }>()
  const compile = (key: string, lengths: ReadonlyArray<number>) => {
    const lists = lengths.map((n, list) => Array.from({ length: n }, (_, index) => Object.freeze({ [Stand]: { list, index } }) as never))
    const query = build(stand, lists).compile()
    const slots = query.parameters.map((value): Slot => {
      if (!isStand(value)) return { kind: "constant", value }
      const s = value[Stand]
      return "param" in s ? { kind: "param", param: s.param } : { kind: "cell", list: s.list, index: s.index }
    })
    const entry = { sql: query.sql, slots }
    if (compiled.size >= counts) compiled.delete(compiled.keys().next().value!)
    compiled.set(key, entry)
    return entry
  }
  return (params, lists) => {
    const lengths = lists.map((l) => l.length)
    const key = lengths.join(",")
    const { sql, slots } = compiled.get(key) ?? compile(key, lengths)
    const values = new Array<unknown>(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]
      values[i] = slot.kind === "param" ? params[slot.param] : slot.kind === "cell" ? lists[slot.list][slot.index] : slot.value
    }
    return CompiledQuery.raw(sql, values) as CompiledQuery<R>
  }
}

/**
 * How many row or list counts a batch statement keeps compiled (`multiRow`'s and
 * `preparedLists`' `counts`): the inbox's batches come in many sizes, and a size whose
 * statement was dropped is built and compiled again (the cart profile showed it: Kysely
 * building the customers upsert and the orders insert with the default 16).
 */
export const BATCH_COUNTS = 128
