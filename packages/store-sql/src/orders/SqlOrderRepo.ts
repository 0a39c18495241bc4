/**
 * The OrderRepo and OrderRecordRepo ports over `orders` and `order_records`, scoped by the
 * tenant. One order per cart message: the unique index on (store, mode, source message)
 * makes a duplicate delivery, even a concurrent one, insert nothing (`ON CONFLICT DO
 * NOTHING`, then the stored order is read). `lock` is an `UPDATE … RETURNING` of the order's
 * row, which holds it until the transaction ends on PostgreSQL (and SQLite has one writer):
 * the same statement on both dialects.
 *
 * The batch writes (the inbox's, a batch of operator events at a time) are set-based:
 * `insertFromCarts` and `insertAll` are one multi-row `INSERT … ON CONFLICT DO NOTHING
 * RETURNING id` per few hundred rows (compiled once per row count), `saveAll` one
 * `UPDATE … FROM (VALUES …)`, `lockByPaymentReferences` one `SELECT … ORDER BY id FOR UPDATE`
 * (PostgreSQL; SQLite's one writer holds them already).
 */
import { type Order, OrderRecord, OrderRepo, Return, Shipment, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import * as Columns from "../internal/Columns.js"
import { multiRow, namedRows, prepareSql } from "../internal/Prepared.js"
import { BATCH_COUNTS, preparedLists } from "../internal/PreparedLists.js"
import { findAll, findOne, findPage, scoped, scopedUpdate } from "../internal/Scoped.js"
import { SqlDialect } from "../SqlDialect.js"
import { type OrderRecordsTable, type OrdersTable, orderColumns as columns, orderSelect as select } from "./OrderTables.js"

type Kind = OrderRecord.RecordKind

const statusOf = (record: object): string | null => ("status" in record && typeof record.status === "string" ? record.status : null)

/** Rows per multi-row statement (22 values a row: far under both dialects' bound-value limits). */
const ROWS = 500
/** Values per IN list. */
const IN = 1000

const tenantRow = Columns.tenantTuple(select, columns.toTuple(select))

/** The columns `save` writes, in the order of `saveAll`'s VALUES; bigint columns are cast so PostgreSQL types the VALUES list. */
const SAVED = [
  ["status", "text"],
  ["payment_status", "text"],
  ["total", "bigint"],
  ["captured", "bigint"],
  ["refunded", "bigint"],
  ["items", "text"],
  ["acknowledged_at", "bigint"],
  ["payment_reference_id", "text"],
  ["requested_amount", "bigint"],
  ["customer_updates", "text"],
  ["updated_at", "bigint"]
] as const satisfies ReadonlyArray<readonly [keyof OrdersTable, "text" | "bigint"]>

export const make: Effect.Effect<OrderRepo.OrderRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  /** The INSERT of cart orders (every column, in `select`'s order), a row already stored by source message skipped. */
  const insertCarts = multiRow(
    select.length,
    (rows) =>
      db.kysely
        .insertInto("orders")
        .values(namedRows<OrdersTable>(select, rows))
        .onConflict((oc) => oc.columns(["store_id", "mode", "source_message_id"]).doNothing())
        .returning("id"),
    BATCH_COUNTS
  )

  /** Each order's `save`, in one statement. */
  const saveMany = (tenant: Tenant.Tenant, orders: ReadonlyArray<Order.Order>) =>
    sql`with v (id, ${sql.join(SAVED.map(([c]) => sql.ref(c)))}) as (values ${sql.join(
      orders.map((order) => {
        const row = columns.toRow(order)
        return sql`(cast(${order.id} as text), ${sql.join(SAVED.map(([c, type]) => sql`cast(${row[c]} as ${sql.raw(type)})`))})`
      })
    )})
    update orders set ${sql.join(SAVED.map(([c]) => sql`${sql.ref(c)} = v.${sql.ref(c)}`))}
    from v
    where orders.id = v.id and orders.store_id = ${tenant.storeId} and orders.mode = ${tenant.mode}`

  /** One order's `save` of `saveMany`, compiled once: where UPDATE … FROM reads the whole table (`SqlDialect.updateFromValues`). */
  const saveOne = prepareSql(
    db.kysely,
    (p: Record<string, unknown>) =>
      sql`update orders set ${sql.join(SAVED.map(([c]) => sql`${sql.ref(c)} = ${p[c]}`))}
    where id = ${p.id} and store_id = ${p.storeId} and mode = ${p.mode}`
  )

  /** The tenant's catalogs of a batch's carts, compiled once per number of operator catalog ids. */
  const catalogsByOperator = preparedLists((p: { storeId: string; mode: string }, [ids]) =>
    scoped(db.kysely, "catalogs", p).select(["id", "operator_catalog_id"]).where("operator_catalog_id", "in", ids)
  )

  const findWhere = (tenant: Tenant.Tenant, column: "id" | "source_message_id" | "payment_reference_id", value: string) =>
    findOne(db, (k) => scoped(k, "orders", tenant).select(select).where(column, "=", value), columns.fromRow)

  return OrderRepo.OrderRepo.of({
    insertFromCart: (tenant, order) =>
      Effect.gen(function* () {
        const inserted = yield* db.query((k) =>
          k
            .insertInto("orders")
            .values(columns.toRow({ ...order, storeId: tenant.storeId, mode: tenant.mode }))
            .onConflict((oc) => oc.columns(["store_id", "mode", "source_message_id"]).doNothing())
            .executeTakeFirst()
        )
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { order, created: true }
        const stored = yield* findWhere(tenant, "source_message_id", order.sourceMessageId)
        return { order: Option.getOrElse(stored, () => order), created: false }
      }),

    insertFromCarts: (tenant, orders) =>
      Effect.map(
        Chunks.forEach(orders, ROWS, (group) => db.execute(insertCarts(group.map((order) => tenantRow(order, tenant))))),
        (results) => new Set(results.flatMap((r) => r.rows.map((row) => row.id as Order.OrderId)))
      ),

    find: (tenant, id) => findWhere(tenant, "id", id),

    findBySourceMessage: (tenant, messageId) => findWhere(tenant, "source_message_id", messageId),

    findByPaymentReference: (tenant, referenceId) => findWhere(tenant, "payment_reference_id", referenceId),

    list: (tenant, filter, request) =>
      findPage(
        db,
        request,
        (k) =>
          scoped(k, "orders", tenant)
            .select(select)
            .$if(filter.status !== undefined, (q) => q.where("status", "=", filter.status!))
            .$if(filter.paymentStatus !== undefined, (q) => q.where("payment_status", "=", filter.paymentStatus!))
            .$if(filter.createdFrom !== undefined, (q) => q.where("created_at", ">=", filter.createdFrom!))
            .$if(filter.createdTo !== undefined, (q) => q.where("created_at", "<", filter.createdTo!)),
        columns.fromRow
      ),

    lock: (tenant, id) =>
      findOne(
        db,
        (k) =>
          scopedUpdate(k, "orders", tenant)
            .set((eb) => ({ updated_at: eb.ref("updated_at") }))
            .where("id", "=", id)
            .returning(select),
        columns.fromRow
      ),

    save: (tenant, order) => {
      const row = columns.toRow(order)
      return db.query((k) =>
        scopedUpdate(k, "orders", tenant)
          .set({
            status: row.status,
            payment_status: row.payment_status,
            total: row.total,
            captured: row.captured,
            refunded: row.refunded,
            items: row.items,
            acknowledged_at: row.acknowledged_at,
            payment_reference_id: row.payment_reference_id,
            requested_amount: row.requested_amount,
            customer_updates: row.customer_updates,
            updated_at: row.updated_at
          })
          .where("id", "=", order.id)
          .execute()
      )
    },

    saveAll: (tenant, orders) =>
      dialect.updateFromValues
        ? Effect.asVoid(Chunks.forEach(orders, ROWS, (group) => db.query((k) => saveMany(tenant, group).execute(k))))
        : Effect.forEach(
            orders,
            (order) => {
              const row = columns.toRow(order)
              const params: Record<string, unknown> = { id: order.id, storeId: tenant.storeId, mode: tenant.mode }
              for (const [c] of SAVED) params[c] = row[c]
              return db.execute(saveOne(params))
            },
            { discard: true }
          ),

    lockByPaymentReferences: (tenant, referenceIds) =>
      Effect.map(
        Chunks.forEach(referenceIds, IN, (refs) =>
          findAll(
            db,
            (k) =>
              scoped(k, "orders", tenant)
                .select(select)
                .where("payment_reference_id", "in", refs)
                .orderBy("id")
                .$if(dialect.lockRows, (q) => q.forUpdate()),
            columns.fromRow
          )
        ),
        (pages) => pages.flat()
      ),

    catalogsByOperatorIds: (tenant, operatorCatalogIds) =>
      Effect.map(
        Chunks.forEach(operatorCatalogIds, IN, (ids) => db.execute(catalogsByOperator(tenant, [ids]))),
        (pages) => new Map(pages.flatMap((page) => page.rows).map((r) => [r.operator_catalog_id, r.id]))
      ),

    catalogByOperatorId: (tenant, operatorCatalogId) =>
      findOne(
        db,
        (k) => scoped(k, "catalogs", tenant).select("id").where("operator_catalog_id", "=", operatorCatalogId),
        (r) => r.id
      )
  })
})

/** Each kind's record, its JSON body decoded through the kind's Schema. */
const bodies: { readonly [K in Kind]: (body: string) => OrderRecord.RecordOf<K> } = {
  payment: Columns.reader("order_records", "body", Columns.json(OrderRecord.Payment)),
  refund: (body) => OrderRecord.fromStored(Columns.reader("order_records", "body", Columns.json(OrderRecord.StoredRefund))(body)),
  cancellation: Columns.reader("order_records", "body", Columns.json(OrderRecord.Cancellation)),
  shipment: Columns.reader("order_records", "body", Columns.json(Shipment.Shipment)),
  return: Columns.reader("order_records", "body", Columns.json(Return.Return))
}

/** The columns of a record, in the order of `insertAll`'s rows. */
const RECORD_COLUMNS = [
  "id",
  "store_id",
  "mode",
  "order_id",
  "kind",
  "status",
  "record_key",
  "body",
  "created_at",
  "updated_at"
] as const satisfies ReadonlyArray<keyof OrderRecordsTable>

export const makeRecords: Effect.Effect<OrderRepo.OrderRecordRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  /** The INSERT of records, a record whose key its order has for the kind skipped. */
  const insertRecords = multiRow(
    RECORD_COLUMNS.length,
    (rows) =>
      db.kysely
        .insertInto("order_records")
        .values(namedRows<OrderRecordsTable>(RECORD_COLUMNS, rows))
        .onConflict((oc) => oc.columns(["order_id", "kind", "record_key"]).doNothing())
        .returning("id"),
    BATCH_COUNTS
  )
  const parse =
    <K extends Kind>(kind: K) =>
    (row: { readonly body: string }): OrderRecord.RecordOf<K> =>
      bodies[kind](row.body)
  /** The tenant's one record of `kind` whose columns equal `match`. */
  const first = <K extends Kind>(tenant: Tenant.Tenant, kind: K, match: ReadonlyArray<readonly ["id" | "order_id" | "record_key", string]>) =>
    findOne(
      db,
      (k) =>
        match.reduce(
          (query, [column, value]) => query.where(column, "=", value),
          scoped(k, "order_records", tenant).select("body").where("kind", "=", kind)
        ),
      parse(kind)
    )

  return OrderRepo.OrderRecordRepo.of({
    insert: (tenant, kind, record, key) =>
      db
        .query((k) =>
          k
            .insertInto("order_records")
            .values({
              id: record.id,
              store_id: tenant.storeId,
              mode: tenant.mode,
              order_id: record.orderId,
              kind,
              status: statusOf(record),
              record_key: key,
              body: JSON.stringify(record),
              created_at: record.createdAt,
              updated_at: record.updatedAt
            })
            .onConflict((oc) => oc.columns(["order_id", "kind", "record_key"]).doNothing())
            .executeTakeFirst()
        )
        .pipe(Effect.map((r) => Number(r.numInsertedOrUpdatedRows ?? 0) > 0)),

    insertAll: (tenant, kind, entries) =>
      Effect.map(
        Chunks.forEach(entries, ROWS, (group) =>
          db.execute(
            insertRecords(
              group.map(({ record, key }) => [
                record.id,
                tenant.storeId,
                tenant.mode,
                record.orderId,
                kind,
                statusOf(record),
                key,
                JSON.stringify(record),
                record.createdAt,
                record.updatedAt
              ])
            )
          )
        ),
        (results) => new Set(results.flatMap((r) => r.rows.map((row) => row.id)))
      ),

    find: (tenant, kind, id) => first(tenant, kind, [["id", id]]),

    findByKey: (tenant, kind, orderId, key) =>
      first(tenant, kind, [
        ["order_id", orderId],
        ["record_key", key]
      ]),

    list: (tenant, kind, filter, request) =>
      findPage(
        db,
        request,
        (k) =>
          scoped(k, "order_records", tenant)
            .select("body")
            .where("kind", "=", kind)
            .$if(filter.orderId !== undefined, (q) => q.where("order_id", "=", filter.orderId!))
            .$if(filter.status !== undefined, (q) => q.where("status", "=", filter.status!)),
        parse(kind)
      ),

    all: (tenant, kind, orderId) =>
      findAll(
        db,
        (k) => scoped(k, "order_records", tenant).select("body").where("order_id", "=", orderId).where("kind", "=", kind).orderBy("id", "asc"),
        parse(kind)
      ),

    update: (tenant, kind, record) =>
      db
        .query((k) =>
          scopedUpdate(k, "order_records", tenant)
            .set({ body: JSON.stringify(record), status: statusOf(record), updated_at: record.updatedAt })
            .where("kind", "=", kind)
            .where("id", "=", record.id)
            .executeTakeFirst()
        )
        .pipe(Effect.map((r) => Number(r.numUpdatedRows) > 0))
  })
})

export const layer = Layer.merge(Layer.effect(OrderRepo.OrderRepo, make), Layer.effect(OrderRepo.OrderRecordRepo, makeRecords))
