/**
 * Queries compiled once. `prepare` builds a query with placeholder values, compiles it, and
 * answers a function that binds real values to the compiled SQL: nothing is rebuilt or
 * recompiled per call, and on SQLite the identical SQL text hits the statement cache.
 */
import { type Compilable, CompiledQuery } from "kysely"

const Placeholder = Symbol.for("@switchboard/store-sql/Placeholder")

interface Placeholder {
  readonly [Placeholder]: string
}

const isPlaceholder = (value: unknown): value is Placeholder => typeof value === "object" && value !== null && Placeholder in value

type Slot = { readonly param: string } | { readonly constant: unknown }

/**
 * `build` receives stand-ins for the named parameters of `P` (use them wherever a value goes:
 * `where("store_id", "=", p.storeId)`, `limit(p.limit)`); values written literally in the
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
