/**
 * The orders module's operator events a batch at a time (the inbox's, `operatorEventBatches`),
 * with the effect of applying each in turn (`OrderEvents.onInboundMessage`,
 * `OrderPayments.onPaymentStatus`, `WhatsAppRefunds.onRefundWebhook`): the same rows, the same
 * caller events in the same order, the same jobs.
 *
 * - Carts: per tenant, the catalogs the batch's carts name are read in one query and their
 *   products in one per catalog; the orders are inserted in one multi-row statement that
 *   skips a message the tenant has an order of already (a replay, even a concurrent one); a
 *   message repeated in the batch makes one order, from its first copy. The store's payment
 *   settings are read once per tenant, and the payment requests the new orders ask for are
 *   queued in one statement.
 * - Payment statuses: per tenant, the orders of the batch's references are read and held in
 *   one query, the payment records inserted in one statement (a (transaction, status) already
 *   recorded, or repeated in the batch, is skipped), each order's statuses folded in memory in
 *   the order received, and the orders changed written in one statement. A reference that a
 *   status listing refunds names in the batch is applied one event at a time, in its turn.
 *
 * The carts are parsed and their orders made in plain loops (`parseCart`, `buildOrder`: the
 * per-event path's `cartOf` and `orderOf` without an effect per cart), their ids from one
 * reading of the clock. The caller events go out with the inbox's batch (`Webhooks.batched`).
 */
import { Clock, Effect } from "effect"
import { JobQueue, type NewJob } from "../jobs/JobQueue.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import type { Mode, Tenant } from "../shared/Tenant.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type { Product } from "../commerce/Product.js"
import type * as Order from "./Order.js"
import { buildOrder, type Cart, emitCreated, parseCart, productsOf } from "./OrderEvents.js"
import * as OrderPayments from "./OrderPayments.js"
import type { Payment } from "./OrderRecord.js"
import { OrderRecordRepo, OrderRepo } from "./OrderRepo.js"
import * as WhatsAppRefunds from "./WhatsAppRefunds.js"

const keyOf = (tenant: Tenant) => `${tenant.storeId} ${tenant.mode}`
const modeOf = (kind: Routed["kind"]): Mode => (kind === "live" ? "live" : "test")

/** `items` grouped by `key`, groups and their items in the order first met. */
const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Map<string, Array<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return groups
}

/** Customers' cart messages (`InboundMessage` of type `order`; the others are messaging's): one order per message. */
export const onInboundMessages = (items: ReadonlyArray<Routed<WebhookEvent.InboundMessage>>) =>
  Effect.gen(function* () {
    const repo = yield* OrderRepo
    const carts: Array<Cart> = []
    for (const { store, kind, event } of items) {
      const parsed = parseCart(store, kind, event)
      if (parsed === undefined) continue
      if ("warning" in parsed) yield* Effect.logWarning(parsed.warning, { id: event.messageId })
      else carts.push(parsed.cart)
    }
    if (carts.length === 0) return
    // one reading of the clock for the batch's new ids (as many reads within one millisecond would give)
    const now = yield* Clock.currentTimeMillis
    const made = new Map<Cart, Order.Order>()
    for (const group of groupBy(carts, (c) => keyOf(c.tenant)).values()) {
      const tenant = group[0].tenant
      // a message repeated in the batch: its first copy makes the order, as when applied in turn
      const fresh = [...groupBy(group, (c) => c.event.messageId).values()].map((copies) => copies[0])
      const catalogs = yield* repo.catalogsByOperatorIds(tenant, [...new Set(fresh.map((c) => c.operatorCatalogId))])
      const products = new Map<string | undefined, ReadonlyMap<string, Product>>()
      for (const [catalogId, ofCatalog] of groupBy(fresh, (c) => catalogs.get(c.operatorCatalogId) ?? "")) {
        if (catalogId === "") continue
        const found = yield* productsOf(tenant, catalogId, [...new Set(ofCatalog.flatMap((c) => c.lines.map((l) => l.retailerId)))])
        products.set(catalogId, new Map(found.map((p) => [p.retailerId, p])))
      }
      const orders: Array<Order.Order> = []
      for (const cart of fresh) {
        const catalogId = catalogs.get(cart.operatorCatalogId)
        const known = products.get(catalogId)
        const named = known === undefined ? [] : cart.lines.flatMap((l) => known.get(l.retailerId) ?? [])
        const order = buildOrder(cart, catalogId, named, now)
        made.set(cart, order)
        orders.push(order)
      }
      const inserted = yield* repo.insertFromCarts(tenant, orders)
      for (const cart of fresh) if (!inserted.has(made.get(cart)!.id)) made.delete(cart)
    }
    // what each new order does, in the order of the batch: its caller event, its payment request
    const requests = new Map<string, boolean>()
    const jobs: Array<NewJob> = []
    for (const cart of carts) {
      const order = made.get(cart)
      if (order === undefined) continue
      yield* emitCreated(cart.tenant, order)
      const key = keyOf(cart.tenant)
      let asked = requests.get(key)
      if (asked === undefined) {
        asked = yield* OrderPayments.requestsOnCart(cart.tenant)
        requests.set(key, asked)
      }
      if (asked) jobs.push(OrderPayments.requestOnCartJob(cart.tenant, order))
    }
    if (jobs.length > 0) yield* (yield* JobQueue).enqueueAll(jobs)
  }).pipe(Webhooks.batched)

interface Status {
  readonly item: Routed<WebhookEvent.PaymentStatus>
  readonly tenant: Tenant
  /** Applied alone, in its turn: a status of a reference that a status listing refunds names in the batch. */
  readonly alone: boolean
}

/** Payment statuses (a payment's, or one listing refunds' outcomes), matched by our payment request's reference. */
export const onPaymentStatuses = (items: ReadonlyArray<Routed<WebhookEvent.PaymentStatus>>) =>
  Effect.gen(function* () {
    const repo = yield* OrderRepo
    const records = yield* OrderRecordRepo
    const withRefunds = new Set<string>()
    const tenantOf = (item: Routed<WebhookEvent.PaymentStatus>): Tenant => ({ storeId: item.store.id, mode: modeOf(item.kind) })
    for (const item of items) if (item.event.refunds.length > 0) withRefunds.add(`${keyOf(tenantOf(item))} ${item.event.referenceId}`)
    const statuses: Array<Status> = items.map((item) => {
      const tenant = tenantOf(item)
      return { item, tenant, alone: withRefunds.has(`${keyOf(tenant)} ${item.event.referenceId}`) }
    })
    // per tenant: the orders of the batch's references held (those applied alone too: one lock order), the records written
    const current = new Map<string, Order.Order>()
    const recorded = new Map<Status, { readonly order: Order.OrderId; readonly record: Payment; fresh: boolean }>()
    for (const group of groupBy(statuses, (s) => keyOf(s.tenant)).values()) {
      const tenant = group[0].tenant
      const held = yield* repo.lockByPaymentReferences(tenant, [...new Set(group.map((s) => s.item.event.referenceId))])
      const byReference = new Map(held.map((o) => [o.paymentReferenceId, o]))
      for (const order of held) current.set(order.id, order)
      const entries: Array<{ readonly record: Payment; readonly key: string }> = []
      const keys = new Set<string>()
      const mine: Array<{ readonly record: Payment; fresh: boolean }> = []
      for (const status of group) {
        const applied = OrderPayments.appliedStatus(status.item.event)
        const order = byReference.get(status.item.event.referenceId)
        if (status.alone || applied === undefined || order === undefined) continue
        const entry = yield* OrderPayments.paymentRecord(order, status.item.event, applied)
        // a (transaction, status) repeated in the batch is recorded by its first copy
        const unique = `${order.id} ${entry.key}`
        const r = { order: order.id, record: entry.record, fresh: !keys.has(unique) }
        recorded.set(status, r)
        mine.push(r)
        if (!r.fresh) continue
        keys.add(unique)
        entries.push(entry)
      }
      if (entries.length === 0) continue
      const written = yield* records.insertAll(tenant, "payment", entries)
      for (const r of mine) r.fresh &&= written.has(r.record.id)
    }
    // in the order of the batch: each status's change folded on its order, its caller event
    const changed = new Map<Order.OrderId, Tenant>()
    for (const status of statuses) {
      const { store, kind, event } = status.item
      if (status.alone) {
        yield* event.refunds.length > 0 ? WhatsAppRefunds.onRefundWebhook(store, kind, event) : OrderPayments.onPaymentStatus(store, kind, event)
        continue
      }
      if (OrderPayments.appliedStatus(event) === undefined) continue
      const r = recorded.get(status)
      if (r === undefined) {
        yield* OrderPayments.logUnmatched(event)
        continue
      }
      if (!r.fresh) continue
      const { changed: next, emit } = OrderPayments.applyPayment(current.get(r.order)!, event, r.record)
      if (next !== undefined) {
        current.set(next.id, next)
        changed.set(next.id, status.tenant)
      }
      if (emit !== undefined) yield* Webhooks.emit(status.tenant, emit.type, emit.data)
    }
    for (const group of groupBy([...changed], ([, tenant]) => keyOf(tenant)).values()) {
      yield* repo.saveAll(
        group[0][1],
        group.map(([id]) => current.get(id)!)
      )
    }
  }).pipe(Webhooks.batched)
