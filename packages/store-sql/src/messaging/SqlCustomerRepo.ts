/**
 * The CustomerRepo port over the `customers` table, unique by (store, mode, phone). Every
 * statement is scoped by (store id, mode).
 *
 * `recordInbound` is one upsert: concurrent first messages of one phone create one row, and
 * `last_inbound_at` only moves forward (an older event arriving later leaves the newer time).
 * The lookups by phone and id and the list run per request, so they are compiled once.
 */
import { type Customer, MessagingRepo, Pagination, type Tenant } from "@switchboard/domain"
import { Array as Arr, Clock, Effect, Layer, Option } from "effect"
import type { Selectable } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import { greatest } from "./SqlDialect.js"
import type { CustomersTable } from "./Tables.js"

type CustomerRow = Selectable<CustomersTable>

const columns = [
  "id",
  "store_id",
  "mode",
  "phone",
  "wa_id",
  "profile_name",
  "last_inbound_at",
  "created_at",
  "updated_at"
] as const

/** Ids per `IN (...)` list: well under SQLite's bound-variable limit. */
const CHUNK = 500

export const toCustomer = (row: CustomerRow): Customer.Customer => ({
  id: row.id,
  storeId: row.store_id,
  mode: row.mode,
  phone: row.phone,
  waId: row.wa_id,
  profileName: row.profile_name,
  lastInboundAt: row.last_inbound_at === null ? null : new Date(Number(row.last_inbound_at)),
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at))
})

export const make: Effect.Effect<MessagingRepo.CustomerRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  type Scoped = { storeId: string; mode: Tenant.Mode }
  const byId = prepare((p: Scoped & { id: string }) =>
    db.kysely.selectFrom("customers").select(columns).where("store_id", "=", p.storeId).where("mode", "=", p.mode).where("id", "=", p.id)
  )
  const byPhone = prepare((p: Scoped & { phone: string }) =>
    db.kysely
      .selectFrom("customers")
      .select(columns)
      .where("store_id", "=", p.storeId)
      .where("mode", "=", p.mode)
      .where("phone", "=", p.phone)
  )
  const listQuery = (withAfter: boolean) =>
    prepare((p: Scoped & { after: string; limit: number }) =>
      db.kysely
        .selectFrom("customers")
        .select(columns)
        .where("store_id", "=", p.storeId)
        .where("mode", "=", p.mode)
        .$if(withAfter, (q) => q.where("id", "<", p.after))
        .orderBy("id", "desc")
        .limit(p.limit)
    )
  const list = { plain: listQuery(false), after: listQuery(true) }

  const first = ({ rows }: { readonly rows: ReadonlyArray<CustomerRow> }) =>
    Option.map(Option.fromNullable(rows[0]), toCustomer)

  return MessagingRepo.CustomerRepo.of({
    recordInbound: (scope, input) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const row = yield* db.query((k) =>
          k
            .insertInto("customers")
            .values({
              id: input.newId,
              store_id: scope.storeId,
              mode: scope.mode,
              phone: input.phone,
              wa_id: input.waId,
              profile_name: input.profileName,
              last_inbound_at: input.at.getTime(),
              created_at: now,
              updated_at: now
            })
            .onConflict((oc) =>
              oc.columns(["store_id", "mode", "phone"]).doUpdateSet((eb) => ({
                profile_name: eb.fn.coalesce(eb.ref("excluded.profile_name"), eb.ref("customers.profile_name")),
                last_inbound_at: greatest(eb.ref("customers.last_inbound_at"), eb.ref("excluded.last_inbound_at")),
                updated_at: eb.ref("excluded.updated_at")
              }))
            )
            .returning(columns)
            .executeTakeFirstOrThrow()
        )
        return toCustomer(row)
      }),

    findById: (scope, id) => db.execute(byId({ storeId: scope.storeId, mode: scope.mode, id })).pipe(Effect.map(first)),

    findByPhone: (scope, phone) =>
      db.execute(byPhone({ storeId: scope.storeId, mode: scope.mode, phone })).pipe(Effect.map(first)),

    findManyByIds: (scope, ids) =>
      Effect.forEach(Arr.chunksOf([...new Set(ids)], CHUNK), (chunk) =>
        db.query((k) =>
          k
            .selectFrom("customers")
            .select(columns)
            .where("store_id", "=", scope.storeId)
            .where("mode", "=", scope.mode)
            .where("id", "in", chunk)
            .orderBy("id", "desc")
            .execute()
        )
      ).pipe(Effect.map((chunks) => chunks.flat().map(toCustomer))),

    list: (scope, page) =>
      db
        .execute(
          (page.after !== undefined ? list.after : list.plain)({
            storeId: scope.storeId,
            mode: scope.mode,
            after: page.after ?? "",
            limit: page.limit + 1
          })
        )
        .pipe(Effect.map(({ rows }) => Pagination.sliceOf(rows.map(toCustomer), page.limit)))
  })
})

export const layer: Layer.Layer<MessagingRepo.CustomerRepo, never, Database> = Layer.effect(MessagingRepo.CustomerRepo, make)
