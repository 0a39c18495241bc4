/**
 * Work in groups: a multi-row INSERT stays under the bound-value limits (SQLite 32,766,
 * PostgreSQL 65,535), an IN list stays short. One helper for every repository that writes or
 * reads many rows at once.
 */
import { Effect } from "effect"

/** `items` in consecutive groups of at most `size`. */
export const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** Runs `f` on each group of at most `size` items, in order; answers the results. */
export const forEach = <A, B, E, R>(items: ReadonlyArray<A>, size: number, f: (group: ReadonlyArray<A>) => Effect.Effect<B, E, R>) =>
  Effect.forEach(chunks(items, size), f)
