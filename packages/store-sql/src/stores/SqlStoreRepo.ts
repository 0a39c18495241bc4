/**
 * The StoreRepo port over the `stores` and `api_keys` tables. The key-hash lookup runs on
 * every authenticated request (until authentication caches it), so its query is compiled
 * once when the layer is built.
 */
import type { Store, Tenant } from "@switchboard/domain"
import { StoreRepo } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { prepare } from "../internal/Prepared.js"
import { apiKeyColumns, storeColumns, storeSelect } from "./Tables.js"

const toStore = storeColumns.fromRow

export const make: Effect.Effect<StoreRepo.StoreRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const byKeyHash = prepare((p: { hash: string }) =>
    db.kysely
      .selectFrom("api_keys")
      .innerJoin("stores", "stores.id", "api_keys.store_id")
      .select([...storeSelect, "api_keys.mode"])
      .where("api_keys.hash", "=", p.hash)
  )

  const findByAccount = (column: "waba_id" | "phone_number_id", value: string) =>
    db
      .query((k) =>
        k
          .selectFrom("stores")
          .select(storeSelect)
          .where((eb) => eb.or([eb(`sandbox_${column}`, "=", value), eb(`live_${column}`, "=", value)]))
          .limit(1)
          .executeTakeFirst()
      )
      .pipe(
        Effect.map((row) =>
          row === undefined
            ? Option.none()
            : Option.some({
                store: toStore(row),
                kind: (row[`sandbox_${column}`] === value ? "sandbox" : "live") as Store.AccountKind
              })
        )
      )

  return StoreRepo.StoreRepo.of({
    create: (store, keys) =>
      db.withTransaction(
        Effect.gen(function* () {
          yield* db.query((k) => k.insertInto("stores").values(storeColumns.toRow(store)).execute())
          if (keys.length > 0) {
            yield* db.query((k) =>
              k
                .insertInto("api_keys")
                .values(keys.map((key) => ({ ...apiKeyColumns.toRow(key), created_at: store.createdAt })))
                .execute()
            )
          }
        })
      ),

    findById: (id) =>
      db
        .query((k) => k.selectFrom("stores").select(storeSelect).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), toStore))),

    findByKeyHash: (hash) =>
      db.execute(byKeyHash({ hash })).pipe(
        Effect.map(({ rows }) =>
          rows.length === 0 ? Option.none() : Option.some({ store: toStore(rows[0]), mode: rows[0].mode as Tenant.Mode })
        )
      ),

    findByPhoneNumberId: (phoneNumberId) => findByAccount("phone_number_id", phoneNumberId),

    findByWabaId: (wabaId) => findByAccount("waba_id", wabaId),

    list: () =>
      db
        .query((k) => k.selectFrom("stores").select(storeSelect).orderBy("id").execute())
        .pipe(Effect.map((rows) => rows.map(toStore)))
  })
})

export const layer: Layer.Layer<StoreRepo.StoreRepo, never, Database> = Layer.effect(StoreRepo.StoreRepo, make)
