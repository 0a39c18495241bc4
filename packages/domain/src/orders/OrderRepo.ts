/**
 * Storage of orders and of what happens to them (payments, refunds, cancellations,
 * shipments, returns), scoped by the tenant (store and mode): another tenant's rows are
 * invisible, exactly as missing ones.
 *
 * Concurrency: every change of an order's items or money runs in one transaction that
 * first takes the order with `lock`, which holds its row until the transaction ends (a row
 * lock on PostgreSQL, the one writer on SQLite). Checks made on the locked order (the
 * refundable amount, the unshipped quantities) therefore still hold when the change is
 * written: two concurrent refunds are applied one after the other, never both on the
 * same figure.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { Order, OrderId, PaymentStatus, Status } from "./Order.js"
import type { RecordKind, RecordOf } from "./OrderRecord.js"

export interface OrderFilter {
  readonly status?: Status | undefined
  readonly paymentStatus?: PaymentStatus | undefined
  /** Created at or after. */
  readonly createdFrom?: number | undefined
  /** Created before. */
  readonly createdTo?: number | undefined
}

export interface RecordFilter {
  readonly orderId?: OrderId | undefined
  readonly status?: string | undefined
}

export class OrderRepo extends Context.Tag("@switchboard/domain/OrderRepo")<
  OrderRepo,
  {
    /**
     * Stores the order of a cart message, once: when the tenant has an order of the same
     * `sourceMessageId` already (a duplicate delivery, even a concurrent one), nothing is
     * written and that order is answered with `created: false`.
     */
    readonly insertFromCart: (tenant: Tenant, order: Order) => Effect.Effect<{ readonly order: Order; readonly created: boolean }>
    /**
     * Stores the orders of many cart messages at once (multi-row), each once: an order whose
     * `sourceMessageId` the tenant has already (even from a concurrent writer), or an earlier
     * order of the list has, is not written. Answers the ids of the orders written.
     */
    readonly insertFromCarts: (tenant: Tenant, orders: ReadonlyArray<Order>) => Effect.Effect<ReadonlySet<OrderId>>
    readonly find: (tenant: Tenant, id: OrderId) => Effect.Effect<Option.Option<Order>>
    /** The order made from the cart message `messageId`. */
    readonly findBySourceMessage: (tenant: Tenant, messageId: string) => Effect.Effect<Option.Option<Order>>
    /** The order whose payment request carried our `reference_id` (unique per tenant). */
    readonly findByPaymentReference: (tenant: Tenant, referenceId: string) => Effect.Effect<Option.Option<Order>>
    /** Newest first by id, rows with id < `after` when given. */
    readonly list: (tenant: Tenant, filter: OrderFilter, page: PageRequest & { readonly after?: OrderId | undefined }) => Effect.Effect<Slice<Order>>
    /**
     * The order, held until the current transaction ends (call inside one). Concurrent
     * `lock`s of the same order wait for each other.
     */
    readonly lock: (tenant: Tenant, id: OrderId) => Effect.Effect<Option.Option<Order>>
    /**
     * Writes the order's changeable fields (status, payment status, money, items,
     * acknowledgement, payment reference and requested amount, customer updates, `updatedAt`).
     */
    readonly save: (tenant: Tenant, order: Order) => Effect.Effect<void>
    /** `save` of each order, in one statement (a few hundred at a time). */
    readonly saveAll: (tenant: Tenant, orders: ReadonlyArray<Order>) => Effect.Effect<void>
    /**
     * The tenant's orders whose payment request carried one of `referenceIds`, held as `lock`
     * holds one (call inside a transaction), taken in the order of their ids.
     */
    readonly lockByPaymentReferences: (tenant: Tenant, referenceIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Order>>
    /** Our catalog with this operator catalog id, if the tenant has one. */
    readonly catalogByOperatorId: (tenant: Tenant, operatorCatalogId: string) => Effect.Effect<Option.Option<string>>
    /** `catalogByOperatorId` of many: our catalog's id by operator catalog id, for those the tenant has. */
    readonly catalogsByOperatorIds: (tenant: Tenant, operatorCatalogIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, string>>
  }
>() {}

/**
 * The records of orders: payments, refunds, cancellations, shipments and returns. Each has
 * an id of its kind and belongs to one order; `key` (an idempotency key, a payment's
 * transaction) is unique per order and kind.
 */
export class OrderRecordRepo extends Context.Tag("@switchboard/domain/OrderRecordRepo")<
  OrderRecordRepo,
  {
    /** Stores the record; `false` (nothing written) when the order has a record of the kind with the same `key`. */
    readonly insert: <K extends RecordKind>(tenant: Tenant, kind: K, record: RecordOf<K>, key: string | null) => Effect.Effect<boolean>
    /**
     * `insert` of many records of one kind at once (multi-row): a record whose order has one
     * of the kind with the same `key`, or whose key an earlier entry of the list takes, is not
     * written. Answers the ids of the records written.
     */
    readonly insertAll: <K extends RecordKind>(
      tenant: Tenant,
      kind: K,
      entries: ReadonlyArray<{ readonly record: RecordOf<K>; readonly key: string | null }>
    ) => Effect.Effect<ReadonlySet<string>>
    readonly find: <K extends RecordKind>(tenant: Tenant, kind: K, id: string) => Effect.Effect<Option.Option<RecordOf<K>>>
    readonly findByKey: <K extends RecordKind>(tenant: Tenant, kind: K, orderId: OrderId, key: string) => Effect.Effect<Option.Option<RecordOf<K>>>
    /** Newest first by id, rows with id < `after` when given. */
    readonly list: <K extends RecordKind>(tenant: Tenant, kind: K, filter: RecordFilter, page: PageRequest) => Effect.Effect<Slice<RecordOf<K>>>
    /** Every record of the kind of one order, oldest first. */
    readonly all: <K extends RecordKind>(tenant: Tenant, kind: K, orderId: OrderId) => Effect.Effect<ReadonlyArray<RecordOf<K>>>
    /** Replaces the stored record (same id); answers whether it existed. */
    readonly update: <K extends RecordKind>(tenant: Tenant, kind: K, record: RecordOf<K>) => Effect.Effect<boolean>
  }
>() {}
