/**
 * The StoreRepo port over the `stores` and `api_keys` tables. The key-hash lookup runs on
 * every authenticated request, so its query is compiled once when the layer is built.
 */
import { Store, StoreRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import type { Selectable } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import type { StoresTable } from "./Tables.js"

type StoreRow = Selectable<StoresTable>

const storeColumns = [
  "stores.id",
  "stores.name",
  "stores.created_at",
  "stores.sandbox_waba_id",
  "stores.sandbox_phone_number_id",
  "stores.sandbox_display_phone",
  "stores.live_waba_id",
  "stores.live_phone_number_id",
  "stores.live_display_phone"
] as const

export const toStore = (row: StoreRow): Store.Store => ({
  id: row.id as Tenant.StoreId,
  name: row.name,
  createdAt: Number(row.created_at),
  sandbox: {
    kind: "sandbox",
    wabaId: row.sandbox_waba_id,
    phoneNumberId: row.sandbox_phone_number_id,
    displayPhoneNumber: row.sandbox_display_phone
  },
  live:
    row.live_waba_id !== null && row.live_phone_number_id !== null
      ? {
          kind: "live",
          wabaId: row.live_waba_id,
          phoneNumberId: row.live_phone_number_id,
          displayPhoneNumber: row.live_display_phone ?? ""
        }
      : null
})

export const make: Effect.Effect<StoreRepo.StoreRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const byKeyHash = prepare((p: { hash: string }) =>
    db.kysely
      .selectFrom("api_keys")
      .innerJoin("stores", "stores.id", "api_keys.store_id")
      .select([...storeColumns, "api_keys.mode"])
      .where("api_keys.hash", "=", p.hash)
  )

  const findByAccount = (column: "waba_id" | "phone_number_id", value: string) =>
    db
      .query((k) =>
        k
          .selectFrom("stores")
          .select(storeColumns)
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
          const createdAt = store.createdAt
          yield* db.query((k) =>
            k
              .insertInto("stores")
              .values({
                id: store.id,
                name: store.name,
                created_at: createdAt,
                sandbox_waba_id: store.sandbox.wabaId,
                sandbox_phone_number_id: store.sandbox.phoneNumberId,
                sandbox_display_phone: store.sandbox.displayPhoneNumber,
                live_waba_id: store.live?.wabaId ?? null,
                live_phone_number_id: store.live?.phoneNumberId ?? null,
                live_display_phone: store.live?.displayPhoneNumber ?? null
              })
              .execute()
          )
          if (keys.length > 0) {
            yield* db.query((k) =>
              k
                .insertInto("api_keys")
                .values(
                  keys.map((key) => ({
                    id: key.id,
                    store_id: key.storeId,
                    mode: key.mode,
                    hash: key.hash,
                    hint: key.hint,
                    created_at: createdAt
                  }))
                )
                .execute()
            )
          }
        })
      ),

    findById: (id) =>
      db
        .query((k) => k.selectFrom("stores").select(storeColumns).where("id", "=", id).executeTakeFirst())
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
        .query((k) => k.selectFrom("stores").select(storeColumns).orderBy("id").execute())
        .pipe(Effect.map((rows) => rows.map(toStore)))
  })
})

export const layer: Layer.Layer<StoreRepo.StoreRepo, never, Database> = Layer.effect(StoreRepo.StoreRepo, make)
