/**
 * The CustomerRepo and CustomerInboundRepo ports over the `customers` table, unique by
 * (store, mode, phone). Every statement is scoped by the tenant (store id, mode).
 *
 * `recordInbound` is one upsert (`recordInbounds` one for many phones): concurrent first
 * messages of one phone create one row, and
 * `last_inbound_at` only moves forward (an older event arriving later leaves the newer time).
 * The lookups by phone and id and the list run per request, so they are compiled once; the
 * upsert (run per inbound batch, and per call a customer starts) once per row count.
 */
import { type Customer, MessagingRepo, type Tenant } from "@switchboard/domain"
import { Array as Arr, Clock, Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import { scoped, ownedBy, preparedPage } from "../internal/Scoped.js"
import { BATCH_COUNTS } from "../internal/PreparedLists.js"
import { multiRow, namedRows, prepare } from "../internal/Prepared.js"
import { greatest } from "../SqlDialect.js"
import { customerColumns, customerSelect as columns, type CustomersTable } from "./Tables.js"

/** Ids per `IN (...)` list: well under SQLite's bound-variable limit. */
const CHUNK = 500

const toCustomer = customerColumns.fromRow

export const make: Effect.Effect<MessagingRepo.CustomerRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  type Scoped = { storeId: string; mode: Tenant.Mode }
  const byId = prepare((p: Scoped & { id: string }) => scoped(db.kysely, "customers", p).select(columns).where("id", "=", p.id))
  const byPhone = prepare((p: Scoped & { phone: string }) => scoped(db.kysely, "customers", p).select(columns).where("phone", "=", p.phone))
  const list = preparedPage(db, (p) => scoped(db.kysely, "customers", p).select(columns), toCustomer)

  const first = ({ rows }: { readonly rows: ReadonlyArray<CustomersTable> }) => Option.map(Option.fromNullable(rows[0]), toCustomer)

  return MessagingRepo.CustomerRepo.of({
    findById: (tenant, id) => db.execute(byId({ storeId: tenant.storeId, mode: tenant.mode, id })).pipe(Effect.map(first)),

    findByPhone: (tenant, phone) => db.execute(byPhone({ storeId: tenant.storeId, mode: tenant.mode, phone })).pipe(Effect.map(first)),

    findByInboundMessage: (tenant, operatorMessageId) =>
      db
        .query((k) =>
          k
            .selectFrom("inbound_messages")
            .innerJoin("customers", (join) =>
              join
                .onRef("customers.store_id", "=", "inbound_messages.store_id")
                .onRef("customers.mode", "=", "inbound_messages.mode")
                .onRef("customers.phone", "=", "inbound_messages.from_phone")
            )
            .select(columns.map((c) => `customers.${c}` as const))
            .where(ownedBy("inbound_messages", tenant))
            .where("inbound_messages.operator_message_id", "=", operatorMessageId)
            .executeTakeFirst()
        )
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), (r) => toCustomer(r as CustomersTable)))),

    findManyByIds: (tenant, ids) =>
      Effect.forEach(Arr.chunksOf([...new Set(ids)], CHUNK), (chunk) =>
        db.query((k) => scoped(k, "customers", tenant).select(columns).where("id", "in", chunk).orderBy("id", "desc").execute())
      ).pipe(Effect.map((chunks) => chunks.flat().map(toCustomer))),

    list: (tenant, page) => list(tenant, page)
  })
})

export const makeInbound: Effect.Effect<MessagingRepo.CustomerInboundRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  /**
   * The upsert of rows of `customerSelect`'s columns, compiled once per row count: a new
   * phone's row is created, a known one's name and window move.
   */
  const upsertRows = multiRow(
    columns.length,
    (rows) =>
      db.kysely
        .insertInto("customers")
        .values(namedRows<CustomersTable>(columns, rows))
        .onConflict((oc) =>
          oc.columns(["store_id", "mode", "phone"]).doUpdateSet((eb) => ({
            profile_name: eb.fn.coalesce(eb.ref("excluded.profile_name"), eb.ref("customers.profile_name")),
            last_inbound_at: greatest(eb.ref("customers.last_inbound_at"), eb.ref("excluded.last_inbound_at")),
            updated_at: eb.ref("excluded.updated_at")
          }))
        )
        .returning(columns),
    BATCH_COUNTS
  )
  const toTuple = customerColumns.toTuple(columns)
  /** One upsert of `inputs` (one row per phone). */
  const upsert = (tenant: Tenant.Tenant, inputs: ReadonlyArray<MessagingRepo.InboundCustomer>, now: number) =>
    Effect.map(
      db.execute(
        upsertRows(
          inputs.map((input) =>
            toTuple({
              id: input.newId,
              storeId: tenant.storeId,
              mode: tenant.mode,
              phone: input.phone,
              waId: input.waId,
              profileName: input.profileName,
              lastInboundAt: input.at,
              createdAt: now,
              updatedAt: now
            })
          )
        )
      ),
      (result) => result.rows
    )
  return MessagingRepo.CustomerInboundRepo.of({
    recordInbound: (tenant, input) =>
      Effect.gen(function* () {
        const [row] = yield* upsert(tenant, [input], yield* Clock.currentTimeMillis)
        return toCustomer(row)
      }),

    recordInbounds: (tenant, inputs) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const customers = new Map<string, Customer.Customer>()
        // in the order of their phones: concurrent batches take the unique index's locks in one order
        const sorted = [...inputs].sort((a, b) => (a.phone < b.phone ? -1 : a.phone > b.phone ? 1 : 0))
        for (const chunk of Chunks.chunks(sorted, CHUNK)) {
          for (const row of yield* upsert(tenant, chunk, now)) customers.set(row.phone, toCustomer(row))
        }
        return customers
      })
  })
})

export const layer: Layer.Layer<MessagingRepo.CustomerRepo | MessagingRepo.CustomerInboundRepo, never, Database> = Layer.merge(
  Layer.effect(MessagingRepo.CustomerRepo, make),
  Layer.effect(MessagingRepo.CustomerInboundRepo, makeInbound)
)
