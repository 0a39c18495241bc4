/**
 * Order writes that reach the customer never send twice (issue 28): the server is killed
 * (SIGKILL) between a mirrored write's operator call and its settle (`SWITCHBOARD_TEST_MIRROR_HALT`
 * `<kind>:called`), for a payment request and for an acknowledgement's `order_status` update;
 * after the restart the sweep finds the message recorded by the first attempt (`recover`)
 * and settles it, so the emulator (one of its own, outliving the server) saw exactly one send.
 * A refund killed after the operator's refund call is called again with the same key (the
 * operator refunds once) and completed by its outcome webhook, which arrived before the settle.
 * On SQLite and PostgreSQL.
 */
import { startEmulator } from "@switchboard/operator-emulator"
import { DIALECTS, eventually } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startServer } from "./harness.js"
import { crashAt as killedAt } from "./steps.js"

const payments = {
  payment_type: "upi",
  payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "main-config" } }]
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`order sends killed between the call and the settle (${dialect.name})`, () => {
    let h: Harness
    let a: CreatedStore
    let emulator: Awaited<ReturnType<typeof startEmulator>>
    let catalog = ""
    let seq = 100

    beforeAll(async () => {
      emulator = await startEmulator({ appSecret: "e2e-app-secret" })
      h = await startServer({ SWITCHBOARD_EMULATOR_URL: emulator.url, SWITCHBOARD_MIRROR_SWEEP_DELAY_MS: "2000" }, { dialect })
      emulator.setWebhookUrl(`${h.base}/chat/operator/webhook`)
      a = h.createStore("Shop A")
      catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Kurtas" })).json.id
      const p = await h.request("POST", `/chat/catalogs/${catalog}/products`, a.test_key, {
        retailer_id: "KURTA",
        name: "Kurta",
        price: 129900,
        currency: "INR",
        image_url: "https://img.example.com/k.jpg"
      })
      expect(p.status, p.text).toBe(201)
      expect((await h.request("PATCH", "/chat/commerce/settings", a.test_key, { payments })).status).toBe(200)
    }, 180_000)
    afterAll(async () => {
      await h?.stop()
      await emulator?.close()
    })

    const req = (method: string, path: string, body?: unknown) => h.request(method, path, a.test_key, body)
    const cart = async () => {
      const phone = `+9198${String(seq++).padStart(4, "0")}1234`
      const placed = await req("POST", "/chat/sandbox/orders", { phone, catalog_id: catalog, items: [{ retailer_id: "KURTA", quantity: 1 }] })
      expect(placed.status, placed.text).toBe(202)
      return { id: placed.json.order_id as string, phone }
    }
    const sent = async (phone: string, type: string) => {
      const listed = (await (await fetch(`${emulator.url}/_emulator/messages?to=${phone.replace(/\D/g, "")}`)).json()) as { data: Array<any> }
      return listed.data.filter((m) => m.type === "interactive" && m.interactive?.type === type).map((m) => m.interactive)
    }
    /** Starts `request`, waits until the server halts at `halt`, kills it and starts it again without the halt. */
    const crashAt = (halt: string, request: () => Promise<unknown>) => killedAt(h, halt, request)
    const outbox = (kind: string) => h.query<{ status: string }>(`SELECT status FROM mirror_outbox WHERE kind = '${kind}'`)

    it("a payment request killed after its send: one order_details at the operator, the write settled", async () => {
      const o = await cart()
      await crashAt("orders.payment_request:called", () => req("POST", `/chat/orders/${o.id}/payment-request`))
      await eventually(
        async () => (await outbox("orders.payment_request")).every((r) => r.status === "done"),
        "the sweep settled the request",
        30_000
      )
      // the sandbox customer pays the one request
      await eventually(async () => (await req("GET", `/chat/orders/${o.id}`)).json.payment_status === "paid", "the order paid", 15_000)
      expect(await sent(o.phone, "order_details")).toHaveLength(1)
    }, 180_000)

    it("an acknowledgement killed after its order_status send: one `processing` at the operator, recorded once on the order", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await eventually(async () => (await req("GET", `/chat/orders/${o.id}`)).json.payment_status === "paid", "the order paid", 15_000)
      await crashAt("orders.customer_updates:called", () => req("POST", `/chat/orders/${o.id}/acknowledge`, {}))
      const updated = await eventually(
        async () => {
          const got = (await req("GET", `/chat/orders/${o.id}`)).json
          return got.customer_updates.length > 0 ? got : undefined
        },
        "the sweep recorded the update",
        30_000
      )
      expect(updated.status).toBe("in_progress")
      expect(updated.customer_updates).toEqual([expect.objectContaining({ status: "processing", outcome: "sent" })])
      const statuses = await sent(o.phone, "order_status")
      expect(statuses.map((s) => s.action.parameters.order.status)).toEqual(["processing"])
    }, 180_000)

    it("a refund killed after the operator's refund call: refunded once, and its outcome (which overtook our settle) completes it", async () => {
      const o = await cart()
      expect((await req("POST", `/chat/orders/${o.id}/payment-request`)).status).toBe(202)
      await eventually(async () => (await req("GET", `/chat/orders/${o.id}`)).json.payment_status === "paid", "the order paid", 15_000)
      await crashAt("orders.refund:called", () => req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BUYERS_REMORSE", amount: 30000 }))
      const [refund] = (await req("GET", `/chat/orders/${o.id}/refunds`)).json.data
      expect(refund).toMatchObject({ channel: "whatsapp", amount: 30000 })
      const done = await eventually(
        async () => {
          const got = (await req("GET", `/chat/orders/${o.id}/refunds/${refund.id}`)).json
          return got.status === "completed" ? got : undefined
        },
        "the refund completed after the restart",
        45_000
      )
      expect(done.status).toBe("completed")
      expect(await outbox("orders.refund")).toEqual([{ status: "done" }])
      // the sweep's second call reused the key: the operator refunded once
      expect((await req("GET", `/chat/orders/${o.id}`)).json).toMatchObject({ amount_refunded: 30000, payment_status: "partially_refunded" })
      const left = await req("POST", `/chat/orders/${o.id}/refunds`, { reason_code: "BUYERS_REMORSE", amount: 129900 - 30000 })
      expect(left.status, left.text).toBe(201)
      await eventually(
        async () => (await req("GET", `/chat/orders/${o.id}/refunds/${left.json.id}`)).json.status === "completed",
        "the rest refunded: the operator held only the one first refund",
        15_000
      )
    }, 180_000)
  })
