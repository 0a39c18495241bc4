/**
 * The time zone lists of campaign recipients (`campaign_zone_lists`, migration 0029): each
 * distinct list (IANA names joined by `&`, as `PhoneZones.ts` answers them) is a row, and a
 * recipient stores its list's id (`zone_id`), a small integer instead of up to 700 bytes of
 * names on every row. Lists are only ever added, so an id means the same list for the life
 * of the database, and a process remembers the ids it has seen (per database) once they are
 * committed.
 */
import { Effect } from "effect"
import type { Statements } from "./Statements.js"

interface Known {
  readonly idOf: Map<string, number>
  readonly nameOf: Map<number, string>
}

/** Per database (the `Database` service object), so two databases never share an id. */
const known = new WeakMap<object, Known>()

export const make = (statements: Statements) => {
  const { db, q } = statements
  let cache = known.get(db)
  if (cache === undefined) {
    cache = { idOf: new Map(), nameOf: new Map() }
    known.set(db, cache)
  }
  const { idOf, nameOf } = cache

  /** Remembers rows read from the table once what wrote them has committed (now, outside a transaction). */
  const remember = (rows: ReadonlyArray<{ readonly id: number | string | bigint; readonly zones: string }>) =>
    db.afterCommit(() => {
      for (const row of rows) {
        idOf.set(row.zones, Number(row.id))
        nameOf.set(Number(row.id), row.zones)
      }
    })

  /**
   * The ids of the lists named (adding those the table lacks, one statement for all, which
   * an ingestion runs outside its transaction so no other waits on it); answers a map from
   * each name to its id.
   */
  const ids = (names: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, number>> =>
    Effect.gen(function* () {
      const missing = names.filter((name) => !idOf.has(name))
      if (missing.length === 0) return idOf
      const found = new Map(idOf)
      yield* q((k) =>
        k
          .insertInto("campaign_zone_lists")
          .values(missing.map((zones) => ({ zones })))
          .onConflict((oc) => oc.column("zones").doNothing())
          .execute()
      )
      const rows = yield* q((k) => k.selectFrom("campaign_zone_lists").select(["id", "zones"]).where("zones", "in", missing).execute())
      for (const row of rows) found.set(row.zones, Number(row.id))
      yield* remember(rows)
      return found
    })

  /** The lists of the ids given (null ids skipped); an id the table lacks is absent from the answer. */
  const names = (ids: Iterable<number | string | null>): Effect.Effect<ReadonlyMap<number, string>> =>
    Effect.gen(function* () {
      const missing = new Set<number>()
      for (const id of ids) if (id !== null && !nameOf.has(Number(id))) missing.add(Number(id))
      if (missing.size === 0) return nameOf
      const rows = yield* q((k) =>
        k
          .selectFrom("campaign_zone_lists")
          .select(["id", "zones"])
          .where("id", "in", [...missing])
          .execute()
      )
      const found = new Map(nameOf)
      for (const row of rows) found.set(Number(row.id), row.zones)
      yield* remember(rows)
      return found
    })

  return { ids, names }
}

export type ZoneLists = ReturnType<typeof make>
