/**
 * The caller events that were missing (issue "Hardening III", defect 12), on SQLite and
 * PostgreSQL over real HTTP with the emulator, each delivered signed to a loopback receiver
 * subscribed to it: `flow.published` and `flow.deprecated` (also when publishing a new
 * version deprecates its predecessor), `shipment.updated` (a shipment's tracking changed)
 * and `call_permission.updated` (every status change the customer's reply reports, a decline
 * of a customer who had no permission included).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { placedOrder } from "./fixtures/commerce.js"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

const EVENTS = ["flow.published", "flow.deprecated", "shipment.updated", "call_permission.updated"]

const signUp = {
  screens: [
    {
      id: "SIGN_UP",
      title: "Sign up",
      layout: {
        type: "SingleColumnLayout",
        children: [
          { type: "TextInput", name: "email", label: "Email" },
          { type: "Footer", label: "Join", "on-click-action": { name: "complete", payload: { email: `$\{form.email}` } } }
        ]
      }
    }
  ]
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`caller events of flows, shipments and call permissions (${dialect.name})`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let other: Awaited<ReturnType<typeof startReceiver>>

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      other = await startReceiver()
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events: EVENTS })
      expect(hook.status, hook.text).toBe(201)
      expect(hook.json.events).toEqual(EVENTS)
      // another store's endpoint hears nothing of store A
      expect((await h.request("POST", "/chat/webhooks", b.test_key, { url: other.url, events: EVENTS })).status).toBe(201)
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
      receiver?.server.close()
      other?.server.close()
    })

    const events = (type: string) =>
      receiver.received.map((r) => ({ headers: r.headers, ...JSON.parse(r.body) })).filter((e) => e.type === type) as Array<any>
    const delivered = (type: string, match: (data: any) => boolean, label: string) =>
      eventually(async () => events(type).find((e) => match(e.data)), label, 15_000)
    const signed = (e: any) => {
      expect(typeof e.headers["webhook-id"]).toBe("string")
      expect(e.headers["webhook-signature"]).toMatch(/^v1,/)
    }

    it("flow.published and flow.deprecated: on publish, on deprecate, and for the predecessor a new version replaces", async () => {
      const flow = await h.request("POST", "/chat/flows", a.test_key, { name: "Sign up", categories: ["SIGN_UP"] })
      expect(flow.status, flow.text).toBe(201)
      const v1 = flow.json.id
      expect((await h.request("PUT", `/chat/flows/${v1}/json`, a.test_key, { json: signUp, autoFix: true })).status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${v1}/publish`, a.test_key)).status).toBe(200)
      const published = await delivered("flow.published", (d) => d.flow_id === v1, "flow.published of version 1")
      signed(published)
      expect(published.data).toMatchObject({ flow_id: v1, name: "Sign up", version: 1, previous_status: "DRAFT", status: "PUBLISHED" })

      const v2 = (await h.request("POST", `/chat/flows/${v1}/versions`, a.test_key)).json.id
      expect((await h.request("POST", `/chat/flows/${v2}/publish`, a.test_key)).status).toBe(200)
      await delivered("flow.published", (d) => d.flow_id === v2, "flow.published of version 2")
      const replaced = await delivered("flow.deprecated", (d) => d.flow_id === v1, "flow.deprecated of version 1")
      expect(replaced.data).toMatchObject({ flow_id: v1, version: 1, previous_status: "PUBLISHED", status: "DEPRECATED", replaced_by: v2 })

      expect((await h.request("POST", `/chat/flows/${v2}/deprecate`, a.test_key)).status).toBe(200)
      const deprecated = await delivered("flow.deprecated", (d) => d.flow_id === v2, "flow.deprecated of version 2")
      signed(deprecated)
      expect(deprecated.data).toMatchObject({ flow_id: v2, version: 2, previous_version_id: v1, status: "DEPRECATED", replaced_by: null })
      // a refused deprecation emits nothing
      expect((await h.request("POST", `/chat/flows/${v2}/deprecate`, a.test_key)).status).toBe(409)
      expect(events("flow.deprecated").filter((e) => e.data.flow_id === v2)).toHaveLength(1)
    }, 60_000)

    it("shipment.updated: a change of a shipment's tracking, with the shipment and its previous tracking", async () => {
      const catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Shirts" })).json.id
      const product = await h.request("POST", `/chat/catalogs/${catalog}/products`, a.test_key, {
        retailer_id: "SKU-A",
        name: "Shirt",
        price: 4900,
        currency: "USD",
        image_url: "https://img.example.com/a.jpg"
      })
      expect(product.status, product.text).toBe(201)
      const order = await placedOrder(h, a.test_key, "+15551237001", catalog, [{ retailer_id: "SKU-A", quantity: 2 }])
      expect((await h.request("POST", `/chat/orders/${order}/acknowledge`, a.test_key, { idempotency_key: "ack" })).status).toBe(200)
      const shipped = await h.request("POST", `/chat/orders/${order}/shipments`, a.test_key, {
        items: [{ retailer_id: "SKU-A", quantity: 1 }],
        tracking: { carrier: "UPS", tracking_number: "1Z1" }
      })
      expect(shipped.status, shipped.text).toBe(201)
      const shipment = shipped.json.id

      const patched = await h.request("PATCH", `/chat/orders/${order}/shipments/${shipment}`, a.test_key, {
        tracking: { carrier: "DHL", tracking_number: "JD014600", tracking_url: "https://track.example.com/JD014600" }
      })
      expect(patched.status, patched.text).toBe(200)
      const updated = await delivered("shipment.updated", (d) => d.id === shipment, "shipment.updated")
      signed(updated)
      expect(updated.data).toMatchObject({
        id: shipment,
        order_id: order,
        items: [expect.objectContaining({ retailer_id: "SKU-A", quantity: 1 })],
        tracking: { carrier: "DHL", tracking_number: "JD014600", tracking_url: "https://track.example.com/JD014600" },
        previous_tracking: { carrier: "UPS", tracking_number: "1Z1", tracking_url: null }
      })
      // the same tracking again changes nothing and sends nothing; creating a shipment is order.shipped, not this
      const same = await h.request("PATCH", `/chat/orders/${order}/shipments/${shipment}`, a.test_key, {
        tracking: { carrier: "DHL", tracking_number: "JD014600", tracking_url: "https://track.example.com/JD014600" }
      })
      expect(same.status).toBe(200)
      const next = await h.request("PATCH", `/chat/orders/${order}/shipments/${shipment}`, a.test_key, {
        tracking: { carrier: "DHL", tracking_number: "JD014601" }
      })
      expect(next.status).toBe(200)
      await delivered("shipment.updated", (d) => d.tracking.tracking_number === "JD014601", "the second change")
      expect(events("shipment.updated").map((e) => e.data.tracking.tracking_number)).toEqual(["JD014600", "JD014601"])
    }, 60_000)

    it("call_permission.updated: a decline (also of a customer who had none), a grant, and a grant withdrawn, each with the new status", async () => {
      const phone = "+15551237101"
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: phone, text: "hi" })).status).toBe(202)
      expect((await h.request("POST", "/chat/calls/permissions", a.test_key, { phone })).status).toBe(202)
      const reply = (response: "accept" | "reject") => h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone, response })
      const ofPhone = () => events("call_permission.updated").filter((e) => e.data.phone === phone)

      expect((await reply("reject")).status).toBe(202)
      const declined = await delivered("call_permission.updated", (d) => d.phone === phone, "the first decline")
      signed(declined)
      expect(declined.data).toMatchObject({
        phone,
        status: "no_permission",
        previous_status: "no_permission",
        change: "declined",
        source: "reply_reject",
        can_start_call: false
      })
      expect(declined.data.reply_message_id).toMatch(/^wamid\./)

      expect((await reply("accept")).status).toBe(202)
      await eventually(async () => ofPhone().length === 2, "the grant", 15_000)
      expect(ofPhone()[1].data).toMatchObject({ status: "temporary", previous_status: "no_permission", change: "granted", can_start_call: true })

      expect((await reply("reject")).status).toBe(202)
      await eventually(async () => ofPhone().length === 3, "the grant withdrawn", 15_000)
      expect(ofPhone()[2].data).toMatchObject({ status: "no_permission", previous_status: "temporary", change: "declined", expires_at: null })
      expect((await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.test_key)).json.status).toBe("no_permission")

      // the live side reads its permission (refreshed from the operator) and emits nothing to the test side
      const live = await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.live_key)
      expect(live.status, live.text).toBe(200)
      expect(ofPhone()).toHaveLength(3)

      // store B's endpoint heard none of store A's events
      expect(other.received).toHaveLength(0)
    }, 60_000)
  })
