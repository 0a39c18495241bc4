/**
 * The orders' storage contract (run on SQLite and PostgreSQL): one order per cart message of
 * a tenant, even under concurrent inserts; every read scoped by tenant; list filters; `lock`
 * serializes concurrent changes of one order, so a check made on the held order (the
 * refundable amount) still holds when the change is written; records unique per order,
 * kind and key; the batch writes (`insertFromCarts`, `saveAll`, `lockByPaymentReferences`,
 * `insertAll`) keep the same rules for many rows at once.
 */
import { Order, OrderMoney, OrderRecord, OrderRepo, type Tenant, Transactor } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { createStore, newRow, tenantOf } from "./foundation-fixtures.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"
import { orderBatchTests } from "./orders-batches.js"

const order = (tenant: Tenant.Tenant, sourceMessageId: string, overrides: Partial<Order.Order> = {}) =>
  Effect.gen(function* () {
    return {
      ...(yield* newRow(tenant, Order.OrderId.generate)),
      catalogId: null,
      operatorCatalogId: "123",
      sourceMessageId,
      customerPhone: "+15551230000",
      note: null,
      status: "pending",
      paymentStatus: "unpaid",
      currency: "USD",
      total: 1000,
      captured: 0,
      refunded: 0,
      items: [
        {
          id: yield* Order.OrderItemId.generate,
          retailerId: "SKU",
          productId: null,
          name: null,
          quantity: 2,
          unitPrice: 500,
          catalogPrice: null,
          priceMismatch: true,
          shipped: 0,
          cancelled: 0,
          returned: 0
        }
      ],
      cart: { catalog_id: "123", product_items: [] },
      acknowledgedAt: null,
      paymentReferenceId: null,
      requestedAmount: null,
      customerUpdates: [],
      ...overrides
    } satisfies Order.Order
  })

/** A captured or failed payment record of 10.00 USD on `orderId`. */
const paymentOf = (orderId: Order.OrderId, status: "captured" | "failed") =>
  Effect.map(
    OrderRecord.PaymentId.generate,
    (id): OrderRecord.Payment => ({
      id,
      orderId,
      status,
      amount: 1000,
      currency: "USD",
      transactionId: "txn",
      error: null,
      createdAt: 1,
      updatedAt: 1
    })
  )

const tests = (it: ContractIt): void => {
  describe("OrderRepo", () => {
    it.effect("one order per cart message, even when 20 inserts race; the other mode and store have their own", () =>
      Effect.gen(function* () {
        const repo = yield* OrderRepo.OrderRepo
        const { store } = yield* createStore()
        const { store: other } = yield* createStore()
        const live = tenantOf(store.id, "live")
        const results = yield* Effect.forEach(
          Array.from({ length: 20 }, () => 0),
          () => Effect.flatMap(order(live, "wamid.same"), (o) => repo.insertFromCart(live, o)),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r.created)).toHaveLength(1)
        expect(new Set(results.map((r) => r.order.id)).size).toBe(1)
        const test = tenantOf(store.id, "test")
        expect((yield* repo.insertFromCart(test, yield* order(test, "wamid.same"))).created).toBe(true)
        const elsewhere = tenantOf(other.id)
        expect((yield* repo.insertFromCart(elsewhere, yield* order(elsewhere, "wamid.same"))).created).toBe(true)
        const stored = results[0].order
        expect(Option.getOrThrow(yield* repo.find(live, stored.id))).toEqual(stored)
        expect(yield* repo.find(test, stored.id)).toEqual(Option.none())
        expect(yield* repo.find(elsewhere, stored.id)).toEqual(Option.none())
        expect(Option.map(yield* repo.findBySourceMessage(live, "wamid.same"), (o) => o.id)).toEqual(Option.some(stored.id))
      })
    )

    it.effect("list: newest first, by status, payment status and created range, paged", () =>
      Effect.gen(function* () {
        const repo = yield* OrderRepo.OrderRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id, "test")
        const a = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m1", { createdAt: 1000 }))).order
        const b = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m2", { createdAt: 2000, status: "in_progress", paymentStatus: "paid" })))
          .order
        const c = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m3", { createdAt: 3000 }))).order
        const ids = (filter: OrderRepo.OrderFilter) => Effect.map(repo.list(tenant, filter, { limit: 10 }), (s) => s.items.map((o) => o.id))
        expect(yield* ids({})).toEqual([c.id, b.id, a.id])
        expect(yield* ids({ status: "pending" })).toEqual([c.id, a.id])
        expect(yield* ids({ paymentStatus: "paid" })).toEqual([b.id])
        expect(yield* ids({ createdFrom: 2000 })).toEqual([c.id, b.id])
        expect(yield* ids({ createdTo: 2000 })).toEqual([a.id])
        const page = yield* repo.list(tenant, {}, { limit: 2 })
        expect(page.hasMore).toBe(true)
        expect((yield* repo.list(tenant, {}, { limit: 2, after: page.items[1].id })).items.map((o) => o.id)).toEqual([a.id])
      })
    )

    it.effect("lock serializes changes: 30 concurrent refunds of 100 against 1,000 captured, checked on the held order, apply exactly 10", () =>
      Effect.gen(function* () {
        const repo = yield* OrderRepo.OrderRepo
        const tx = yield* Transactor.Transactor
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id, "test")
        const stored = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m-lock", { captured: 1000, paymentStatus: "paid" }))).order
        const refund = tx.withTransaction(
          Effect.gen(function* () {
            const held = Option.getOrThrow(yield* repo.lock(tenant, stored.id))
            const applied = OrderMoney.applyRefund(held, 100)
            if (applied._tag === "Left") return yield* Effect.fail(applied.error)
            yield* Effect.yieldNow()
            yield* repo.save(tenant, { ...held, refunded: applied.money.refunded })
          })
        )
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 30 }, () => refund),
          (r) => Effect.either(r),
          { concurrency: "unbounded" }
        )
        expect(outcomes.filter((o) => o._tag === "Right")).toHaveLength(10)
        expect(Option.getOrThrow(yield* repo.find(tenant, stored.id)).refunded).toBe(1000)
        expect(yield* repo.lock(tenantOf(store.id, "live"), stored.id)).toEqual(Option.none())
      })
    )
  })

  describe("OrderRepo batch writes", () => {
    it.effect(
      "insertFromCarts writes each cart message once (one stored already, one repeated in the list) and answers those written; other tenants have their own",
      () =>
        Effect.gen(function* () {
          const repo = yield* OrderRepo.OrderRepo
          const { store } = yield* createStore()
          const { store: other } = yield* createStore()
          const tenant = tenantOf(store.id, "test")
          const stored = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m-stored"))).order
          const a = yield* order(tenant, "m-a", { note: "first", customerUpdates: [] })
          const b = yield* order(tenant, "m-b", { acknowledgedAt: 5, paymentReferenceId: "ref-b", requestedAmount: 1000 })
          const again = yield* order(tenant, "m-stored")
          const twin = yield* order(tenant, "m-a", { note: "second" })
          const written = yield* repo.insertFromCarts(tenant, [a, again, b, twin])
          expect([...written].sort()).toEqual([a.id, b.id].sort())
          expect(Option.getOrThrow(yield* repo.find(tenant, a.id))).toEqual(a)
          expect(Option.getOrThrow(yield* repo.find(tenant, b.id))).toEqual(b)
          expect(Option.map(yield* repo.findBySourceMessage(tenant, "m-stored"), (o) => o.id)).toEqual(Option.some(stored.id))
          expect(yield* repo.find(tenant, twin.id)).toEqual(Option.none())
          expect(yield* repo.insertFromCarts(tenant, [])).toEqual(new Set())
          // the same messages are new to the other mode and another store
          for (const elsewhere of [tenantOf(store.id, "live"), tenantOf(other.id, "test")]) {
            const mine = yield* order(elsewhere, "m-a")
            expect([...(yield* repo.insertFromCarts(elsewhere, [mine]))]).toEqual([mine.id])
            expect(yield* repo.find(elsewhere, a.id)).toEqual(Option.none())
          }
        })
    )

    it.effect("lockByPaymentReferences, saveAll and catalogsByOperatorIds see only the tenant's rows; saveAll writes what save writes", () =>
      Effect.gen(function* () {
        const repo = yield* OrderRepo.OrderRepo
        const tx = yield* Transactor.Transactor
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id, "test")
        const live = tenantOf(store.id, "live")
        const made = []
        for (const [i, t] of [tenant, tenant, tenant, live].entries()) {
          const o = (yield* repo.insertFromCart(t, yield* order(t, `m-${i}`))).order
          const referenced = { ...o, paymentReferenceId: `ref-${i % 3}`, requestedAmount: 1000 }
          yield* repo.save(t, referenced)
          made.push(referenced)
        }
        const [o0, o1, , o3] = made
        const held = yield* tx.withTransaction(repo.lockByPaymentReferences(tenant, ["ref-1", "ref-0", "ref-none"]))
        expect(held).toEqual([o0, o1])
        expect((yield* repo.lockByPaymentReferences(live, ["ref-0", "ref-1"])).map((o) => o.id)).toEqual([o3.id])
        expect(yield* repo.lockByPaymentReferences(tenant, [])).toEqual([])
        const changed = [
          { ...o0, status: "in_progress" as const, paymentStatus: "paid" as const, captured: 1000, acknowledgedAt: 7, updatedAt: 9 },
          { ...o1, paymentStatus: "failed" as const, requestedAmount: null, paymentReferenceId: null, customerUpdates: [], updatedAt: 8 },
          // another tenant's order is left as it is
          { ...o3, paymentStatus: "paid" as const, captured: 1000 }
        ]
        yield* repo.saveAll(tenant, changed)
        expect(Option.getOrThrow(yield* repo.find(tenant, o0.id))).toEqual(changed[0])
        expect(Option.getOrThrow(yield* repo.find(tenant, o1.id))).toEqual(changed[1])
        expect(Option.getOrThrow(yield* repo.find(live, o3.id))).toEqual(o3)
        yield* repo.saveAll(tenant, [])
        expect(yield* repo.catalogsByOperatorIds(tenant, [])).toEqual(new Map())
        expect(yield* repo.catalogsByOperatorIds(tenant, ["no-such-catalog"])).toEqual(new Map())
      })
    )

    it.effect(
      "insertAll writes each record once per order, kind and key (one stored already, one repeated in the list) and answers those written",
      () =>
        Effect.gen(function* () {
          const repo = yield* OrderRepo.OrderRepo
          const records = yield* OrderRepo.OrderRecordRepo
          const { store } = yield* createStore()
          const tenant = tenantOf(store.id, "test")
          const o = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m-all"))).order
          const p = paymentOf
          const stored = yield* p(o.id, "captured")
          yield* records.insert(tenant, "payment", stored, "txn:captured")
          const entries = [
            { record: yield* p(o.id, "captured"), key: "txn:captured" },
            { record: yield* p(o.id, "failed"), key: "txn:failed" },
            { record: yield* p(o.id, "failed"), key: "txn:failed" },
            { record: yield* p(o.id, "failed"), key: null }
          ]
          const written = yield* records.insertAll(tenant, "payment", entries)
          expect([...written].sort()).toEqual([entries[1].record.id, entries[3].record.id].sort())
          expect((yield* records.all(tenant, "payment", o.id)).map((r) => r.id)).toEqual([stored.id, entries[1].record.id, entries[3].record.id])
          expect(Option.getOrThrow(yield* records.findByKey(tenant, "payment", o.id, "txn:failed"))).toEqual(entries[1].record)
          expect(yield* records.insertAll(tenant, "payment", [])).toEqual(new Set())
        })
    )
  })

  describe("OrderRecordRepo", () => {
    it.effect("a record's key is unique per order and kind; reads and lists are scoped by tenant, order and status", () =>
      Effect.gen(function* () {
        const repo = yield* OrderRepo.OrderRepo
        const records = yield* OrderRepo.OrderRecordRepo
        const { store } = yield* createStore()
        const tenant = tenantOf(store.id, "test")
        const o = (yield* repo.insertFromCart(tenant, yield* order(tenant, "m-rec"))).order
        const payment = (status: "captured" | "failed") => paymentOf(o.id, status)
        const first = yield* payment("captured")
        expect(yield* records.insert(tenant, "payment", first, "txn:captured")).toBe(true)
        expect(yield* records.insert(tenant, "payment", yield* payment("captured"), "txn:captured")).toBe(false)
        expect(yield* records.insert(tenant, "payment", yield* payment("failed"), "txn:failed")).toBe(true)
        expect(yield* records.insert(tenant, "payment", yield* payment("failed"), null)).toBe(true)
        expect(yield* records.insert(tenant, "payment", yield* payment("failed"), null)).toBe(true)
        expect((yield* records.all(tenant, "payment", o.id)).map((p) => p.id)[0]).toBe(first.id)
        expect((yield* records.list(tenant, "payment", { status: "failed" }, { limit: 10 })).items).toHaveLength(3)
        expect((yield* records.list(tenant, "payment", { orderId: o.id, status: "captured" }, { limit: 10 })).items).toEqual([first])
        expect(Option.getOrThrow(yield* records.findByKey(tenant, "payment", o.id, "txn:captured"))).toEqual(first)
        expect(yield* records.find(tenantOf(store.id, "live"), "payment", first.id)).toEqual(Option.none())
        expect(yield* records.find(tenant, "refund", first.id)).toEqual(Option.none())
        expect(yield* records.update(tenant, "payment", { ...first, status: "failed", updatedAt: 2 })).toBe(true)
        expect(Option.getOrThrow(yield* records.find(tenant, "payment", first.id)).status).toBe("failed")
        expect(yield* records.update(tenantOf(store.id, "live"), "payment", first)).toBe(false)
      })
    )
  })
}

export const ordersContract: ModuleContract = {
  name: "commerce orders",
  tests: (it) => {
    tests(it)
    orderBatchTests(it)
  }
}
