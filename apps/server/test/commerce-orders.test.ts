/**
 * Orders end to end (issue 13), on SQLite and PostgreSQL over real HTTP against the operator
 * emulator: a sandbox cart becomes a `pending` order with the cart's prices, unpaid until a
 * payment request, then paid by the emulator's payment status webhook (a number ending in
 * 0003 fails payment; `order-payments.test.ts` has the whole payment flow); list
 * filters; acknowledgement idempotent by the body's key (replay, 422 for the same key on
 * another order; an acknowledged order answers as it is, under a new key or none) and in
 * batches; the same cart webhook delivered 1,000
 * times concurrently makes one order; another store's ids answer 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, signOperatorPayload } from "@switchboard/testing"
import { stockedCatalog } from "./fixtures/commerce.js"
import { eventually, startServer, type CreatedStore, type Harness } from "./harness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`orders end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let catalog = ""
    let phoneSeq = 100

    beforeAll(async () => {
      h = await startServer({}, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      catalog = await stockedCatalog(
        h,
        a.test_key,
        "Shirts",
        [
          ["SKU-A", 4900],
          ["SKU-B", 1250]
        ],
        "Shirt"
      )
    }, 180_000)
    afterAll(() => h?.stop())

    const phone = (suffix?: string) => `+1555${String(phoneSeq++).padStart(3, "0")}${suffix ?? "1234"}`

    /** A sandbox cart, answered once it is an order; the order as read. */
    const sandboxOrder = async (items: Array<{ retailer_id: string; quantity: number }>, from = phone()) => {
      const placed = await h.request("POST", "/chat/sandbox/orders", a.test_key, { phone: from, catalog_id: catalog, items })
      expect(placed.status, placed.text).toBe(202)
      expect(placed.json.order_id).toMatch(/^ord_/)
      return (await h.request("GET", `/chat/orders/${placed.json.order_id}`, a.test_key)).json
    }
    /** Sends the order's payment request, then waits for the payment status. */
    const paid = async (id: string, status = "paid") => {
      const requested = await h.request("POST", `/chat/orders/${id}/payment-request`, a.test_key)
      expect(requested.status, requested.text).toBe(202)
      return eventually(
        async () => {
          const order = (await h.request("GET", `/chat/orders/${id}`, a.test_key)).json
          return order.payment_status === status ? order : undefined
        },
        `order ${id} ${status}`,
        15_000
      )
    }

    it("a sandbox cart becomes a pending order with the cart's prices, then the payment requested captures it in full", async () => {
      const order = await sandboxOrder([
        { retailer_id: "SKU-A", quantity: 2 },
        { retailer_id: "SKU-B", quantity: 1 }
      ])
      expect(order).toMatchObject({ status: "pending", currency: "USD", total: 2 * 4900 + 1250, catalog_id: catalog })
      expect(order.items).toEqual([
        expect.objectContaining({ id: expect.stringMatching(/^oit_/), retailer_id: "SKU-A", quantity: 2, unit_price: 4900, price_mismatch: false }),
        expect.objectContaining({ retailer_id: "SKU-B", quantity: 1, unit_price: 1250, catalog_price: 1250 })
      ])
      expect(order.cart.product_items).toHaveLength(2)
      const after = await paid(order.id)
      expect(after.amount_captured).toBe(order.total)
      const payments = await h.request("GET", `/chat/orders/${order.id}/payments`, a.test_key)
      expect(payments.json.data).toEqual([expect.objectContaining({ status: "captured", amount: order.total, currency: "USD" })])
      const items = await h.request("GET", `/chat/orders/${order.id}/items`, a.test_key)
      expect(items.json.data).toEqual(after.items)
      const refundable = await h.request("GET", `/chat/orders/${order.id}/refundable-amount`, a.test_key)
      if (refundable.status === 200) expect(refundable.json).toEqual({ amount: order.total, currency: "USD" })
    })

    it("a number ending in 0003 fails payment: the order's payment_status is failed, a failed payment listed", async () => {
      const order = await sandboxOrder([{ retailer_id: "SKU-B", quantity: 3 }], phone("0003"))
      expect((await h.request("POST", `/chat/orders/${order.id}/payment-request`, a.test_key)).status).toBe(202)
      const payments = await eventually(
        async () => {
          const listed = (await h.request("GET", `/chat/orders/${order.id}/payments`, a.test_key)).json.data
          return listed.length > 0 ? listed : undefined
        },
        "the failed payment",
        15_000
      )
      expect(payments).toEqual([expect.objectContaining({ status: "failed", error: "insufficient_funds", amount: 3 * 1250 })])
      expect((await h.request("GET", `/chat/orders/${order.id}`, a.test_key)).json).toMatchObject({ payment_status: "failed", amount_captured: 0 })
    })

    it("lists newest first, filtered by status, payment_status and a created range; pages by cursor", async () => {
      const first = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      const second = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      await paid(second.id)
      const all = await h.request("GET", "/chat/orders?limit=100", a.test_key)
      expect(all.status).toBe(200)
      const ids = all.json.data.map((o: any) => o.id)
      expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id))
      expect([...ids].sort().reverse()).toEqual(ids)
      const page1 = await h.request("GET", "/chat/orders?limit=1", a.test_key)
      const page2 = await h.request("GET", `/chat/orders?limit=1&cursor=${page1.json.next_cursor}`, a.test_key)
      expect(page2.json.data[0].id).toBe(ids[1])
      const pending = (await h.request("GET", "/chat/orders?status=pending&limit=100", a.test_key)).json.data
      expect(pending.every((o: any) => o.status === "pending")).toBe(true)
      const unpaid = (await h.request("GET", "/chat/orders?payment_status=unpaid&limit=100", a.test_key)).json.data
      expect(unpaid.every((o: any) => o.payment_status === "unpaid")).toBe(true)
      expect(unpaid.map((o: any) => o.id)).not.toContain(second.id)
      const future = await h.request("GET", "/chat/orders?created_after=2100-01-01T00:00:00Z", a.test_key)
      expect(future.json.data).toEqual([])
      const past = await h.request("GET", "/chat/orders?created_before=2000-01-01T00:00:00Z", a.test_key)
      expect(past.json.data).toEqual([])
      const bad = await h.request("GET", "/chat/orders?status=shipped", a.test_key)
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe("validation_failed")
      // the other mode and the other store see none of them
      expect((await h.request("GET", "/chat/orders", a.live_key)).json.data).toEqual([])
      expect((await h.request("GET", "/chat/orders", b.test_key)).json.data).toEqual([])
    })

    it("acknowledge: pending → in_progress once; the same key replays, another order under it is 422, a new key or none answers the order as it is", async () => {
      const order = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      const other = await sandboxOrder([{ retailer_id: "SKU-B", quantity: 1 }])
      const key = `ack-${order.id}`
      const [one, two] = await Promise.all([
        h.request("POST", `/chat/orders/${order.id}/acknowledge`, a.test_key, { idempotency_key: key }),
        h.request("POST", `/chat/orders/${order.id}/acknowledge`, a.test_key, { idempotency_key: key })
      ])
      const statuses = [one.status, two.status].sort()
      expect(statuses[0]).toBe(200)
      expect([200, 409]).toContain(statuses[1])
      const replay = await h.request("POST", `/chat/orders/${order.id}/acknowledge`, a.test_key, { idempotency_key: key })
      expect(replay.status).toBe(200)
      expect(replay.json).toMatchObject({ id: order.id, status: "in_progress" })
      expect(replay.json.acknowledged_at).toBe((one.status === 200 ? one : two).json.acknowledged_at)
      const reused = await h.request("POST", `/chat/orders/${other.id}/acknowledge`, a.test_key, { idempotency_key: key })
      expect(reused.status).toBe(422)
      expect(reused.json.error.code).toBe("idempotency_key_reused")
      const again = await h.request("POST", `/chat/orders/${order.id}/acknowledge`, a.test_key, { idempotency_key: "another-key" })
      expect(again.status).toBe(200)
      expect(again.json).toMatchObject({ id: order.id, status: "in_progress", acknowledged_at: replay.json.acknowledged_at })
      // the header key works too; a header and a body key that differ are a 400
      const byHeader = await h.request("POST", `/chat/orders/${other.id}/acknowledge`, a.test_key, {}, { "Idempotency-Key": "hdr-1" })
      expect(byHeader.status).toBe(200)
      const headerReplay = await h.request("POST", `/chat/orders/${other.id}/acknowledge`, a.test_key, {}, { "Idempotency-Key": "hdr-1" })
      expect(headerReplay.status).toBe(200)
      expect(headerReplay.text).toBe(byHeader.text)
      const differ = await h.request(
        "POST",
        `/chat/orders/${other.id}/acknowledge`,
        a.test_key,
        { idempotency_key: "h-1" },
        { "Idempotency-Key": "hdr-2" }
      )
      expect(differ.status).toBe(400)
      const bare = await h.request("POST", `/chat/orders/${order.id}/acknowledge`, a.test_key, {})
      expect(bare.status).toBe(200)
      expect(bare.json.acknowledged_at).toBe(replay.json.acknowledged_at)
    })

    it("acknowledge-batch answers one result per order; another store's order is not_found exactly as a missing one", async () => {
      const fresh = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      const done = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      await h.request("POST", `/chat/orders/${done.id}/acknowledge`, a.test_key, { idempotency_key: `pre-${done.id}` })
      const body = {
        idempotency_key: `batch-${fresh.id}`,
        orders: [{ id: fresh.id }, { id: done.id }, { id: "ord_01M85GK8TB3E8BH2R1WY18AD8X" }, { id: "nonsense" }]
      }
      const batch = await h.request("POST", "/chat/orders/acknowledge-batch", a.test_key, body)
      expect(batch.status, batch.text).toBe(200)
      expect(batch.json.data.map((r: any) => r.result)).toEqual(["acknowledged", "already_acknowledged", "not_found", "not_found"])
      const replay = await h.request("POST", "/chat/orders/acknowledge-batch", a.test_key, body)
      expect(replay.json).toEqual(batch.json)
      const elsewhere = await h.request("POST", "/chat/orders/acknowledge-batch", b.test_key, { idempotency_key: "x", orders: [{ id: fresh.id }] })
      expect(elsewhere.json.data).toEqual([{ id: fresh.id, result: "not_found" }])
      const tooMany = await h.request("POST", "/chat/orders/acknowledge-batch", a.test_key, {
        idempotency_key: "big",
        orders: Array.from({ length: 101 }, () => ({ id: fresh.id }))
      })
      expect(tooMany.status).toBe(400)
    })

    it("the same cart webhook delivered 1,000 times, concurrently, makes one order", async () => {
      const [store] = await h.query<{ sandbox_phone_number_id: string; sandbox_waba_id: string }>(
        `select sandbox_phone_number_id, sandbox_waba_id from stores where id = '${a.id}'`
      )
      const [cat] = await h.query<{ operator_catalog_id: string }>(`select operator_catalog_id from catalogs where id = '${catalog}'`)
      const wamid = `wamid.DUPLICATE${Date.now()}`
      const body = JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: store.sandbox_waba_id,
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550000000", phone_number_id: store.sandbox_phone_number_id },
                  contacts: [{ profile: { name: "Dup" }, wa_id: "15557770001" }],
                  messages: [
                    {
                      from: "15557770001",
                      id: wamid,
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      type: "order",
                      order: {
                        catalog_id: cat.operator_catalog_id,
                        text: "",
                        product_items: [{ product_retailer_id: "SKU-A", quantity: 1, item_price: 45.5, currency: "USD" }]
                      }
                    }
                  ]
                }
              }
            ]
          }
        ]
      })
      const signature = signOperatorPayload(body, "e2e-app-secret")
      const answers: Array<number> = []
      for (let wave = 0; wave < 10; wave++) {
        const statuses = await Promise.all(
          Array.from({ length: 100 }, () =>
            fetch(`${h.base}/chat/operator/webhook`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-hub-signature-256": signature },
              body
            }).then((r) => r.status)
          )
        )
        answers.push(...statuses)
      }
      expect(answers.filter((s) => s === 200)).toHaveLength(1000)
      await eventually(
        async () => {
          const [left] = await h.query<{ n: number | string }>(
            "select count(*) as n from jobs where kind = 'inbox.process' and status in ('queued', 'running')"
          )
          return Number(left.n) === 0
        },
        "every inbox job done",
        150_000
      )
      const rows = await h.query<{ n: number | string }>(`select count(*) as n from orders where source_message_id = '${wamid}'`)
      expect(Number(rows[0].n)).toBe(1)
      const [order] = await h.query<{ id: string }>(`select id from orders where source_message_id = '${wamid}'`)
      const read = (await h.request("GET", `/chat/orders/${order.id}`, a.test_key)).json
      // the cart's price is kept and flagged against the catalog's
      expect(read.items[0]).toMatchObject({ unit_price: 4550, catalog_price: 4900, price_mismatch: true })
    }, 180_000)

    it("sandbox orders need a test key, a known catalog and its products; bad input is a 400 naming the field", async () => {
      // the operator's id of the catalog names it too; a cart is not paid by itself
      const operatorId = (await h.request("GET", `/chat/catalogs/${catalog}`, a.test_key)).json.operator_catalog_id
      const byOperatorId = await h.request("POST", "/chat/sandbox/orders", a.test_key, {
        phone: phone(),
        catalog_id: operatorId,
        items: [{ retailer_id: "SKU-B", quantity: 2 }]
      })
      expect(byOperatorId.status, byOperatorId.text).toBe(202)
      const first = (await h.request("GET", `/chat/orders/${byOperatorId.json.order_id}`, a.test_key)).json
      expect(first).toMatchObject({ catalog_id: catalog, total: 2500, payment_status: "unpaid" })
      /** A sandbox cart of one line for `key`, from a new customer unless `from` is given. */
      const cart = (key: string, retailer_id: string, quantity: number, from = phone()) =>
        h.request("POST", "/chat/sandbox/orders", key, { phone: from, catalog_id: catalog, items: [{ retailer_id, quantity }] })
      expect((await cart(a.live_key, "SKU-A", 1)).status).toBe(403)
      const unknown = await cart(a.test_key, "NOPE", 1)
      expect(unknown.status).toBe(400)
      expect(unknown.json.error.details[0].path).toBe("items[0].retailer_id")
      expect((await cart(b.test_key, "SKU-A", 1)).status).toBe(404)
      expect((await cart(a.test_key, "SKU-A", 0)).status).toBe(400)
      const badPhone = await cart(a.test_key, "SKU-A", 1, "abc")
      expect(badPhone.status).toBe(400)
      expect(badPhone.json.error.details[0].path).toBe("phone")
    })

    it("another store's, the other mode's, an unknown and a malformed order id: the same 404 on every order route", async () => {
      const own = await sandboxOrder([{ retailer_id: "SKU-A", quantity: 1 }])
      for (const [key, id] of [
        [b.test_key, own.id],
        [a.live_key, own.id],
        [a.test_key, "ord_01M85GK8TB3E8BH2R1WY18AD8X"],
        [a.test_key, "not-an-id"]
      ]) {
        for (const [method, path, body] of [
          ["GET", `/chat/orders/${id}`, undefined],
          ["GET", `/chat/orders/${id}/items`, undefined],
          ["PATCH", `/chat/orders/${id}/items`, { items: [{ retailer_id: "SKU-A", quantity: 0 }] }],
          ["GET", `/chat/orders/${id}/payments`, undefined],
          ["POST", `/chat/orders/${id}/acknowledge`, { idempotency_key: `k-${id}-${key}` }]
        ] as const) {
          const res = await h.request(method, path, key, body)
          expect(res.status, `${method} ${path}`).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
        }
      }
    })
  })
