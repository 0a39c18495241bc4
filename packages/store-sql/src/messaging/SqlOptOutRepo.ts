/**
 * The OptOutRepo port over the `opt_outs` table, keyed by (store, mode, phone).
 *
 * `add` is an insert that does nothing on conflict: of concurrent adds of one phone exactly
 * one answers true, and the first source stays. `isOptedOut` runs before every send and is
 * compiled once; `filterOptedOut` checks a whole audience (10,000 phones and more) in one
 * statement compiled once, the phones bound as one parameter: a JSON array read by
 * `json_each` on SQLite, an array literal on PostgreSQL (no bound-variable limit, no statement built
 * per call).
 */
import { MessagingRepo, type Tenant } from "@switchboard/domain"
import { Array as Arr, Clock, Effect, Layer } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import { SqlDialect } from "../SqlDialect.js"
import { scoped, scopedDelete, preparedPage } from "../internal/Scoped.js"
import { textArray } from "../internal/ArrayLiteral.js"
import { prepare } from "../internal/Prepared.js"
import { optOutColumns } from "./Tables.js"

/** Phones per `IN (...)` list of `addMany` and `removeMany`: well under SQLite's bound-variable limit. */
const CHUNK = 500

const toOptOut = optOutColumns.fromRow

export const make: Effect.Effect<MessagingRepo.OptOutRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  type Scoped = { storeId: string; mode: Tenant.Mode }
  const isOptedOut = prepare((p: Scoped & { phone: string }) => scoped(db.kysely, "opt_outs", p).select("phone").where("phone", "=", p.phone))
  /** The phones of `phones` (one parameter: a JSON array on SQLite, an array on PostgreSQL) on the tenant's list. */
  const optedOutAmong = prepare((p: Scoped & { phones: unknown }) =>
    scoped(db.kysely, "opt_outs", p)
      .select("phone")
      .where(
        dialect.arrayParameters ? sql<boolean>`phone = any(${p.phones}::text[])` : sql<boolean>`phone in (select value from json_each(${p.phones}))`
      )
  )
  const list = preparedPage(db, (p) => scoped(db.kysely, "opt_outs", p).select(["phone", "source", "created_at"]), toOptOut, {
    by: "phone",
    direction: "asc"
  })

  return MessagingRepo.OptOutRepo.of({
    add: (tenant, phone, source) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const inserted = yield* db.query((k) =>
          k
            .insertInto("opt_outs")
            .values({ ...optOutColumns.toRow({ phone, source, createdAt: now }), store_id: tenant.storeId, mode: tenant.mode })
            .onConflict((oc) => oc.columns(["store_id", "mode", "phone"]).doNothing())
            .returning("phone")
            .executeTakeFirst()
        )
        return inserted !== undefined
      }),

    remove: (tenant, phone) =>
      db
        .query((k) => scopedDelete(k, "opt_outs", tenant).where("phone", "=", phone).executeTakeFirst())
        .pipe(Effect.map((result) => result.numDeletedRows > 0n)),

    addMany: (tenant, phones, source) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const added = new Set<string>()
        for (const chunk of Arr.chunksOf([...new Set(phones)], CHUNK)) {
          const rows = yield* db.query((k) =>
            k
              .insertInto("opt_outs")
              .values(
                chunk.map((phone) => ({ ...optOutColumns.toRow({ phone, source, createdAt: now }), store_id: tenant.storeId, mode: tenant.mode }))
              )
              .onConflict((oc) => oc.columns(["store_id", "mode", "phone"]).doNothing())
              .returning("phone")
              .execute()
          )
          for (const row of rows) added.add(row.phone)
        }
        return added
      }),

    removeMany: (tenant, phones) =>
      Effect.gen(function* () {
        const removed = new Set<string>()
        for (const chunk of Arr.chunksOf([...new Set(phones)], CHUNK)) {
          const rows = yield* db.query((k) => scopedDelete(k, "opt_outs", tenant).where("phone", "in", chunk).returning("phone").execute())
          for (const row of rows) removed.add(row.phone)
        }
        return removed
      }),

    isOptedOut: (tenant, phone) =>
      db.execute(isOptedOut({ storeId: tenant.storeId, mode: tenant.mode, phone })).pipe(Effect.map(({ rows }) => rows.length > 0)),

    filterOptedOut: (tenant, phones) =>
      phones.length === 0
        ? Effect.succeed(new Set<string>())
        : db
            .execute(
              optedOutAmong({
                storeId: tenant.storeId,
                mode: tenant.mode,
                phones: dialect.arrayParameters ? textArray(phones) : JSON.stringify(phones)
              })
            )
            .pipe(Effect.map(({ rows }): ReadonlySet<string> => new Set(rows.map((row) => row.phone)))),

    list: (tenant, page) => list(tenant, page)
  })
})

export const layer: Layer.Layer<MessagingRepo.OptOutRepo, never, Database | SqlDialect> = Layer.effect(MessagingRepo.OptOutRepo, make)
