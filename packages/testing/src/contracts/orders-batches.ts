/**
 * The orders module's operator events applied a batch at a time (`OrderBatches`, the inbox's
 * way) have the effect of applying each in turn (the module's `operatorEvents`): two copies
 * of the same world (two stores, a catalog with products, payment settings that ask for a
 * payment request on each cart, orders awaiting payment, one with a refund awaiting its
 * outcome) are fed the same mixed batch, one event at a time and in batches; they end with the
 * same orders, records and jobs, and the same caller events emitted in the same order. A replay of the
 * whole batch changes nothing in either.
 */
import {
  Catalog,
  CatalogRepo,
  CommerceSettingsRepo,
  Id,
  JobQueue,
  type Order,
  OrderPayments,
  OrderRecord,
  OrderRepo,
  OrdersModule,
  Product,
  ProductRepo,
  type Store,
  type Tenant,
  Transactor,
  type WebhookEvent,
  WebhookRepo,
  Webhooks
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, tenantOf } from "./foundation-fixtures.js"
import { endpoint } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

type Routed<E> = { readonly store: Store.Store; readonly kind: "live" | "sandbox"; readonly event: E }
const T0 = 1_700_000_000_000
const ORDER_EVENTS = ["order.created", "order.paid", "order.payment_mismatch", "order.refunded"]

const line = (sku: string, quantity: number, price: number | string) => ({ product_retailer_id: sku, quantity, item_price: price, currency: "USD" })

const cart = (
  store: Store.Store,
  wamid: string,
  from: string,
  catalog: string,
  items: ReadonlyArray<unknown>,
  at: number
): WebhookEvent.InboundMessage => ({
  _tag: "InboundMessage",
  phoneNumberId: store.sandbox.phoneNumberId,
  from,
  profileName: "Ann",
  messageId: wamid,
  timestamp: (T0 + at) as WebhookEvent.InboundMessage["timestamp"],
  type: "order",
  text: null,
  reply: null,
  raw: { from, id: wamid, type: "order", order: { catalog_id: catalog, text: `note ${wamid}`, product_items: items } }
})

const payment = (
  store: Store.Store,
  referenceId: string,
  status: string,
  transactionId: string,
  value: number,
  at: number,
  refunds: WebhookEvent.PaymentStatus["refunds"] = []
): WebhookEvent.PaymentStatus => ({
  _tag: "PaymentStatus",
  phoneNumberId: store.sandbox.phoneNumberId,
  referenceId,
  status,
  value,
  offset: 100,
  currency: "USD",
  transactionId,
  error: status === "failed" ? "insufficient funds" : null,
  timestamp: (T0 + at) as WebhookEvent.PaymentStatus["timestamp"],
  refunds
})

/** One copy of the world: two stores, labelled ids to compare the copies by. */
const world = (label: string) =>
  Effect.gen(function* () {
    const { store: a } = yield* createStore()
    const { store: b } = yield* createStore()
    const aTest = tenantOf(a.id, "test")
    const labels = new Map<string, string>([
      [a.id, "A"],
      [b.id, "B"]
    ])
    const webhooks = yield* WebhookRepo.WebhookRepo
    for (const tenant of [aTest, tenantOf(a.id, "live"), tenantOf(b.id, "test")])
      yield* webhooks.insertEndpoint(tenant, yield* endpoint(tenant, ORDER_EVENTS))
    const operatorCatalog = `${label}-${Id.randomToken(12)}`
    const catalogId = yield* Catalog.CatalogId.generate
    labels.set(operatorCatalog, "operator-catalog")
    labels.set(catalogId, "catalog")
    yield* (yield* CatalogRepo.CatalogRepo).insert(aTest, {
      id: catalogId,
      storeId: a.id,
      mode: "test",
      name: "Shop",
      operatorCatalogId: operatorCatalog,
      origin: "created",
      connected: true,
      createdAt: T0,
      updatedAt: T0
    })
    for (const [sku, price, salePrice] of [
      ["SKU-1", 1999, null],
      ["SKU-2", 600, 550]
    ] as const) {
      const id = yield* Product.ProductId.generate
      labels.set(id, `product ${sku}`)
      yield* (yield* ProductRepo.ProductRepo).insert(aTest, {
        id,
        storeId: a.id,
        mode: "test",
        catalogId,
        retailerId: sku,
        name: `Product ${sku}`,
        description: null,
        price,
        salePrice,
        currency: "USD",
        availability: "in stock",
        condition: "new",
        imageUrl: `https://img.example.com/${sku}.jpg`,
        url: null,
        brand: null,
        category: null,
        inventory: 3,
        visibility: "published",
        reviewStatus: "approved",
        errors: [],
        createdAt: T0,
        updatedAt: T0
      })
    }
    yield* (yield* CommerceSettingsRepo.CommerceSettingsRepo).save(aTest, {
      storeId: a.id,
      mode: "test",
      isCartEnabled: true,
      isCatalogVisible: true,
      country: "IN",
      currency: "INR",
      payments: {
        payment_type: "upi",
        payment_settings: [{ type: "payment_gateway", payment_gateway: { configuration_name: "cfg" } }],
        request_on_cart: true
      },
      orderUpdatesTemplate: null,
      updatedAt: T0
    })
    // orders made before the batch: one whose cart is replayed, four awaiting payment (the fourth paid, its refund pending)
    const repo = yield* OrderRepo.OrderRepo
    const earlier: Array<Order.Order> = []
    for (const [i, wamid] of ["wamid.pre", "wamid.p1", "wamid.p2", "wamid.p3", "wamid.p4"].entries()) {
      const event = cart(a, wamid, `1555000100${i}`, operatorCatalog, [line("SKU-1", 1, 19.99)], i)
      yield* OrdersModule.module.operatorEvents.InboundMessage(a, "sandbox", event)
      const order = Option.getOrThrow(yield* repo.findBySourceMessage(aTest, wamid))
      labels.set(order.id, wamid)
      const awaiting = { ...order, paymentReferenceId: OrderPayments.referenceFor(order), requestedAmount: order.total }
      const paid = i === 4 ? { ...awaiting, captured: order.total, paymentStatus: "paid" as const } : awaiting
      if (i > 0) yield* repo.save(aTest, paid)
      earlier.push(paid)
    }
    const refundId = yield* OrderRecord.RefundId.generate
    yield* (yield* OrderRepo.OrderRecordRepo).insert(
      aTest,
      "refund",
      {
        id: refundId,
        orderId: earlier[4].id,
        amount: 500,
        currency: "USD",
        reasonCode: "BUYERS_REMORSE",
        reasonText: null,
        items: [],
        shipping: 0,
        returnId: null,
        cancellationId: null,
        idempotencyKey: null,
        status: "pending",
        channel: "whatsapp",
        operatorRefundId: "rf-1",
        createdAt: T0,
        updatedAt: T0
      },
      null
    )
    labels.set(refundId, "refund")
    yield* repo.save(aTest, { ...earlier[4], refunded: 500, paymentStatus: "partially_refunded" })
    return { a, b, operatorCatalog, earlier, labels }
  })

/** The mixed batch, as the inbox hands it: ordered by subject (a customer's messages, a reference's statuses, each in the order received). */
const batchOf = (w: Effect.Effect.Success<ReturnType<typeof world>>) => {
  const { a, b, operatorCatalog: cat, earlier } = w
  const [, p1, p2, p3, p4] = earlier.map((o) => o.paymentReferenceId!)
  const carts: Array<Routed<WebhookEvent.InboundMessage>> = [
    { store: a, kind: "sandbox", event: cart(a, "wamid.c1", "15550002001", cat, [line("SKU-1", 2, 19.99), line("SKU-2", 1, "5.5")], 10) },
    { store: a, kind: "sandbox", event: cart(a, "wamid.pre", "15550001000", cat, [line("SKU-1", 1, 19.99)], 11) },
    { store: a, kind: "sandbox", event: cart(a, "wamid.c2", "15550002002", cat, [line("SKU-2", 3, 6)], 12) },
    { store: a, kind: "sandbox", event: cart(a, "wamid.c2", "15550002002", cat, [line("SKU-2", 3, 6)], 12) },
    { store: b, kind: "sandbox", event: cart(b, "wamid.c1", "15550002001", cat, [line("SKU-1", 1, 19.99)], 13) },
    { store: b, kind: "sandbox", event: cart(b, "wamid.c3", "15550002003", "123", [line("SKU-9", 1, 1)], 14) },
    { store: a, kind: "live", event: cart(a, "wamid.c4", "15550002004", cat, [line("SKU-1", 1, 19.99)], 15) },
    { store: a, kind: "sandbox", event: cart(a, "wamid.bad", "15550002005", cat, [line("SKU-1", 0, 19.99)], 16) },
    { store: a, kind: "sandbox", event: { ...cart(a, "wamid.text", "15550002006", cat, [], 17), type: "text", text: "hi" } },
    { store: a, kind: "sandbox", event: cart(a, "wamid.c5", "15550002007", cat, [line("SKU-9", 1, 2), line("SKU-1", 1, 20)], 18) }
  ]
  const amount = earlier[1].total
  const payments: Array<Routed<WebhookEvent.PaymentStatus>> = [
    // pending, then paid, then the capture replayed; a status we do not apply
    { store: a, kind: "sandbox", event: payment(a, p1, "pending", "t1", amount, 20) },
    { store: a, kind: "sandbox", event: payment(a, p1, "captured", "t1", amount, 21) },
    { store: a, kind: "sandbox", event: payment(a, p1, "captured", "t1", amount, 22) },
    { store: a, kind: "sandbox", event: payment(a, p1, "refunded_elsewhere", "t1", amount, 23) },
    // out of order: the capture, then its pending
    { store: a, kind: "sandbox", event: payment(a, p2, "captured", "t2", amount, 25) },
    { store: a, kind: "sandbox", event: payment(a, p2, "pending", "t2", amount, 24) },
    // failed, then a capture of another amount (a mismatch), then a capture of the amount asked
    { store: a, kind: "sandbox", event: payment(a, p3, "failed", "t3", amount, 26) },
    { store: a, kind: "sandbox", event: payment(a, p3, "captured", "t3b", amount + 1, 27) },
    { store: a, kind: "sandbox", event: payment(a, p3, "captured", "t3c", amount, 28) },
    // the refund's outcome, and a status of the same payment
    { store: a, kind: "sandbox", event: payment(a, p4, "captured", "t4", amount, 29, [{ id: "rf-1", status: "completed" }]) },
    { store: a, kind: "sandbox", event: payment(a, p4, "pending", "t4", amount, 30) },
    // a reference nobody has, and one of store A's references sent to store B
    { store: a, kind: "sandbox", event: payment(a, "ord_unknown", "captured", "t5", amount, 31) },
    { store: b, kind: "sandbox", event: payment(b, p1, "captured", "t6", amount, 32) }
  ]
  return { carts, payments }
}

/** What a copy holds: every order, record and cart payment request job of its tenants, and the caller events it emitted, by label. */
const snapshot = (
  w: Effect.Effect.Success<ReturnType<typeof world>>,
  emitted: ReadonlyArray<{ readonly id: string }>,
  jobs: ReadonlyArray<unknown>
) =>
  Effect.gen(function* () {
    const repo = yield* OrderRepo.OrderRepo
    const records = yield* OrderRepo.OrderRecordRepo
    const rows: Array<unknown> = []
    for (const tenant of [tenantOf(w.a.id, "test"), tenantOf(w.a.id, "live"), tenantOf(w.b.id, "test"), tenantOf(w.b.id, "live")]) {
      const orders = [...(yield* repo.list(tenant, {}, { limit: 100 })).items].sort((x, y) => (x.sourceMessageId < y.sourceMessageId ? -1 : 1))
      for (const order of orders) {
        w.labels.set(order.id, `${w.labels.get(tenant.storeId)} ${tenant.mode} ${order.sourceMessageId}`)
        rows.push({
          order,
          payments: yield* records.all(tenant, "payment", order.id),
          refunds: yield* records.all(tenant, "refund", order.id)
        })
      }
    }
    // the events in the order emitted (their ids are monotonic; a batch writes them a tenant at a time)
    const events = [...emitted].sort((x, y) => (x.id < y.id ? -1 : 1)).map(({ id: _, ...e }) => e)
    let text = JSON.stringify({ rows, events, jobs })
    for (const [id, label] of w.labels) text = text.replaceAll(id, `<${label}>`)
    // ids made by either path (items, records, events) are new in each copy
    return JSON.parse(text.replace(/\b[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}\b/g, "<new id>")) as unknown
  })

export const orderBatchTests = (it: ContractIt): void => {
  describe("OrderBatches", () => {
    it.effect("a batch of carts and payment statuses has the effect of each event in turn: same rows, jobs and caller events in the same order", () =>
      Effect.gen(function* () {
        const tx = yield* Transactor.Transactor
        const webhooks = yield* WebhookRepo.WebhookRepo
        const queue = yield* JobQueue.JobQueue
        const { operatorEvents, operatorEventBatches } = OrdersModule.module
        const copies = []
        for (const batched of [false, true]) {
          const w = yield* world(batched ? "batched" : "one")
          const events: Array<{ readonly id: string; readonly tenant: string; readonly type: string; readonly data: unknown }> = []
          const jobs: Array<unknown> = []
          const tenantLabel = (t: Tenant.Tenant) => `${w.labels.get(t.storeId)} ${t.mode}`
          const observed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
            effect.pipe(
              Effect.provideService(WebhookRepo.WebhookRepo, {
                ...webhooks,
                insertEvents: (tenant, written) => {
                  for (const e of written) events.push({ id: e.id, tenant: tenantLabel(tenant), type: e.type, data: e.data })
                  return webhooks.insertEvents(tenant, written)
                }
              }),
              Effect.provideService(JobQueue.JobQueue, {
                ...queue,
                enqueue: (job) => {
                  jobs.push(job)
                  return queue.enqueue(job)
                },
                enqueueAll: (all) => {
                  for (const job of all) if (job.kind !== "webhook.deliver") jobs.push(job)
                  return queue.enqueueAll(all)
                }
              })
            )
          const { carts, payments } = batchOf(w)
          const apply = batched
            ? Effect.andThen(operatorEventBatches.InboundMessage(carts), operatorEventBatches.PaymentStatus(payments))
            : Effect.andThen(
                Effect.forEach(carts, ({ store, kind, event }) => operatorEvents.InboundMessage(store, kind, event), { discard: true }),
                Effect.forEach(payments, ({ store, kind, event }) => operatorEvents.PaymentStatus(store, kind, event), { discard: true })
              )
          yield* tx.withTransaction(apply.pipe(Webhooks.batched)).pipe(observed)
          const after = yield* snapshot(w, events, jobs)
          // the same batch again (a redelivery): nothing changes, nothing is emitted
          yield* tx.withTransaction(apply.pipe(Webhooks.batched)).pipe(observed)
          expect(yield* snapshot(w, events, jobs)).toEqual(after)
          copies.push(after)
        }
        const [one, batched] = copies as Array<{ rows: Array<unknown>; events: Array<{ type: string }>; jobs: Array<unknown> }>
        expect(batched).toEqual(one)
        // the batch did what it says: orders of both stores and modes, each status's outcome, the refund's, the payment requests
        expect(one.rows).toHaveLength(5 + 4 + 2)
        expect(one.events.map((e) => e.type)).toEqual([
          ...Array.from({ length: 6 }, () => "order.created"),
          "order.paid",
          "order.paid",
          "order.payment_mismatch",
          "order.paid",
          "order.refunded"
        ])
        expect(one.jobs).toHaveLength(3)
      })
    )
  })
}
