/**
 * The StoreRepo port over the `stores` and `api_keys` tables. The key-hash lookup runs on
 * every authenticated request (until authentication caches it), so its query is compiled
 * once when the layer is built.
 */
import type { Tenant } from "@switchboard/domain"
import { Store, StoreRepo } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { findAll, findOne, scoped, scopedUpdate } from "../internal/Scoped.js"
import { prepare } from "../internal/Prepared.js"
import { apiKeyColumns, storeColumns, storeSelect } from "./Tables.js"

const toStore = storeColumns.fromRow

export const make: Effect.Effect<StoreRepo.StoreRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const byKeyHash = prepare((p: { hash: string }) =>
    db.kysely
      .selectFrom("api_keys")
      .innerJoin("stores", "stores.id", "api_keys.store_id")
      .select([...storeSelect, "api_keys.mode", "api_keys.expires_at"])
      .where("api_keys.hash", "=", p.hash)
  )

  /** The store holding an account (WABA or phone number id) in either mode: compiled once per column. */
  const byAccount = (column: "waba_id" | "phone_number_id") =>
    prepare((p: { value: string }) =>
      db.kysely
        .selectFrom("stores")
        .select(storeSelect)
        .where((eb) => eb.or([eb(`sandbox_${column}`, "=", p.value), eb(`live_${column}`, "=", p.value)]))
        .limit(1)
    )
  const byAccountStatements = { waba_id: byAccount("waba_id"), phone_number_id: byAccount("phone_number_id") }

  const findByAccount = (column: "waba_id" | "phone_number_id", value: string) =>
    db.execute(byAccountStatements[column]({ value })).pipe(
      Effect.map(({ rows: [row] }) =>
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
            yield* db.query((k) => k.insertInto("api_keys").values(keys.map(apiKeyColumns.toRow)).execute())
          }
        })
      ),

    findById: (id) => findOne(db, (k) => k.selectFrom("stores").select(storeSelect).where("id", "=", id), toStore),

    findByKeyHash: (hash) =>
      Effect.gen(function* () {
        const { rows } = yield* db.execute(byKeyHash({ hash }))
        if (rows.length === 0) return Option.none()
        const expiresAt = rows[0].expires_at === null ? null : Number(rows[0].expires_at)
        if (!Store.keyIsValid({ expiresAt }, yield* Clock.currentTimeMillis)) return Option.none()
        return Option.some({ store: toStore(rows[0]), mode: rows[0].mode as Tenant.Mode, expiresAt })
      }),

    listKeys: (storeId) =>
      findAll(db, (k) => scoped(k, "api_keys", { storeId }).selectAll().orderBy("created_at").orderBy("id"), apiKeyColumns.fromRow),

    rotateKey: (key, oldKeysExpireAt) =>
      db.withTransaction(
        Effect.gen(function* () {
          const result = yield* db.query((k) =>
            scopedUpdate(k, "api_keys", key)
              .set({ expires_at: oldKeysExpireAt })
              .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", oldKeysExpireAt)]))
              .executeTakeFirst()
          )
          yield* db.query((k) => k.insertInto("api_keys").values(apiKeyColumns.toRow(key)).execute())
          return Number(result.numUpdatedRows)
        })
      ),

    findByPhoneNumberId: (phoneNumberId) => findByAccount("phone_number_id", phoneNumberId),

    findByWabaId: (wabaId) => findByAccount("waba_id", wabaId),

    list: () => findAll(db, (k) => k.selectFrom("stores").select(storeSelect).orderBy("id"), toStore)
  })
})

export const layer: Layer.Layer<StoreRepo.StoreRepo, never, Database> = Layer.effect(StoreRepo.StoreRepo, make)
