/**
 * No order operation holds the database while it waits on the operator (issue 27, on SQLite,
 * the one-writer store): with the emulator answering 4 s late, store A's acknowledgement of a
 * paid order (it sends `order_status` through the mirrored write) waits on the operator,
 * while store B's opt-out and draft campaign create answer within 500 ms, before A's call
 * finishes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SQLITE } from "@switchboard/testing"
import { placedOrder, upiPayments } from "./fixtures/commerce.js"
import { eventually, freePort, startServer, type CreatedStore, type Harness } from "./harness.js"

describe("order operations wait on the operator outside any transaction (SQLite, emulator 4 s late)", () => {
  let h: Harness
  let a: CreatedStore
  let b: CreatedStore
  let emulator = ""

  beforeAll(async () => {
    const port = await freePort()
    emulator = `http://127.0.0.1:${port}`
    h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port) }, { dialect: SQLITE })
    a = h.createStore("Shop A")
    b = h.createStore("Shop B")
  }, 180_000)
  afterAll(() => h?.stop())

  const configure = async (body: unknown) => {
    const res = await fetch(`${emulator}/_emulator/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    expect(res.status, await res.text()).toBe(200)
  }

  it("store B's opt-out and draft campaign answer within 500 ms while store A's acknowledgement waits 4 s on the operator", async () => {
    const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Kurtas" })).json.id
    const product = { retailer_id: "KURTA", name: "Kurta", price: 129900, currency: "INR", image_url: "https://img.example.com/k.jpg" }
    expect((await h.request("POST", `/chat/catalogs/${catalog}/products`, a.test_key, product)).status).toBe(201)
    expect((await h.request("PATCH", "/chat/commerce/settings", a.test_key, { payments: upiPayments })).status).toBe(200)
    const id = await placedOrder(h, a.test_key, "+919800001234", catalog, [{ retailer_id: "KURTA", quantity: 1 }])
    expect((await h.request("POST", `/chat/orders/${id}/payment-request`, a.test_key)).status).toBe(202)
    await eventually(async () => (await h.request("GET", `/chat/orders/${id}`, a.test_key)).json.payment_status === "paid", "the order paid", 15_000)
    const template = {
      templateData: {
        name: "order_note",
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
      }
    }
    expect((await h.request("POST", "/chat/templates", b.live_key, template)).status).toBe(201)

    await configure({ latencyMs: 4000 })
    try {
      const started = Date.now()
      let acknowledgedAt = 0
      const acknowledging = h.request("POST", `/chat/orders/${id}/acknowledge`, a.test_key, {}).then((res) => {
        acknowledgedAt = Date.now()
        return res
      })
      await new Promise((r) => setTimeout(r, 300))
      const optOutStart = Date.now()
      const optOut = await h.request("POST", "/chat/opt-outs", b.test_key, { phone: "+15551239876" })
      const optOutMs = Date.now() - optOutStart
      const draftStart = Date.now()
      const draft = await h.request("POST", "/chat/campaigns", b.test_key, {
        name: "While A waits",
        template: { name: "order_note", language: "en_US", parameters: ["Ana", "A-1"] }
      })
      const draftMs = Date.now() - draftStart
      const bDone = Date.now()
      expect(optOut.status, optOut.text).toBe(201)
      expect(draft.status, draft.text).toBe(201)
      expect(optOutMs).toBeLessThan(500)
      expect(draftMs).toBeLessThan(500)
      const acked = await acknowledging
      expect(acked.status, acked.text).toBe(200)
      // A really waited on the operator, and B answered before it was done
      expect(acknowledgedAt - started).toBeGreaterThanOrEqual(3500)
      expect(bDone).toBeLessThan(acknowledgedAt)
      expect(acked.json.customer_updates).toEqual([expect.objectContaining({ status: "processing", outcome: "sent" })])
    } finally {
      await configure({ latencyMs: 0 })
    }
  }, 120_000)
})
