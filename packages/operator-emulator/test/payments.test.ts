/**
 * The emulator plays Meta's Payments API as the real platform runs it (GRAPH_API.md §7.0,
 * §7.6): a cart (`type: "order"` message) creates no payment; an `order_details` message is
 * checked (action `review_and_pay`, `reference_id` of at most 35 letters, digits, `_`, `-`,
 * `.`; the items, subtotal and total adding up) and then paid by the number rules (0003
 * fails, 0007 pays a wrong amount, any other pays the total) as a `statuses[]` entry of
 * `type: "payment"` naming the reference; `order_status` messages are accepted and listed with
 * their interactive object; the Commerce Platform order edges answer as for unknown ids
 * (400, code 100, subcode 33).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"
import { type Receiver, requests, startReceiver, waitFor } from "./helpers.js"

const WABA = "700000000000002"
const PHONE = "800000000000002"

let emulator: Emulator
let receiver: Receiver
const { graph, control } = requests(() => emulator)
const payments = () =>
  receiver.received.flatMap((body) =>
    body.entry.flatMap((e: any) => e.changes.flatMap((c: any) => (c.value.statuses ?? []).filter((s: any) => s.type === "payment")))
  )

const money = (value: number) => ({ value, offset: 100 })
const orderDetails = (reference: string, overrides: Record<string, unknown> = {}) => ({
  type: "order_details",
  body: { text: "Your order" },
  action: {
    name: "review_and_pay",
    parameters: {
      reference_id: reference,
      type: "physical-goods",
      payment_type: "upi",
      payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "c" } }],
      currency: "INR",
      total_amount: money(30000),
      order: {
        status: "pending",
        items: [{ retailer_id: "K", name: "Kurta", amount: money(15000), quantity: 2 }],
        subtotal: money(30000),
        tax: money(0)
      },
      ...overrides
    }
  }
})
const send = (to: string, interactive: unknown) =>
  graph("POST", `/${PHONE}/messages`, { messaging_product: "whatsapp", recipient_type: "individual", to, type: "interactive", interactive })
const customer = async (to: string) => expect((await control("POST", "/inbound", { phone_number_id: PHONE, from: to, text: "hi" })).status).toBe(200)

beforeAll(async () => {
  receiver = await startReceiver()
  emulator = await startEmulator({
    appSecret: "payments-secret",
    webhookUrl: receiver.url,
    statusDelayMs: 5,
    webhookBatchMs: 0,
    pairBurst: 1_000_000
  })
  expect((await control("POST", "/accounts", { waba_id: WABA, phone_number_id: PHONE, display_phone_number: "15550002222" })).status).toBe(200)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

describe("payments as the real platform runs them", () => {
  it("a cart creates no payment", async () => {
    const cart = {
      type: "order",
      order: { catalog_id: "1", product_items: [{ product_retailer_id: "K", quantity: 1, item_price: 150, currency: "INR" }] }
    }
    expect((await control("POST", "/inbound", { phone_number_id: PHONE, from: "919800000001", message: cart })).status).toBe(200)
    await new Promise((r) => setTimeout(r, 1000))
    expect(payments()).toEqual([])
  })

  it("an order_details message is paid by reference: the total, a failure for 0003, a wrong amount for 0007", async () => {
    for (const to of ["919800001111", "919800000003", "919800000007"]) await customer(to)
    expect((await send("919800001111", orderDetails("ref_ok"))).status).toBe(200)
    expect((await send("919800000003", orderDetails("ref_fail"))).status).toBe(200)
    expect((await send("919800000007", orderDetails("ref_wrong"))).status).toBe(200)
    const of = (ref: string) => waitFor(() => payments().find((p) => p.payment.reference_id === ref))
    const ok = await of("ref_ok")
    expect(ok).toMatchObject({
      status: "captured",
      recipient_id: "919800001111",
      payment: { amount: money(30000), currency: "INR", transaction: { status: "success", type: "razorpay" } }
    })
    expect(await of("ref_fail")).toMatchObject({
      status: "failed",
      payment: { transaction: { status: "failed", error: { code: "insufficient_funds" } } }
    })
    expect(await of("ref_wrong")).toMatchObject({ status: "captured", payment: { amount: money(30100) } })
    // the send is listed with its interactive object as sent
    const listed = (await control("GET", `/messages?to=919800001111`)).json.data
    expect(listed.find((m: any) => m.interactive?.type === "order_details").interactive).toEqual(orderDetails("ref_ok"))
  })

  it("refuses an order_details the operator refuses: a bad reference, a missing payment_settings, amounts that do not add up", async () => {
    await customer("919800002222")
    const refused = async (interactive: unknown) => {
      const res = await send("919800002222", interactive)
      expect(res.status).toBe(400)
      return res.json.error.code
    }
    expect(await refused(orderDetails("has space"))).toBe(131009)
    expect(await refused(orderDetails("r".repeat(36)))).toBe(131009)
    expect(await refused(orderDetails("ref_1", { payment_settings: undefined }))).toBe(131008)
    expect(await refused(orderDetails("ref_2", { total_amount: money(29900) }))).toBe(131009)
    expect(await refused({ ...orderDetails("ref_3"), action: { name: "pay", parameters: {} } })).toBe(131009)
  })

  it("an order_status message is accepted and listed with its interactive object", async () => {
    await customer("919800003333")
    const status = {
      type: "order_status",
      body: { text: "Shipped" },
      action: { name: "review_order", parameters: { reference_id: "ref_ok", order: { status: "shipped" } } }
    }
    expect((await send("919800003333", status)).status).toBe(200)
    const listed = (await control("GET", `/messages?to=919800003333`)).json.data
    expect(listed.map((m: any) => m.interactive)).toEqual([status])
  })

  it("POST /_emulator/payments sends any payment status for a reference", async () => {
    const sent = await control("POST", "/payments", {
      phone_number_id: PHONE,
      to: "+919800004444",
      reference_id: "ref_any",
      status: "pending",
      amount: money(500),
      currency: "INR"
    })
    expect(sent.status).toBe(200)
    expect(await waitFor(() => payments().find((p) => p.payment.reference_id === "ref_any"))).toMatchObject({
      status: "pending",
      payment: { amount: money(500) }
    })
    expect(
      (
        await control("POST", "/payments", {
          phone_number_id: PHONE,
          to: "+919800004444",
          reference_id: "r",
          status: "paid",
          amount: money(1),
          currency: "INR"
        })
      ).status
    ).toBe(400)
  })

  it("the Commerce Platform order edges answer as for an unknown id (a cart is not a Commerce Platform order)", async () => {
    for (const edge of ["acknowledge_order", "refunds", "cancellations", "shipments", "update_shipment"]) {
      const res = await graph("POST", `/wamid.HBgLMTU1NTEyMzAwOTkV/${edge}`, { idempotency_key: "k" })
      expect(res.status, edge).toBe(400)
      expect(res.json.error).toMatchObject({ code: 100, error_subcode: 33 })
    }
  })

  it("payments_refund: pending, then the refund's outcome as a payment status listing it; a key answers once; unknown reference or too much is code 100", async () => {
    const to = "919800005555"
    await customer(to)
    expect((await send(to, orderDetails("ref_refund_1"))).status).toBe(200)
    await waitFor(() => payments().find((s) => s.payment.reference_id === "ref_refund_1" && s.status === "captured"))
    const body = {
      reference_id: "ref_refund_1",
      speed: "normal",
      payment_config_id: "c",
      amount: { value: 10000, offset: 100, currency: "INR" },
      idempotency_key: "k1"
    }
    const first = await graph("POST", `/${PHONE}/payments_refund`, body)
    expect(first.status).toBe(200)
    expect(first.json).toEqual({ id: expect.any(String), status: "pending" })
    // the same key: the same refund, nothing more refunded
    expect((await graph("POST", `/${PHONE}/payments_refund`, body)).json).toEqual(first.json)
    const outcome = await waitFor(() => payments().find((s) => (s.payment.transaction.refunds ?? []).some((r: any) => r.id === first.json.id)))
    expect(outcome.payment.transaction.refunds).toEqual([expect.objectContaining({ id: first.json.id, status: "completed", amount: money(10000) })])
    // an amount ending in 13 fails at the gateway
    const failing = await graph("POST", `/${PHONE}/payments_refund`, {
      ...body,
      amount: { value: 1013, offset: 100, currency: "INR" },
      idempotency_key: "k2"
    })
    const failed = await waitFor(() => payments().find((s) => (s.payment.transaction.refunds ?? []).some((r: any) => r.id === failing.json.id)))
    expect(failed.payment.transaction.refunds[0].status).toBe("failed")
    // more than is left (300.00 − 100.00), or an unknown reference: code 100
    const tooMuch = await graph("POST", `/${PHONE}/payments_refund`, {
      ...body,
      amount: { value: 20001, offset: 100, currency: "INR" },
      idempotency_key: "k3"
    })
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.json.error.code).toBe(100)
    const unknown = await graph("POST", `/${PHONE}/payments_refund`, { ...body, reference_id: "nope", idempotency_key: "k4" })
    expect(unknown.json.error.code).toBe(100)
    expect((await graph("POST", `/${PHONE}/payments_refund`, { reference_id: "ref_refund_1" })).json.error.code).toBe(100)
  })
})
