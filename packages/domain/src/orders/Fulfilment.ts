/**
 * Shipments and returns of an order (spec §4.4, §4.5).
 *
 * A shipment names items and quantities, each at most what is unshipped (ordered −
 * cancelled − already shipped), checked on the order held in the shipment's transaction;
 * the order settles (`completed` once nothing is left unshipped). `PATCH` changes the
 * tracking only, and a change of it is the caller event `shipment.updated` (the shipment as
 * the API shows it, with `previous_tracking`). A return covers shipped quantities not yet returned, each with a reason;
 * its states are the operator's (`Return.ts`). Creates are idempotent by the body's
 * `idempotency_key` (per order).
 */
import { Effect, Either, Option } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { Transactor } from "../jobs/Transactor.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Order from "./Order.js"
import { OrderRecordRepo, OrderRepo, type RecordFilter } from "./OrderRepo.js"
import { allow, emitSettled, eventData, lock, lookup, resolveItem, withItems } from "./OrderSupport.js"
import * as OrderUpdates from "./OrderUpdates.js"
import * as Refunds from "./Refunds.js"
import * as Return from "./Return.js"
import * as Shipment from "./Shipment.js"

/** Quantities by item id from request lines, each at most `limit(item)` (less what earlier lines took). */
const quantities = (
  order: Order.Order,
  lines: ReadonlyArray<{ readonly item_id?: string | undefined; readonly retailer_id?: string | undefined; readonly quantity: number }>,
  limit: (item: Order.OrderItem) => number,
  what: string
) =>
  Effect.gen(function* () {
    const taken = new Map<string, number>()
    for (const [i, line] of lines.entries()) {
      const item = yield* resolveItem(order, line, `items[${i}]`)
      const open = limit(item) - (taken.get(item.id) ?? 0)
      if (line.quantity > open)
        return yield* Errors.ValidationFailed.of(`items[${i}].quantity`, `must be at most ${open}, the ${what} quantity of ${item.retailerId}`)
      taken.set(item.id, (taken.get(item.id) ?? 0) + line.quantity)
    }
    return taken
  })

export const listShipments = (id: string, query: { readonly limit: number; readonly cursor?: Shipment.ShipmentId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const order = yield* lookup(tenant, id)
    const slice = yield* (yield* OrderRecordRepo).list(tenant, "shipment", { orderId: order.id }, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Shipment.ShipmentId.schema, (r) => r.id)
  })

export const getShipment = Refunds.recordOf("shipment", Shipment.ShipmentId, "shipment")

/** `POST /chat/orders/{id}/shipments`. */
export const createShipment = (id: string, input: Shipment.CreateShipment) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    return yield* OrderUpdates.changeAndTell(
      tenant,
      Effect.gen(function* () {
        const order = yield* lock(tenant, id)
        const records = yield* OrderRecordRepo
        if (input.idempotency_key !== undefined) {
          const first = yield* records.findByKey(tenant, "shipment", order.id, input.idempotency_key)
          if (Option.isSome(first)) return { result: first.value }
        }
        yield* allow(order, "ship")
        const now = yield* Time.now
        const ship = yield* quantities(order, input.items, Order.unshipped, "unshipped")
        const record: Shipment.Shipment = {
          id: yield* Shipment.ShipmentId.generate,
          orderId: order.id,
          items: order.items.filter((i) => ship.has(i.id)).map((i) => ({ itemId: i.id, retailerId: i.retailerId, quantity: ship.get(i.id)! })),
          tracking: {
            carrier: input.tracking.carrier,
            trackingNumber: input.tracking.tracking_number,
            trackingUrl: input.tracking.tracking_url ?? null
          },
          externalShipmentId: input.external_shipment_id ?? null,
          idempotencyKey: input.idempotency_key ?? null,
          createdAt: now,
          updatedAt: now
        }
        const next = withItems(
          order,
          order.items.map((i) => ({ ...i, shipped: i.shipped + (ship.get(i.id) ?? 0) })),
          now
        )
        yield* records.insert(tenant, "shipment", record, record.idempotencyKey)
        yield* (yield* OrderRepo).save(tenant, next)
        yield* Webhooks.emit(tenant, "order.shipped", { ...eventData(next), shipment_id: record.id })
        yield* emitSettled(tenant, order, next)
        // the customer is told after the commit (`partially-shipped`, or `shipped` then `completed`)
        return { result: record, change: { before: order, after: next, shipped: true } }
      })
    )
  })

/** `PATCH /chat/orders/{id}/shipments/{shipmentId}`: the tracking. */
export const updateShipment = (id: string, shipmentId: string, input: Shipment.UpdateShipment) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const shipment = yield* getShipment(id, shipmentId)
    const updated: Shipment.Shipment = {
      ...shipment,
      tracking: { carrier: input.tracking.carrier, trackingNumber: input.tracking.tracking_number, trackingUrl: input.tracking.tracking_url ?? null },
      updatedAt: yield* Time.now
    }
    return yield* (yield* Transactor).withTransaction(
      Effect.gen(function* () {
        yield* (yield* OrderRecordRepo).update(tenant, "shipment", updated)
        if (Shipment.trackingChanged(shipment.tracking, updated.tracking)) {
          yield* Webhooks.emit(tenant, "shipment.updated", {
            ...Shipment.toJson(updated),
            previous_tracking: Shipment.toJson(shipment).tracking
          })
        }
        return updated
      })
    )
  })

// ---------------------------------------------------------------------------------------
// returns

const RETURN = "return"

const findReturn = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* OrderRecordRepo
    return yield* Id.lookup(Return.ReturnId, RETURN, id, (rid) => repo.find(tenant, "return", rid))
  })

/** `GET /chat/returns` (by `status`, `order_id`) and `GET /chat/orders/{id}/returns`: newest first. */
export const listReturns = (query: {
  readonly limit: number
  readonly cursor?: Return.ReturnId | undefined
  readonly status?: Return.Status | undefined
  readonly order_id?: string | undefined
}) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    if (query.order_id !== undefined && !Order.OrderId.is(query.order_id)) return { data: [], next_cursor: null }
    const filter: RecordFilter = { status: query.status, orderId: query.order_id as Order.OrderId | undefined }
    const slice = yield* (yield* OrderRecordRepo).list(tenant, "return", filter, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, Return.ReturnId.schema, (r) => r.id)
  })

export const listOrderReturns = (id: string, query: { readonly limit: number; readonly cursor?: Return.ReturnId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const order = yield* lookup(tenant, id)
    return yield* listReturns({ ...query, order_id: order.id })
  })

export const getReturn = findReturn

/** `POST /chat/orders/{id}/returns`. */
export const createReturn = (id: string, input: Return.CreateReturn) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    return yield* (yield* Transactor).withTransaction(
      Effect.gen(function* () {
        const order = yield* lock(tenant, id)
        const records = yield* OrderRecordRepo
        if (input.idempotency_key !== undefined) {
          const first = yield* records.findByKey(tenant, "return", order.id, input.idempotency_key)
          if (Option.isSome(first)) return first.value
        }
        yield* allow(order, "return")
        const now = yield* Time.now
        const back = yield* quantities(order, input.items, (i) => i.shipped - i.returned, "shipped and not yet returned")
        const reasons = new Map(input.items.map((line, i) => [i, line.reason]))
        const items: Array<Return.Return["items"][number]> = []
        for (const [i, line] of input.items.entries()) {
          const item = yield* resolveItem(order, line, `items[${i}]`)
          items.push({ itemId: item.id, retailerId: item.retailerId, quantity: line.quantity, reason: reasons.get(i)! })
        }
        const record: Return.Return = {
          id: yield* Return.ReturnId.generate,
          orderId: order.id,
          status: "REQUESTED",
          items,
          notes: input.notes ?? null,
          merchantReturnId: input.merchant_return_id ?? null,
          refundId: null,
          idempotencyKey: input.idempotency_key ?? null,
          createdAt: now,
          updatedAt: now
        }
        const next = { ...order, items: order.items.map((i) => ({ ...i, returned: i.returned + (back.get(i.id) ?? 0) })), updatedAt: now }
        yield* records.insert(tenant, "return", record, record.idempotencyKey)
        yield* (yield* OrderRepo).save(tenant, next)
        yield* Webhooks.emit(tenant, "return.requested", { return_id: record.id, order_id: order.id, status: record.status })
        return record
      })
    )
  })

/** `PATCH /chat/returns/{id}`: `update_event` (`ACCEPT_RETURN`, `CLOSE_RETURN`) and notes. */
export const updateReturn = (id: string, input: Return.UpdateReturn) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    return yield* (yield* Transactor).withTransaction(
      Effect.gen(function* () {
        const found = yield* findReturn(id)
        // hold the order: a refund of the return changes it under the same lock
        yield* lock(tenant, found.orderId)
        const current = Option.getOrElse(yield* (yield* OrderRecordRepo).find(tenant, "return", found.id), () => found)
        const status =
          input.update_event === undefined
            ? current.status
            : yield* Either.match(Return.transition(current.status, input.update_event), { onLeft: Effect.fail, onRight: Effect.succeed })
        const updated: Return.Return = {
          ...current,
          status,
          notes: input.notes ?? current.notes,
          merchantReturnId: input.merchant_return_id ?? current.merchantReturnId,
          updatedAt: yield* Time.now
        }
        yield* (yield* OrderRecordRepo).update(tenant, "return", updated)
        yield* Webhooks.emit(tenant, "return.updated", { return_id: updated.id, order_id: updated.orderId, status: updated.status })
        return updated
      })
    )
  })
