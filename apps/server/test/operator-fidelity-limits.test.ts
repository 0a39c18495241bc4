/**
 * The operator's limits on interactive messages, end to end on both stores (issue 28, item 5):
 * our API answers 400 `validation_failed` naming the field before anything is recorded or
 * sent — a flow button text over 30 characters, a call button's `ttl_minutes` outside 1 to
 * 43,200, a `product_list` without its text header, with more than 10 sections or 30
 * products, a `product` without its product — and what only the operator can know (the
 * catalog is connected, the product exists) comes back as the operator's refusal 131009
 * from the strict emulator (422 `operator_rejected`), the message recorded as failed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"

const section = (n: number, from = 0) => ({
  title: `Section ${from}`,
  product_items: Array.from({ length: n }, (_, i) => ({ product_retailer_id: `SKU-${from + i}` }))
})
const productList = (sections: ReadonlyArray<unknown>, header: unknown = { type: "text", text: "Our picks" }) => ({
  type: "product_list",
  ...(header === null ? {} : { header }),
  body: { text: "Pick one" },
  action: { catalog_id: "123456789", sections }
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`interactive limits before the operator (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let shop: CreatedStore
    const customer = "+15557771001"

    beforeAll(async () => {
      h = await startServer({}, { dialect })
      shop = h.createStore("Limits shop")
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", shop.test_key, { from: customer, text: "hi" })).status).toBe(202)
    })
    afterAll(() => h?.stop())

    const sendInteractive = (interactive: Record<string, unknown>) =>
      h.request("POST", "/chat/messages", shop.test_key, { to: customer, type: "interactive", interactive })
    const messageCount = async () => Number((await h.query<{ n: number }>("SELECT count(*) AS n FROM messages"))[0].n)
    const refusedNaming = async (answer: { status: number; json: any }, path: string) => {
      expect(answer.status, JSON.stringify(answer.json)).toBe(400)
      expect(answer.json.error.code).toBe("validation_failed")
      expect(answer.json.error.details.map((d: { path: string }) => d.path)).toContain(path)
    }

    it("a flow message's button text over 30 characters is a 400 naming flow.cta; nothing is recorded", async () => {
      const before = await messageCount()
      const answer = await h.request("POST", "/chat/messages", shop.test_key, {
        to: customer,
        type: "flow",
        flow: { id: "flw_unknown", cta: "x".repeat(31), body: "Book a table" }
      })
      await refusedNaming(answer, "flow.cta")
      const raw = await sendInteractive({
        type: "flow",
        body: { text: "Book" },
        action: { name: "flow", parameters: { flow_message_version: "3", flow_id: "1", flow_cta: "y".repeat(40) } }
      })
      await refusedNaming(raw, "interactive.action.parameters.flow_cta")
      expect(await messageCount()).toBe(before)
    })

    it("a call button's ttl_minutes outside 1..43200 is a 400 naming it, on the call button route and as a raw interactive", async () => {
      const button = await h.request("POST", "/chat/calls/button", shop.test_key, { phone: customer, ttl_minutes: 50_000 })
      expect(button.status).toBe(400)
      expect(button.json.error.code).toBe("validation_failed")
      expect(JSON.stringify(button.json.error)).toContain("ttl_minutes")
      for (const ttl of [0, 43_201, 50_000, 2.5]) {
        const raw = await sendInteractive({
          type: "voice_call",
          body: { text: "Call us" },
          action: { name: "voice_call", parameters: { ttl_minutes: ttl } }
        })
        await refusedNaming(raw, "interactive.action.parameters.ttl_minutes")
      }
      const ok = await sendInteractive({
        type: "voice_call",
        body: { text: "Call us" },
        action: { name: "voice_call", parameters: { ttl_minutes: 43_200 } }
      })
      expect(ok.status).toBe(201)
    })

    it("a product_list needs its text header, 1 to 10 sections and at most 30 products; a product needs its product", async () => {
      const before = await messageCount()
      await refusedNaming(await sendInteractive(productList([section(1)], null)), "interactive.header")
      await refusedNaming(
        await sendInteractive(productList([section(1)], { type: "image", image: { link: "https://x.example/a.png" } })),
        "interactive.header"
      )
      const eleven = Array.from({ length: 11 }, (_, i) => section(1, i))
      await refusedNaming(await sendInteractive(productList(eleven)), "interactive.action.sections")
      await refusedNaming(await sendInteractive(productList([section(16, 0), section(15, 16)])), "interactive.action.sections")
      await refusedNaming(await sendInteractive(productList([])), "interactive.action.sections")
      await refusedNaming(
        await sendInteractive(productList([{ title: "A", product_items: [{}] }])),
        "interactive.action.sections.0.product_items.0.product_retailer_id"
      )
      await refusedNaming(
        await sendInteractive({ type: "product", body: { text: "Look" }, action: { catalog_id: "123456789" } }),
        "interactive.action.product_retailer_id"
      )
      expect(await messageCount()).toBe(before)
    })

    it("what only the operator knows comes back as its refusal 131009: a catalog not connected, a product not in the catalog", async () => {
      const stranger = await sendInteractive({
        type: "product",
        body: { text: "Look" },
        action: { catalog_id: "123456789", product_retailer_id: "SKU-1" }
      })
      expect(stranger.status, JSON.stringify(stranger.json)).toBe(422)
      expect(stranger.json.error).toMatchObject({ code: "operator_rejected", details: { operator_code: 131009 } })

      const catalog = await h.request("POST", "/chat/catalogs", shop.test_key, { name: "Spring" })
      expect(catalog.status).toBe(201)
      const unknownProduct = await sendInteractive({
        type: "product",
        body: { text: "Look" },
        action: { catalog_id: catalog.json.operator_catalog_id, product_retailer_id: "NOT-THERE" }
      })
      expect(unknownProduct.status).toBe(422)
      expect(unknownProduct.json.error.details.operator_code).toBe(131009)
      const list = await sendInteractive({
        ...productList([section(30)]),
        action: { catalog_id: catalog.json.operator_catalog_id, sections: [section(30)] }
      })
      expect(list.status).toBe(422)
      expect(list.json.error.details.operator_code).toBe(131009)
      const failed = await h.query<{ status: string }>("SELECT status FROM messages WHERE type = 'interactive' AND status = 'failed'")
      expect(failed.length).toBeGreaterThanOrEqual(3)
    })
  })
