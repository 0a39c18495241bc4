/**
 * An order's money and fulfilment end to end (issue 13), on SQLite and PostgreSQL over real
 * HTTP against the operator emulator: refunds never above the refundable amount (50
 * concurrent refunds overshoot by exactly 0), cancellations of unshipped quantities refunded
 * automatically, items modify, shipments, returns and their refunds; the new-user
 * walk (cart → pending → acknowledged once → paid → part shipped, rest cancelled → a return
 * refunded → completed) with the refundable amount checked at every step; another store's
 * refund, cancellation, shipment and return ids answer 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { stockedCatalog } from "./fixtures/commerce.js"
import { eventually, freePort, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

const tracking = { carrier: "UPS", tracking_number: "1Z999" }

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`order money and fulfilment end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let catalog = ""
    let seq = 100
    let emulator = ""
    let receiver: Awaited<ReturnType<typeof startReceiver>>

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port), SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      const events = [
        "order.created",
        "order.acknowledged",
        "order.paid",
        "order.cancelled",
        "order.refunded",
        "order.shipped",
        "order.completed",
        "return.requested",
        "return.updated"
      ]
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events })
      expect(hook.status, hook.text).toBe(201)
      catalog = await stockedCatalog(h, a.test_key, "Goods", [
        ["SHIRT", 4900],
        ["SOCKS", 1250]
      ])
    }, 180_000)
    afterAll(async () => {
      receiver?.server.close()
      await h?.stop()
    })

    const req = (method: string, path: string, body?: unknown, key = a.test_key) => h.request(method, path, key, body)
    const refundable = async (id: string) => (await req("GET", `/chat/orders/${id}/refundable-amount`)).json
    const order = async (id: string) => (await req("GET", `/chat/orders/${id}`)).json
    /** The `order_status` updates the emulator accepted for the order's customer. */
    const customerStatuses = async (o: { customer_phone: string }) =>
      ((await (await fetch(`${emulator}/_emulator/messages?to=${o.customer_phone.replace(/\D/g, "")}`)).json()) as { data: Array<any> }).data
        .filter((m) => m.interactive?.type === "order_status")
        .map((m) => m.interactive.action.parameters.order.status)

    /** A sandbox order (2 shirts, 1 pair of socks: 11,050), its payment requested, waited until its payment status applied. */
    const placed = async (suffix = "1234") => {
      const res = await req("POST", "/chat/sandbox/orders", {
        phone: `+1555${String(seq++).padStart(3, "0")}${suffix}`,
        catalog_id: catalog,
        items: [
          { retailer_id: "SHIRT", quantity: 2 },
          { retailer_id: "SOCKS", quantity: 1 }
        ]
      })
      expect(res.status, res.text).toBe(202)
      const id = res.json.order_id as string
      expect((await req("POST", `/chat/orders/${id}/payment-request`)).status).toBe(202)
      return eventually(
        async () => ((await req("GET", `/chat/orders/${id}/payments`)).json.data.length > 0 ? order(id) : undefined),
        `the payment of ${id}`,
        15_000
      )
    }
    const acknowledged = async (suffix?: string) => {
      const o = await placed(suffix)
      expect((await req("POST", `/chat/orders/${o.id}/acknowledge`, { idempotency_key: `ack-${o.id}` })).status).toBe(200)
      return o
    }

    it("the new user's walk: pending, acknowledged once, paid, part shipped, rest cancelled, a return refunded, completed; the refundable amount right at each step", async () => {
      const o = await placed()
      expect(o).toMatchObject({ status: "pending", payment_status: "paid", total: 11050 })
      expect(await refundable(o.id)).toEqual({ amount: 11050, currency: "USD" })
      const ack1 = await req("POST", `/chat/orders/${o.id}/acknowledge`, { idempotency_key: "walk-ack" })
      const ack2 = await req("POST", `/chat/orders/${o.id}/acknowledge`, { idempotency_key: "walk-ack" })
      expect([ack1.status, ack2.status], `${ack1.text.slice(0, 200)} ${ack2.text.slice(0, 300)}`).toEqual([200, 200])
      expect(ack2.json.acknowledged_at).toBe(ack1.json.acknowledged_at)
      const shirt = o.items.find((i: any) => i.retailer_id === "SHIRT")
      const shipped = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ item_id: shirt.id, quantity: 2 }], tracking })
      expect(shipped.status, shipped.text).toBe(201)
      expect((await order(o.id)).status).toBe("in_progress")
      expect(await refundable(o.id)).toEqual({ amount: 11050, currency: "USD" })
      const cancelled = await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "OUT_OF_STOCK" })
      expect(cancelled.status, cancelled.text).toBe(201)
      expect(cancelled.json).toMatchObject({
        items: [{ retailer_id: "SOCKS", quantity: 1 }],
        refund_amount: 1250,
        refund_id: expect.stringMatching(/^rfd_/)
      })
      const afterCancel = await order(o.id)
      expect(afterCancel).toMatchObject({ status: "completed", payment_status: "partially_refunded", amount_refunded: 1250 })
      expect(await refundable(o.id)).toEqual({ amount: 9800, currency: "USD" })
      const ret = await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "too small" }] })
      expect(ret.status, ret.text).toBe(201)
      expect(ret.json.status).toBe("REQUESTED")
      const refund = await req("POST", `/chat/orders/${o.id}/refunds`, {
        idempotency_key: "walk-refund",
        reason_code: "REFUND_FOR_RETURN",
        items: [{ retailer_id: "SHIRT", quantity: 1 }],
        return_id: ret.json.id
      })
      expect(refund.status, refund.text).toBe(201)
      expect(refund.json).toMatchObject({ amount: 4900, return_id: ret.json.id, channel: "whatsapp", status: "pending" })
      expect((await req("GET", `/chat/returns/${ret.json.id}`)).json).toMatchObject({ status: "REFUNDED", refund_id: refund.json.id })
      expect(await refundable(o.id)).toEqual({ amount: 4900, currency: "USD" })
      const refunds = (await req("GET", `/chat/orders/${o.id}/refunds`)).json.data
      expect(refunds.map((r: any) => r.amount).sort()).toEqual([1250, 4900])
      expect(await order(o.id)).toMatchObject({ status: "completed", amount_refunded: 6150, payment_status: "partially_refunded" })
      // the customer heard: processing, the shirts shipped, then (the socks cancelled) completed
      expect(await customerStatuses(o)).toEqual(["processing", "partially-shipped", "completed"])
      // the caller heard each step, once
      const expected = [
        "order.created",
        "order.paid",
        "order.acknowledged",
        "order.shipped",
        "order.refunded",
        "order.completed",
        "return.requested",
        "return.updated"
      ]
      const heard = await eventually(
        async () => {
          const types = receiver.received
            .map((r) => JSON.parse(r.body))
            .filter((e) => e.data?.order_id === o.id)
            .map((e) => e.type as string)
          // the return's refund went through the operator: its order.refunded comes with the refund's webhook
          return expected.every((t) => types.includes(t)) && types.filter((t) => t === "order.refunded").length >= 2 ? types : undefined
        },
        "the order's caller events",
        20_000
      )
      expect(heard.filter((t) => t === "order.created")).toHaveLength(1)
      expect(heard.filter((t) => t === "order.acknowledged")).toHaveLength(1)
      expect(heard.filter((t) => t === "order.refunded")).toHaveLength(2)
    })

    it("refunds: 201, a replay of the key answers the first, above the refundable amount is 422 with the current figure, a bad reason is 400", async () => {
      const o = await placed()
      const first = await req("POST", `/chat/orders/${o.id}/refunds`, { idempotency_key: "r1", reason_code: "DAMAGED_GOODS", amount: 1000 })
      expect(first.status, first.text).toBe(201)
      const replay = await req("POST", `/chat/orders/${o.id}/refunds`, { idempotency_key: "r1", reason_code: "DAMAGED_GOODS", amount: 1000 })
      expect(replay.json.id).toBe(first.json.id)
      expect(await refundable(o.id)).toEqual({ amount: 10050, currency: "USD" })
      const over = await req("POST", `/chat/orders/${o.id}/refunds`, { idempotency_key: "r2", reason_code: "DAMAGED_GOODS", amount: 10051 })
      expect(over.status).toBe(422)
      expect(over.json.error).toMatchObject({ code: "refund_exceeds_refundable", details: { refundable_amount: 10050, currency: "USD" } })
      const exact = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 10050 })
      expect(exact.status).toBe(201)
      expect(await order(o.id)).toMatchObject({ payment_status: "refunded", amount_refunded: 11050 })
      expect((await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 1 })).status).toBe(422)
      const badReason = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BECAUSE", amount: 1 })
      expect(badReason.status).toBe(400)
      expect(JSON.stringify(badReason.json.error.details)).toContain("reason_code")
      const decimal = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 10.5 })
      expect(decimal.status).toBe(400)
      const nothing = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM" })
      expect(nothing.status).toBe(400)
      const got = await req("GET", `/chat/orders/${o.id}/refunds/${first.json.id}`)
      expect(got.json).toEqual(first.json)
      // an unpaid order has nothing to refund
      const unpaid = await placed("0003")
      expect(await refundable(unpaid.id)).toEqual({ amount: 0, currency: "USD" })
      const none = await req("POST", `/chat/orders/${unpaid.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 1 })
      expect(none.json.error).toMatchObject({ code: "refund_exceeds_refundable", details: { refundable_amount: 0 } })
    })

    it("50 concurrent refunds at one paid order: the successes sum to at most the captured amount (overshoot 0), every other one is 422", async () => {
      const o = await placed()
      const amounts = Array.from({ length: 50 }, (_, i) => 700 + (i % 5) * 100)
      const answers = await Promise.all(
        amounts.map((amount) => req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "REFUND_REASON_OTHER", amount }))
      )
      const ok = answers.filter((r) => r.status === 201)
      const refused = answers.filter((r) => r.status !== 201)
      expect(refused.every((r) => r.status === 422 && r.json.error.code === "refund_exceeds_refundable")).toBe(true)
      const sum = ok.reduce((s, r) => s + r.json.amount, 0)
      expect(amounts.reduce((s, x) => s + x, 0)).toBeGreaterThan(3 * 11050)
      expect(sum).toBeLessThanOrEqual(11050)
      expect(Math.max(0, sum - 11050)).toBe(0)
      const after = await order(o.id)
      expect(after.amount_refunded).toBe(sum)
      expect((await refundable(o.id)).amount).toBe(11050 - sum)
      expect((await req("GET", `/chat/orders/${o.id}/refunds?limit=100`)).json.data).toHaveLength(ok.length)
      // what is left is below the smallest ask
      expect(11050 - sum).toBeLessThan(700 + 400)
    })

    it("cancellations cover unshipped quantities only; cancelling everything unshipped of an unshipped order cancels it and refunds what was paid", async () => {
      const o = await acknowledged()
      const shirt = o.items.find((i: any) => i.retailer_id === "SHIRT")
      const tooMany = await req("POST", `/chat/orders/${o.id}/cancellations`, {
        reason_code: "OUT_OF_STOCK",
        items: [{ item_id: shirt.id, quantity: 3 }]
      })
      expect(tooMany.status).toBe(400)
      expect(tooMany.json.error.details[0].path).toBe("items[0].quantity")
      const badReason = await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "NOPE" })
      expect(badReason.status).toBe(400)
      const one = await req("POST", `/chat/orders/${o.id}/cancellations`, {
        reason_code: "CUSTOMER_REQUESTED",
        items: [{ retailer_id: "SHIRT", quantity: 1 }]
      })
      expect(one.status).toBe(201)
      expect(one.json).toMatchObject({ refund_amount: 4900 })
      expect(await order(o.id)).toMatchObject({ status: "in_progress", payment_status: "partially_refunded" })
      const rest = await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "CUSTOMER_REQUESTED" })
      expect(rest.status).toBe(201)
      expect(rest.json.items.map((i: any) => [i.retailer_id, i.quantity])).toEqual([
        ["SHIRT", 1],
        ["SOCKS", 1]
      ])
      expect(await order(o.id)).toMatchObject({ status: "cancelled", payment_status: "refunded", amount_refunded: 11050 })
      expect(await refundable(o.id)).toEqual({ amount: 0, currency: "USD" })
      const again = await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "CUSTOMER_REQUESTED" })
      expect(again.status).toBe(409)
      expect(again.json.error).toMatchObject({ code: "invalid_state", details: { status: "cancelled" } })
      const listed = (await req("GET", `/chat/orders/${o.id}/cancellations`)).json.data
      expect(listed.map((c: any) => c.id)).toEqual([rest.json.id, one.json.id])
      expect((await req("GET", `/chat/orders/${o.id}/cancellations/${one.json.id}`)).json).toEqual(one.json)
      // a pending (unacknowledged) order can be cancelled too
      const pending = await placed()
      expect((await req("POST", `/chat/orders/${pending.id}/cancellations`, { reason_code: "SUSPICIOUS_ORDER" })).status).toBe(201)
      expect((await order(pending.id)).status).toBe("cancelled")
    })

    it("items modify only lowers unshipped quantities; a paid reduction is refunded; an increase is a 400 that says why", async () => {
      const o = await acknowledged()
      const up = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "SHIRT", quantity: 3 }] })
      expect(up.status).toBe(400)
      expect(up.json.error.message).toContain("can only lower")
      const down = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "SHIRT", quantity: 1 }] })
      expect(down.status, down.text).toBe(200)
      expect(down.json).toMatchObject({ total: 4900 + 1250, amount_refunded: 4900, payment_status: "partially_refunded" })
      expect(await refundable(o.id)).toEqual({ amount: 11050 - 4900, currency: "USD" })
      const unknown = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "HAT", quantity: 0 }] })
      expect(unknown.json.error.details[0].path).toBe("items[0].retailer_id")
      await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }], tracking })
      const shippedAway = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "SHIRT", quantity: 0 }] })
      expect(shippedAway.status).toBe(400)
      const removed = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "SOCKS", quantity: 0 }] })
      expect(removed.status).toBe(200)
      expect(removed.json).toMatchObject({ status: "completed", total: 4900, amount_refunded: 6150 })
      const closed = await req("PATCH", `/chat/orders/${o.id}/items`, { items: [{ retailer_id: "SHIRT", quantity: 1 }] })
      expect(closed.json.error).toMatchObject({ code: "invalid_state", details: { status: "completed" } })
    })

    it("shipments: only after acknowledgement, at most what is unshipped; PATCH changes the tracking", async () => {
      const o = await placed()
      const early = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }], tracking })
      expect(early.status).toBe(409)
      expect(early.json.error.details.status).toBe("pending")
      await req("POST", `/chat/orders/${o.id}/acknowledge`, { idempotency_key: `ack-${o.id}` })
      const over = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 3 }], tracking })
      expect(over.status).toBe(400)
      const noTracking = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }] })
      expect(noTracking.status).toBe(400)
      const first = await req("POST", `/chat/orders/${o.id}/shipments`, {
        idempotency_key: "s1",
        items: [{ retailer_id: "SHIRT", quantity: 1 }],
        tracking: { ...tracking, tracking_url: "https://track.example.com/1Z999" },
        external_shipment_id: "ext-1"
      })
      expect(first.status, first.text).toBe(201)
      expect(first.json).toMatchObject({
        external_shipment_id: "ext-1",
        tracking: { carrier: "UPS", tracking_number: "1Z999", tracking_url: "https://track.example.com/1Z999" }
      })
      const replay = await req("POST", `/chat/orders/${o.id}/shipments`, {
        idempotency_key: "s1",
        items: [{ retailer_id: "SHIRT", quantity: 1 }],
        tracking: { ...tracking, tracking_url: "https://track.example.com/1Z999" },
        external_shipment_id: "ext-1"
      })
      expect(replay.json.id).toBe(first.json.id)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      // the key with another body: 422, as the Idempotency-Key header
      const reused = await req("POST", `/chat/orders/${o.id}/shipments`, {
        idempotency_key: "s1",
        items: [{ retailer_id: "SHIRT", quantity: 1 }],
        tracking
      })
      expect(reused.json.error.code).toBe("idempotency_key_reused")
      expect((await order(o.id)).items.find((i: any) => i.retailer_id === "SHIRT").shipped_quantity).toBe(1)
      const patched = await req("PATCH", `/chat/orders/${o.id}/shipments/${first.json.id}`, { tracking: { carrier: "FEDEX", tracking_number: "77" } })
      expect(patched.status).toBe(200)
      expect(patched.json.tracking).toEqual({ carrier: "FEDEX", tracking_number: "77", tracking_url: null })
      expect((await req("GET", `/chat/orders/${o.id}/shipments/${first.json.id}`)).json.tracking.carrier).toBe("FEDEX")
      const rest = await req("POST", `/chat/orders/${o.id}/shipments`, {
        items: [
          { retailer_id: "SHIRT", quantity: 1 },
          { retailer_id: "SOCKS", quantity: 1 }
        ],
        tracking
      })
      expect(rest.status).toBe(201)
      expect((await order(o.id)).status).toBe("completed")
      expect((await req("GET", `/chat/orders/${o.id}/shipments`)).json.data).toHaveLength(2)
      const after = await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }], tracking })
      expect(after.status).toBe(409)
    })

    it("returns: shipped quantities only; ACCEPT_RETURN and CLOSE_RETURN follow the operator's states; listed globally by status and order", async () => {
      const o = await acknowledged()
      const unshipped = await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "x" }] })
      expect(unshipped.status).toBe(400)
      await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 2 }], tracking })
      const noReason = await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1 }] })
      expect(noReason.status).toBe(400)
      const r1 = (await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "too small" }] })).json
      const r2 = (await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "colour" }] })).json
      expect((await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "third" }] })).status).toBe(
        400
      )
      const accepted = await req("PATCH", `/chat/returns/${r1.id}`, { update_event: "ACCEPT_RETURN", notes: "label sent" })
      expect(accepted.json).toMatchObject({ status: "APPROVED", notes: "label sent" })
      const closed = await req("PATCH", `/chat/returns/${r1.id}`, { update_event: "CLOSE_RETURN" })
      expect(closed.json.status).toBe("MERCHANT_MARKED_COMPLETED")
      const refused = await req("PATCH", `/chat/returns/${r1.id}`, { update_event: "ACCEPT_RETURN" })
      expect(refused.status).toBe(409)
      expect(refused.json.error).toMatchObject({ code: "invalid_state", details: { status: "MERCHANT_MARKED_COMPLETED" } })
      const disapproved = await req("PATCH", `/chat/returns/${r2.id}`, { update_event: "CLOSE_RETURN" })
      expect(disapproved.json.status).toBe("DISAPPROVED")
      const refundClosed = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "REFUND_FOR_RETURN", amount: 100, return_id: r2.id })
      expect(refundClosed.status).toBe(409)
      expect((await req("PATCH", `/chat/returns/${r2.id}`, { update_event: "REOPEN" })).status).toBe(400)
      const byStatus = (await req("GET", "/chat/returns?status=DISAPPROVED&limit=100")).json.data
      expect(byStatus.map((r: any) => r.id)).toContain(r2.id)
      expect(byStatus.every((r: any) => r.status === "DISAPPROVED")).toBe(true)
      const byOrder = (await req("GET", `/chat/returns?order_id=${o.id}`)).json.data
      expect(byOrder.map((r: any) => r.id)).toEqual([r2.id, r1.id])
      expect((await req("GET", `/chat/orders/${o.id}/returns`)).json.data.map((r: any) => r.id)).toEqual([r2.id, r1.id])
      expect((await req("GET", "/chat/returns", undefined, b.test_key)).json.data).toEqual([])
    })

    it("another store's or mode's order, refund, cancellation, shipment and return ids: 404 resource_not_found on every route", async () => {
      const o = await acknowledged()
      const refund = (await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "WRONG_ITEM", amount: 100 })).json
      const shipment = (await req("POST", `/chat/orders/${o.id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }], tracking })).json
      const cancellation = (
        await req("POST", `/chat/orders/${o.id}/cancellations`, { reason_code: "OUT_OF_STOCK", items: [{ retailer_id: "SOCKS", quantity: 1 }] })
      ).json
      const ret = (await req("POST", `/chat/orders/${o.id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "x" }] })).json
      const otherOrder = await acknowledged()
      const routes = (id: string, rid = refund.id, cid = cancellation.id, sid = shipment.id, retId = ret.id) =>
        [
          ["GET", `/chat/orders/${id}/refunds`],
          ["POST", `/chat/orders/${id}/refunds`, { reason_code: "WRONG_ITEM", amount: 1 }],
          ["GET", `/chat/orders/${id}/refunds/${rid}`],
          ["GET", `/chat/orders/${id}/refundable-amount`],
          ["GET", `/chat/orders/${id}/cancellations`],
          ["POST", `/chat/orders/${id}/cancellations`, { reason_code: "OUT_OF_STOCK" }],
          ["GET", `/chat/orders/${id}/cancellations/${cid}`],
          ["GET", `/chat/orders/${id}/shipments`],
          ["POST", `/chat/orders/${id}/shipments`, { items: [{ retailer_id: "SHIRT", quantity: 1 }], tracking }],
          ["GET", `/chat/orders/${id}/shipments/${sid}`],
          ["PATCH", `/chat/orders/${id}/shipments/${sid}`, { tracking }],
          ["GET", `/chat/orders/${id}/returns`],
          ["POST", `/chat/orders/${id}/returns`, { items: [{ retailer_id: "SHIRT", quantity: 1, reason: "x" }] }],
          ["GET", `/chat/returns/${retId}`],
          ["PATCH", `/chat/returns/${retId}`, { notes: "x" }]
        ] as Array<[string, string, unknown?]>
      for (const key of [b.test_key, a.live_key]) {
        for (const [method, path, body] of routes(o.id)) {
          const res = await req(method, path, body, key)
          expect(res.status, `${method} ${path}`).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
        }
      }
      // a record named under another order of the same store is not that order's
      for (const [method, path] of [
        ["GET", `/chat/orders/${otherOrder.id}/refunds/${refund.id}`],
        ["GET", `/chat/orders/${otherOrder.id}/cancellations/${cancellation.id}`],
        ["GET", `/chat/orders/${otherOrder.id}/shipments/${shipment.id}`],
        ["GET", `/chat/orders/${o.id}/refunds/rfd_01M85GK8TB3E8BH2R1WY18AD90`],
        ["GET", `/chat/orders/${o.id}/shipments/not-an-id`],
        ["GET", "/chat/returns/ret_01M85GK8TB3E8BH2R1WY18AD94"]
      ]) {
        const res = await req(method, path)
        expect(res.status, `${method} ${path}`).toBe(404)
      }
    })
  })
