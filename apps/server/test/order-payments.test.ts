/**
 * Commerce as WhatsApp runs it (issue 28), on SQLite and PostgreSQL over real HTTP against
 * the operator emulator: a cart is not paid by itself; a payment request sends an
 * `order_details` message (the emulator saw its total and our reference), the sandbox
 * customer pays by reference; acknowledging, shipping in two parts and completing send
 * `order_status` messages, each recorded on the order; a number ending in 0003 fails the
 * payment, one ending in 0007 pays a wrong amount (recorded as `mismatch`, the order unpaid);
 * `POST /chat/sandbox/payments` sends any status; the contract's refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startServer, type CreatedStore, type Harness } from "./harness.js"

const product = (rid: string, price: number) => ({
  retailer_id: rid,
  name: `Kurta ${rid}`,
  price,
  currency: "INR",
  image_url: `https://img.example.com/${rid}.jpg`
})
const payments = {
  payment_type: "upi",
  payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "main-config" } }],
  goods_type: "physical-goods"
}
const tracking = { carrier: "Delhivery", tracking_number: "DL123" }

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`orders paid as WhatsApp runs it (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let catalog = ""
    let emulator = ""
    let seq = 100

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port) }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Kurtas" })).json.id
      for (const [rid, price] of [
        ["KURTA", 129900],
        ["SCARF", 49900]
      ] as const) {
        const p = await h.request("POST", `/chat/catalogs/${catalog}/products`, a.test_key, product(rid, price))
        expect(p.status, p.text).toBe(201)
      }
      const set = await h.request("PATCH", "/chat/commerce/settings", a.test_key, { payments })
      expect(set.status, set.text).toBe(200)
      expect(set.json.payments).toEqual(payments)
    }, 180_000)
    afterAll(() => h?.stop())

    const req = (method: string, path: string, body?: unknown, key = a.test_key) => h.request(method, path, key, body)
    const order = async (id: string) => (await req("GET", `/chat/orders/${id}`)).json
    /** A sandbox cart (2 kurtas, 1 scarf: ₹3,097.00) from a number ending in `suffix`; the order as read. */
    const cart = async (suffix = "1234") => {
      const phone = `+9198${String(seq++).padStart(4, "0")}${suffix}`
      const placed = await req("POST", "/chat/sandbox/orders", {
        phone,
        catalog_id: catalog,
        items: [
          { retailer_id: "KURTA", quantity: 2 },
          { retailer_id: "SCARF", quantity: 1 }
        ]
      })
      expect(placed.status, placed.text).toBe(202)
      return { ...(await order(placed.json.order_id)), phone }
    }
    /** What the emulator accepted for `phone`, of one interactive type. */
    const sent = async (phone: string, type: string) => {
      const listed = (await (await fetch(`${emulator}/_emulator/messages?to=${phone.replace(/\D/g, "")}`)).json()) as { data: Array<any> }
      return listed.data.filter((m) => m.type === "interactive" && m.interactive?.type === type).map((m) => m.interactive)
    }
    const until = (id: string, test: (o: any) => boolean, what: string) =>
      eventually(
        async () => {
          const o = await order(id)
          return test(o) ? o : undefined
        },
        what,
        15_000
      )

    it("a cart → unpaid order → payment request → paid → processing → partly shipped → shipped → completed, each update seen at the emulator", async () => {
      const o = await cart()
      expect(o).toMatchObject({
        status: "pending",
        payment_status: "unpaid",
        total: 309700,
        currency: "INR",
        payment_reference_id: null,
        customer_updates: []
      })
      // a cart is not paid by itself, as on the real platform
      await new Promise((r) => setTimeout(r, 1200))
      expect((await req("GET", `/chat/orders/${o.id}/payments`)).json.data).toEqual([])
      expect((await order(o.id)).payment_status).toBe("unpaid")

      const requested = await req("POST", `/chat/orders/${o.id}/payment-request`)
      expect(requested.status, requested.text).toBe(202)
      expect(requested.json).toEqual({ order_id: o.id, reference_id: expect.any(String), message_id: expect.stringMatching(/^msg_/) })
      const reference = requested.json.reference_id
      const [details] = await sent(o.phone, "order_details")
      expect(details.action.name).toBe("review_and_pay")
      expect(details.action.parameters).toMatchObject({
        reference_id: reference,
        payment_type: "upi",
        payment_settings: payments.payment_settings,
        currency: "INR",
        total_amount: { value: 309700, offset: 100 },
        order: { status: "pending", subtotal: { value: 309700, offset: 100 } }
      })
      expect(details.action.parameters.order.items).toEqual([
        { retailer_id: "KURTA", name: "Kurta KURTA", amount: { value: 129900, offset: 100 }, quantity: 2 },
        { retailer_id: "SCARF", name: "Kurta SCARF", amount: { value: 49900, offset: 100 }, quantity: 1 }
      ])

      const paid = await until(o.id, (x) => x.payment_status === "paid", "the order paid")
      expect(paid).toMatchObject({ amount_captured: 309700, payment_reference_id: reference })
      expect((await req("GET", `/chat/orders/${o.id}/payments`)).json.data).toEqual([
        expect.objectContaining({ status: "captured", amount: 309700, currency: "INR", transaction_id: expect.any(String) })
      ])
      // paid: no second request
      const again = await req("POST", `/chat/orders/${o.id}/payment-request`)
      expect(again.json.error).toMatchObject({ code: "invalid_state", message: "Cannot request payment for an order in status 'paid'" })

      const acked = await req("POST", `/chat/orders/${o.id}/acknowledge`, {})
      expect(acked.status, acked.text).toBe(200)
      expect(acked.json.customer_updates).toEqual([
        { status: "processing", outcome: "sent", message_id: expect.stringMatching(/^msg_/), at: expect.any(String) }
      ])
      const item = (rid: string) => paid.items.find((i: any) => i.retailer_id === rid).id
      const first = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ item_id: item("KURTA"), quantity: 2 }], tracking })
      expect(first.status, first.text).toBe(201)
      const rest = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ item_id: item("SCARF"), quantity: 1 }], tracking })
      expect(rest.status, rest.text).toBe(201)
      const done = await order(o.id)
      expect(done.status).toBe("completed")
      expect(done.customer_updates.map((u: any) => [u.status, u.outcome])).toEqual([
        ["processing", "sent"],
        ["partially-shipped", "sent"],
        ["shipped", "sent"],
        ["completed", "sent"]
      ])
      const statuses = await sent(o.phone, "order_status")
      expect(statuses.map((s) => [s.action.name, s.action.parameters.reference_id, s.action.parameters.order.status])).toEqual([
        ["review_order", reference, "processing"],
        ["review_order", reference, "partially-shipped"],
        ["review_order", reference, "shipped"],
        ["review_order", reference, "completed"]
      ])
    })

    it("a cancelled order tells the customer `canceled` with the reason as its description", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await until(o.id, (x) => x.payment_status === "paid", "the order paid")
      const cancelled = await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "OUT_OF_STOCK", reason_description: "Sold out today" })
      expect(cancelled.status, cancelled.text).toBe(201)
      expect((await order(o.id)).customer_updates).toEqual([expect.objectContaining({ status: "canceled", outcome: "sent" })])
      const [status] = await sent(o.phone, "order_status")
      expect(status.action.parameters.order).toEqual({ status: "canceled", description: "Sold out today" })
      // the cancellation's refund of an order paid through WhatsApp goes through the operator too
      expect(cancelled.json).toMatchObject({ refund_amount: 309700, refund_id: expect.stringMatching(/^rfd_/) })
      const refund = () => req("GET", `/chat/orders/${o.id}/refunds/${cancelled.json.refund_id}`).then((r) => r.json)
      expect(await refund()).toMatchObject({ channel: "whatsapp", amount: 309700 })
      await eventually(async () => (await refund()).status === "completed", "the cancellation's refund completed by the operator's webhook", 15_000)
      expect(await order(o.id)).toMatchObject({ payment_status: "refunded", amount_refunded: 309700 })
    })

    it("an order without a payment request: a text inside the window; outside it skipped, until the store names a template, which then goes", async () => {
      const inside = await cart()
      const acked = await req("POST", `/chat/orders/${inside.id}/acknowledge`, {})
      expect(acked.json.customer_updates).toEqual([expect.objectContaining({ status: "processing", outcome: "sent" })])
      const to = inside.phone.replace(/\D/g, "")
      const messages = async () => ((await (await fetch(`${emulator}/_emulator/messages?to=${to}`)).json()) as { data: Array<any> }).data
      expect((await messages()).filter((m) => m.type === "text").map((m) => m.text)).toEqual([`Your order ${inside.id} is being prepared.`])

      // the customer's window closes: without a template the update is skipped, the order's change stands
      await h.write(`UPDATE customers SET last_inbound_at = 1000 WHERE phone LIKE '%${to}'`)
      const cancelled = await req("POST", `/chat/orders/${inside.id}/cancellations`, { reason_code: "OUT_OF_STOCK", reason_description: "Sold out" })
      expect(cancelled.status, cancelled.text).toBe(201)
      const skipped = await order(inside.id)
      expect(skipped.status).toBe("cancelled")
      expect(skipped.customer_updates.at(-1)).toMatchObject({ status: "canceled", outcome: "skipped_outside_window", message_id: null })

      // the store names its order-updates template: refused when unknown or not fillable, then taken
      const unknown = await req("PATCH", "/chat/commerce/settings", { order_updates_template: { name: "no_such", language: "en_US" } })
      expect(unknown.status).toBe(400)
      expect(unknown.json.error).toMatchObject({ code: "validation_failed", details: [expect.objectContaining({ path: "order_updates_template" })] })
      for (const [name, text, example] of [
        ["order_update", "About your order {{1}}: it {{2}}. Note: {{3}}, thank you.", ["ord_1", "has shipped", "-"]],
        ["order_update_wide", "Hello {{1}}, your order {{2}} of {{3}} for {{4}} is on its way to you.", ["Ann", "ord_1", "May 4", "Delhi"]]
      ] as const) {
        const created = await req("POST", "/chat/templates", {
          templateData: { name, category: "UTILITY", language: "en_US", components: [{ type: "BODY", text, example: { body_text: [example] } }] }
        })
        expect(created.status, created.text).toBe(201)
      }
      const wide = await req("PATCH", "/chat/commerce/settings", { order_updates_template: { name: "order_update_wide", language: "en_US" } })
      expect(wide.status).toBe(400)
      expect(wide.json.error.message).toMatch(/4 placeholders/)
      const named = await req("PATCH", "/chat/commerce/settings", { order_updates_template: { name: "order_update", language: "en_US" } })
      expect(named.status, named.text).toBe(200)
      expect(named.json.order_updates_template).toEqual({ name: "order_update", language: "en_US" })
      expect((await req("GET", "/chat/commerce/settings")).json.order_updates_template).toEqual({ name: "order_update", language: "en_US" })
      await eventually(
        async () => (await req("GET", "/chat/templates?status=APPROVED")).json.data.some((t: any) => t.name === "order_update"),
        "the order-updates template approved",
        15_000
      )
      try {
        const outside = await cart()
        await h.write(`UPDATE customers SET last_inbound_at = 1000 WHERE phone LIKE '%${outside.phone.replace(/\D/g, "")}'`)
        const told = await req("POST", `/chat/orders/${outside.id}/cancellations`, { reason_code: "OUT_OF_STOCK", reason_description: "Sold out" })
        expect(told.status, told.text).toBe(201)
        const update = (await order(outside.id)).customer_updates.at(-1)
        expect(update).toMatchObject({ status: "canceled", outcome: "sent", message_id: expect.stringMatching(/^msg_/) })
        const listed = (await (await fetch(`${emulator}/_emulator/messages?to=${outside.phone.replace(/\D/g, "")}`)).json()) as { data: Array<any> }
        const [template] = listed.data.filter((m) => m.type === "template")
        expect(template.template).toMatchObject({ name: "order_update", language: "en_US", parameters: [outside.id, "was cancelled", "Sold out"] })
      } finally {
        expect((await req("PATCH", "/chat/commerce/settings", { order_updates_template: null })).json.order_updates_template).toBeNull()
      }
    })

    it("a number ending in 0003 fails the payment: the order's payment_status is failed, a failed payment listed", async () => {
      const o = await cart("0003")
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      const failed = await until(o.id, (x) => x.payment_status === "failed", "the failed payment")
      expect(failed.amount_captured).toBe(0)
      expect((await req("GET", `/chat/orders/${o.id}/payments`)).json.data).toEqual([expect.objectContaining({ status: "failed", amount: 309700 })])
      // a failed payment may be asked again, under the same reference
      const again = await req("POST", `/chat/orders/${o.id}/payment-request`)
      expect(again.status, again.text).toBe(202)
      expect(again.json.reference_id).toBe(failed.payment_reference_id)
    })

    it("a number ending in 0007 pays a wrong amount: recorded as a mismatch, the order stays unpaid", async () => {
      const o = await cart("0007")
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      const payments = await eventually(
        async () => {
          const listed = (await req("GET", `/chat/orders/${o.id}/payments`)).json.data
          return listed.length > 0 ? listed : undefined
        },
        "the mismatched payment",
        15_000
      )
      expect(payments).toEqual([expect.objectContaining({ status: "mismatch", amount: 309800, currency: "INR" })])
      expect(await order(o.id)).toMatchObject({ payment_status: "unpaid", amount_captured: 0 })
    })

    it("POST /chat/sandbox/payments sends any status for the order's reference: pending, then a capture pays", async () => {
      const o = await cart("0003")
      expect((await req("POST", "/chat/sandbox/payments", { order_id: o.id, status: "captured" })).json.error.code).toBe("invalid_state")
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await until(o.id, (x) => x.payment_status === "failed", "the failed payment")
      const pending = await req("POST", "/chat/sandbox/payments", { order_id: o.id, status: "pending" })
      expect(pending.status, pending.text).toBe(202)
      await until(o.id, (x) => x.payment_status === "pending", "the pending payment")
      const captured = await req("POST", "/chat/sandbox/payments", { order_id: o.id, status: "captured" })
      expect(captured.status, captured.text).toBe(202)
      const paid = await until(o.id, (x) => x.payment_status === "paid", "the captured payment")
      expect(paid.amount_captured).toBe(309700)
      expect((await req("POST", "/chat/sandbox/payments", { order_id: o.id, status: "done" })).json.error.code).toBe("validation_failed")
    })

    it("a refund of an order paid through WhatsApp goes through the operator: pending, then completed (or failed for an amount ending in 13)", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await until(o.id, (x) => x.payment_status === "paid", "the order paid")
      const refunded = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BUYERS_REMORSE", amount: 50000, idempotency_key: "r1" })
      expect(refunded.status, refunded.text).toBe(201)
      expect(refunded.json).toMatchObject({ status: "pending", channel: "whatsapp", amount: 50000 })
      // a pending refund counts against the refundable amount at once
      expect((await req("GET", `/chat/orders/${o.id}/refundable-amount`)).json).toEqual({ amount: 309700 - 50000, currency: "INR" })
      // the same key answers the same refund, and the operator refunds once
      const replay = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BUYERS_REMORSE", amount: 50000, idempotency_key: "r1" })
      expect(replay.json.id).toBe(refunded.json.id)
      const refund = (id: string) => req("GET", `/chat/orders/${o.id}/refunds/${id}`).then((r) => r.json)
      await eventually(async () => (await refund(refunded.json.id)).status === "completed", "the operator's refund webhook", 15_000)
      expect(await order(o.id)).toMatchObject({ payment_status: "partially_refunded", amount_refunded: 50000 })

      const failing = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 1013 })
      expect(failing.status, failing.text).toBe(201)
      expect(failing.json).toMatchObject({ status: "pending", channel: "whatsapp" })
      expect((await req("GET", `/chat/orders/${o.id}/refundable-amount`)).json.amount).toBe(309700 - 50000 - 1013)
      await eventually(async () => (await refund(failing.json.id)).status === "failed", "the failed refund's webhook", 15_000)
      // a failed refund gives its amount back
      expect((await req("GET", `/chat/orders/${o.id}/refundable-amount`)).json.amount).toBe(309700 - 50000)
      expect((await order(o.id)).amount_refunded).toBe(50000)
    })

    it("an order paid elsewhere (no payment request of ours) keeps a local refund: channel external, completed at once", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await until(o.id, (x) => x.payment_status === "paid", "the order paid")
      // an order paid before payment requests existed: captured, without our reference
      await h.write(`UPDATE orders SET payment_reference_id = NULL WHERE id = '${o.id}'`)
      const local = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BUYERS_REMORSE", amount: 1000 })
      expect(local.status, local.text).toBe(201)
      expect(local.json).toMatchObject({ status: "completed", channel: "external", amount: 1000 })
      expect((await order(o.id)).amount_refunded).toBe(1000)
    })

    it("request_on_cart: a cart that becomes an order sends the payment request by itself", async () => {
      const on = await req("PATCH", "/chat/commerce/settings", { payments: { ...payments, request_on_cart: true } })
      expect(on.status, on.text).toBe(200)
      expect(on.json.payments.request_on_cart).toBe(true)
      try {
        const o = await cart()
        const paid = await until(o.id, (x) => x.payment_status === "paid", "the cart's payment request paid")
        const [details] = await sent(o.phone, "order_details")
        expect(details.action.parameters.reference_id).toBe(paid.payment_reference_id)
        expect(await sent(o.phone, "order_details")).toHaveLength(1)
      } finally {
        expect((await req("PATCH", "/chat/commerce/settings", { payments })).status).toBe(200)
      }
    })

    it("refuses as the contract says: no payment settings 409, another store's order 404, bad settings 400", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`, undefined, b.test_key)).status).toBe(404)
      expect((await req("POST", "/chat/sandbox/payments", { order_id: o.id, status: "captured" }, b.test_key)).status).toBe(404)
      const cleared = await req("PATCH", "/chat/commerce/settings", { payments: null })
      expect(cleared.status, cleared.text).toBe(200)
      expect(cleared.json.payments).toBeNull()
      const unconfigured = await req("POST", `/chat/orders/${o.id}/payment-request`)
      expect(unconfigured.status).toBe(409)
      expect(unconfigured.json.error.code).toBe("payments_not_configured")
      expect((await req("PATCH", "/chat/commerce/settings", { payments })).status).toBe(200)
      // a nullable field that failed inside is named by its inner path only (not also "must not be given")
      const extra = await req("PATCH", "/chat/commerce/settings", { order_updates_template: { name: "t", language: "en_US", extra: 1 } })
      expect(extra.status).toBe(400)
      expect(extra.json.error.details).toEqual([{ path: "order_updates_template.extra", message: "is not a known field" }])
      const bad = await req("PATCH", "/chat/commerce/settings", { payments: { payment_type: "card", payment_settings: [] } })
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe("validation_failed")
      expect((await req("GET", "/chat/commerce/settings")).json.payments).toEqual(payments)
    })
  })
