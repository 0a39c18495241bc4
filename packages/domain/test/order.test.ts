/**
 * The order rules, without storage: the order and return state machines for every status and
 * operation (table-driven and property-based), and the money rules: no sequence of
 * payments, refunds, cancellations and item reductions leaves the refundable amount
 * negative or above what was captured, and a refund above it is always refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Order, OrderEvents, OrderMoney, OrderPayments, Return } from "@switchboard/domain"
import { Either } from "effect"
import fc from "fast-check"

const statuses = Order.Status.literals

describe("Order.transition", () => {
  const table: Record<Exclude<Order.Operation, "settle">, Partial<Record<Order.Status, Order.Status>>> = {
    acknowledge: { pending: "in_progress" },
    cancel: { pending: "pending", in_progress: "in_progress" },
    "modify items": { pending: "pending", in_progress: "in_progress" },
    ship: { in_progress: "in_progress" },
    return: { in_progress: "in_progress", completed: "completed" },
    refund: { pending: "pending", in_progress: "in_progress", completed: "completed", cancelled: "cancelled" }
  }
  for (const [operation, allowed] of Object.entries(table) as Array<[Order.Operation, Partial<Record<Order.Status, Order.Status>>]>) {
    it(`${operation}: allowed exactly from ${Object.keys(allowed).join(", ")}; refused elsewhere with InvalidState naming the status`, () => {
      for (const status of statuses) {
        const result = Order.transition(status, operation)
        if (allowed[status] !== undefined) expect(result).toEqual(Either.right(allowed[status]))
        else {
          const error = Either.getLeft(result)
          expect(error._tag).toBe("Some")
          const e = (error as { value: Errors.InvalidState }).value
          expect(e).toBeInstanceOf(Errors.InvalidState)
          expect(e).toMatchObject({ resource: "order", status })
          expect(e.message).toContain(`'${status}'`)
        }
      }
    })
  }

  it("settle: an open order with nothing unshipped completes when something shipped, is cancelled when nothing did; final statuses refuse", () => {
    const table: Array<[Order.Status, boolean, boolean, Order.Status | "refused"]> = [
      ["pending", false, false, "pending"],
      ["pending", true, false, "cancelled"],
      ["in_progress", false, true, "in_progress"],
      ["in_progress", true, true, "completed"],
      ["in_progress", true, false, "cancelled"],
      ["completed", true, true, "refused"],
      ["cancelled", true, false, "refused"]
    ]
    for (const [status, settled, anyShipped, expected] of table) {
      const result = Order.transition(status, "settle", { settled, anyShipped })
      expect(Either.isLeft(result) ? "refused" : result.right, `${status} ${settled} ${anyShipped}`).toBe(expected)
    }
  })

  it("property: completed and cancelled are final for every operation but refund (and return of a completed order)", () => {
    const operations: Array<Order.Operation> = ["acknowledge", "cancel", "modify items", "ship", "return", "refund", "settle"]
    fc.assert(
      fc.property(
        fc.constantFrom<Order.Status>("completed", "cancelled"),
        fc.constantFrom(...operations),
        fc.boolean(),
        fc.boolean(),
        (status, op, settled, anyShipped) => {
          const result = Order.transition(status, op, { settled, anyShipped })
          if (Either.isRight(result)) {
            expect(result.right).toBe(status)
            expect(op === "refund" || (op === "return" && status === "completed")).toBe(true)
          }
        }
      )
    )
  })

  it("property: any sequence of operations from pending never leaves the four statuses, and never reopens a final one", () => {
    const operations: Array<Order.Operation> = ["acknowledge", "cancel", "modify items", "ship", "return", "refund", "settle"]
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...operations), fc.boolean(), fc.boolean()), { maxLength: 30 }), (steps) => {
        let status: Order.Status = "pending"
        let final = false
        for (const [op, settled, anyShipped] of steps) {
          const next = Order.transition(status, op, { settled, anyShipped })
          if (Either.isLeft(next)) {
            expect(next.left.status).toBe(status)
            continue
          }
          if (final) expect(next.right).toBe(status)
          status = next.right
          expect(statuses).toContain(status)
          final = status === "completed" || status === "cancelled"
        }
      })
    )
  })

  it("sources: the statuses an operation is allowed from", () => {
    expect(Order.sources("acknowledge")).toEqual(["pending"])
    expect(Order.sources("ship")).toEqual(["in_progress"])
  })
})

describe("Return.transition", () => {
  const table: Record<Return.Operation, Partial<Record<Return.Status, Return.Status>>> = {
    ACCEPT_RETURN: { REQUESTED: "APPROVED" },
    CLOSE_RETURN: { REQUESTED: "DISAPPROVED", APPROVED: "MERCHANT_MARKED_COMPLETED" },
    refund: { REQUESTED: "REFUNDED", APPROVED: "REFUNDED" }
  }
  for (const [operation, allowed] of Object.entries(table) as Array<[Return.Operation, Partial<Record<Return.Status, Return.Status>>]>) {
    it(`${operation}: allowed exactly from ${Object.keys(allowed).join(", ")}`, () => {
      for (const status of Return.Status.literals) {
        const result = Return.transition(status, operation)
        if (allowed[status] !== undefined) expect(result).toEqual(Either.right(allowed[status]))
        else expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InvalidState", resource: "return", status })
      }
    })
  }
})

describe("OrderMoney", () => {
  it("payment status follows captured and refunded", () => {
    expect(OrderMoney.paymentStatus({ captured: 0, refunded: 0 })).toBe("unpaid")
    expect(OrderMoney.paymentStatus({ captured: 100, refunded: 0 })).toBe("paid")
    expect(OrderMoney.paymentStatus({ captured: 100, refunded: 40 })).toBe("partially_refunded")
    expect(OrderMoney.paymentStatus({ captured: 100, refunded: 100 })).toBe("refunded")
  })

  it("a refund above the refundable amount is refused with the current figure; one at it is accepted", () => {
    const money = { captured: 1000, refunded: 300, currency: "USD" }
    const over = OrderMoney.applyRefund(money, 701)
    expect(over._tag).toBe("Left")
    if (over._tag === "Left") expect(over.error).toMatchObject({ requested: 701, refundable: 700, currency: "USD" })
    const exact = OrderMoney.applyRefund(money, 700)
    expect(exact._tag === "Right" && exact.money.refunded).toBe(1000)
  })

  it("property: no sequence of payments, refunds, cancellations and item reductions leaves the refundable amount negative or above what was captured", () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("pay" as const), amount: fc.integer({ min: 0, max: 10_000 }) }),
      fc.record({ kind: fc.constant("refund" as const), amount: fc.integer({ min: 1, max: 20_000 }) }),
      fc.record({ kind: fc.constant("cancel" as const), amount: fc.integer({ min: 0, max: 20_000 }) })
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let money = { captured: 0, refunded: 0, currency: "USD" }
        for (const s of steps) {
          if (s.kind === "pay") money = { ...money, captured: money.captured + s.amount }
          else if (s.kind === "refund") {
            const before = OrderMoney.refundable(money)
            const r = OrderMoney.applyRefund(money, s.amount)
            if (r._tag === "Right") money = r.money
            else expect(s.amount).toBeGreaterThan(before)
          } else {
            // a cancellation or an item reduction refunds the paid part of its value
            const refund = OrderMoney.automaticRefund(money, s.amount)
            expect(refund).toBeLessThanOrEqual(s.amount)
            const r = OrderMoney.applyRefund(money, refund)
            expect(r._tag).toBe("Right")
            if (r._tag === "Right") money = r.money
          }
          const left = OrderMoney.refundable(money)
          expect(left).toBeGreaterThanOrEqual(0)
          expect(left).toBeLessThanOrEqual(money.captured)
          expect(money.refunded).toBeLessThanOrEqual(money.captured)
          expect(left).toBe(money.captured - money.refunded)
        }
      })
    )
  })
})

describe("OrderEvents.cartLines", () => {
  it("prices in minor units, exact; one currency; bad lines refused with the reason", () => {
    const ok = OrderEvents.cartLines({ product_items: [{ product_retailer_id: "A", quantity: 2, item_price: 19.99, currency: "USD" }] })
    expect(ok).toEqual({ lines: [{ retailerId: "A", quantity: 2, unitPrice: 1999, currency: "USD" }] })
    expect(OrderEvents.cartLines({ product_items: [{ product_retailer_id: "A", quantity: 1, item_price: 500, currency: "JPY" }] })).toMatchObject({
      lines: [{ unitPrice: 500 }]
    })
    expect(OrderEvents.cartLines({ product_items: [] })).toHaveProperty("refused")
    expect(OrderEvents.cartLines({ product_items: [{ product_retailer_id: "A", quantity: 0, item_price: 1, currency: "USD" }] })).toHaveProperty(
      "refused"
    )
    expect(OrderEvents.cartLines({ product_items: [{ product_retailer_id: "A", quantity: 1, item_price: 1.001, currency: "USD" }] })).toHaveProperty(
      "refused"
    )
    expect(
      OrderEvents.cartLines({
        product_items: [
          { product_retailer_id: "A", quantity: 1, item_price: 1, currency: "USD" },
          { product_retailer_id: "B", quantity: 1, item_price: 1, currency: "EUR" }
        ]
      })
    ).toEqual({ refused: "the cart mixes currencies; an order has one" })
    expect(OrderPayments.minorUnits(21000, 100, "USD")).toBe(21000)
    expect(OrderPayments.minorUnits(100000, 100, "JPY")).toBe(1000)
  })
})
