/**
 * Media and rich templates end to end (issue 32), on both stores, against the emulator over
 * real HTTP: uploads checked by their bytes, another store's media unknown, templates with
 * media headers created from uploaded files (the emulator holds the example handle), sends
 * with header media (the operator's media id, uploaded once per number), a campaign that
 * freezes its header, named parameters, carousels, limited-time offers and catalog buttons
 * (media expired at the operator: `media-campaigns.test.ts`);
 * the emulator's record shows each send's components exactly as sent.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startServer, type CreatedStore, type Harness } from "./harness.js"

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex"
)
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

const upload = async (h: Harness, key: string, bytes: Buffer, name: string, type: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type }), name)
  const res = await fetch(`${h.base}/chat/media`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  return { status: res.status, json: (await res.json()) as any }
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`media and rich templates (${dialect.name}, emulator, real HTTP)`, { timeout: 120_000 }, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let png = ""
    let pdf = ""
    let sent: () => Promise<Array<any>>
    let emulator = ""

    const approved = async (templateData: unknown) => {
      const created = await h.request("POST", "/chat/templates", a.live_key, { templateData })
      expect(created.status, created.text).toBe(201)
      const name = (templateData as { name: string }).name
      await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
          return sync.json.data.find((t: any) => t.name === name && t.status === "APPROVED")
        },
        `${name} APPROVED`,
        10_000
      )
      return created.json
    }
    /** Each send to a number of its own: the operator limits how often one customer is messaged (131056). */
    let sends = 100
    const sendTemplate = async (template: Record<string, unknown>, to = `+1555124${String(sends++).padStart(4, "0")}`) => {
      const res = await h.request("POST", "/chat/messages", a.live_key, { to, type: "template", template })
      return res
    }
    const lastSend = async (name: string) => (await sent()).filter((m) => m.template?.name === name).at(-1)

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port) }, { dialect })
      a = h.createStore("Media A")
      b = h.createStore("Media B")
      sent = async () => ((await (await fetch(`${emulator}/_emulator/messages`)).json()) as any).data
    }, 240_000)
    afterAll(() => h?.stop(), 60_000)

    it("uploads a PNG and a PDF: 201 with the type, size and sha256; GET answers it; another store's is 404", async () => {
      const image = await upload(h, a.live_key, PNG, "logo.png", "image/png")
      expect(image.status).toBe(201)
      expect(Object.keys(image.json).sort()).toEqual(["created_at", "id", "mime_type", "sha256", "size"])
      expect(image.json).toMatchObject({ mime_type: "image/png", size: PNG.length })
      expect(image.json.sha256).toBe(createHash("sha256").update(PNG).digest("hex"))
      png = image.json.id
      expect(png).toMatch(/^med_/)
      const doc = await upload(h, a.live_key, PDF, "receipt.pdf", "application/octet-stream")
      expect(doc.status).toBe(201)
      expect(doc.json.mime_type).toBe("application/pdf")
      pdf = doc.json.id
      expect((await h.request("GET", `/chat/media/${png}`, a.live_key)).json).toEqual(image.json)
      expect((await h.request("GET", `/chat/media/${png}`, a.test_key)).status).toBe(200)
      const other = await h.request("GET", `/chat/media/${png}`, b.live_key)
      expect(other.status).toBe(404)
      expect(other.json.error.code).toBe("resource_not_found")
      expect((await h.request("DELETE", `/chat/media/${png}`, b.live_key)).status).toBe(404)
    })

    it("a text file sent as an image is a 400 naming file; an unsupported type too; an oversized PNG too", async () => {
      const text = await upload(h, a.live_key, Buffer.from("just some text, not a picture\n"), "cat.png", "image/png")
      expect(text.status).toBe(400)
      expect(text.json.error.code).toBe("validation_failed")
      expect(text.json.error.details).toEqual([expect.objectContaining({ path: "file" })])
      const gif = await upload(h, a.live_key, Buffer.from("GIF89a......"), "a.gif", "image/gif")
      expect(gif.status).toBe(400)
      expect(gif.json.error.details[0].path).toBe("file")
      const big = await upload(h, a.live_key, Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]), "big.png", "image/png")
      expect(big.status).toBe(400)
      expect(big.json.error.details[0].message).toMatch(/5242880 bytes/)
    })

    it("DELETE removes a media: then 404", async () => {
      const extra = await upload(h, a.live_key, PNG, "x.png", "image/png")
      expect((await h.request("DELETE", `/chat/media/${extra.json.id}`, a.live_key)).json).toEqual({ id: extra.json.id, deleted: true })
      expect((await h.request("GET", `/chat/media/${extra.json.id}`, a.live_key)).status).toBe(404)
    })

    it("an IMAGE-header marketing template from the uploaded PNG is approved and sent in a 20-recipient campaign; the emulator saw each header image", async () => {
      const wrong = await h.request("POST", "/chat/templates", a.live_key, {
        templateData: {
          name: "promo_wrong",
          category: "MARKETING",
          language: "en_US",
          components: [
            { type: "HEADER", format: "VIDEO", example: { header_media: png } },
            { type: "BODY", text: "New arrivals are in store" }
          ]
        }
      })
      expect(wrong.status).toBe(400)
      expect(wrong.json.error.details[0].path).toBe("templateData.components[0].example.header_media")
      const template = await approved({
        name: "spring_promo",
        category: "MARKETING",
        language: "en_US",
        components: [
          { type: "HEADER", format: "IMAGE", example: { header_media: png } },
          { type: "BODY", text: "Hi {{1}}, our spring collection is here.", example: { body_text: [["Ana"]] } }
        ]
      })
      expect(template.components[0].example).toEqual({ header_media: png })
      const missing = await sendTemplate({ name: "spring_promo", language: "en_US", parameters: ["Ana"] })
      expect(missing.status).toBe(400)
      expect(missing.json.error.details[0].path).toBe("template.header")
      const campaign = await h.request("POST", "/chat/campaigns", a.live_key, {
        name: "Spring",
        template: { name: "spring_promo", language: "en_US", parameters: ["friend"], header: { type: "image", media_id: png } }
      })
      expect(campaign.status, campaign.text).toBe(201)
      expect(campaign.json.template.header).toEqual({ type: "image", media_id: png })
      const phones = Array.from({ length: 20 }, (_, i) => `+1555700${String(i).padStart(4, "0")}`)
      expect((await h.request("POST", `/chat/campaigns/${campaign.json.id}/recipients`, a.live_key, { phones })).status).toBe(201)
      const launched = await h.request("POST", `/chat/campaigns/${campaign.json.id}/launch`, a.live_key)
      expect(launched.status, launched.text).toBe(200)
      const sends = await eventually(
        async () => {
          const all = (await sent()).filter((m) => m.template?.name === "spring_promo")
          return all.length === 20 ? all : undefined
        },
        "20 sends",
        20_000
      )
      const ids = new Set<string>()
      for (const m of sends) {
        const header = m.template.components.find((c: any) => c.type === "header")
        expect(header.parameters[0].type).toBe("image")
        ids.add(header.parameters[0].image.id)
      }
      // one upload of the PNG to the sender number, its media id in every send
      expect(ids.size).toBe(1)
      expect([...ids][0]).toMatch(/^\d+$/)
    })

    it("a DOCUMENT-header receipt goes with the PDF and its file name", async () => {
      await approved({
        name: "receipt_doc",
        category: "UTILITY",
        language: "en_US",
        components: [
          { type: "HEADER", format: "DOCUMENT", example: { header_media: pdf } },
          { type: "BODY", text: "Your receipt for order {{1}} is attached.", example: { body_text: [["A-1"]] } }
        ]
      })
      const asImage = await sendTemplate({ name: "receipt_doc", language: "en_US", parameters: ["A-7"], header: { type: "document", media_id: png } })
      expect(asImage.status).toBe(400)
      expect(asImage.json.error.details[0].path).toBe("template.header.media_id")
      const res = await sendTemplate({
        name: "receipt_doc",
        language: "en_US",
        parameters: ["A-7"],
        header: { type: "document", media_id: pdf, filename: "receipt-A-7.pdf" }
      })
      expect(res.status, res.text).toBe(201)
      const m = await lastSend("receipt_doc")
      expect(m.template.components[0]).toEqual({
        type: "header",
        parameters: [{ type: "document", document: { id: expect.stringMatching(/^\d+$/), filename: "receipt-A-7.pdf" } }]
      })
    })

    it("a NAMED template is filled by name, in a send and in a campaign's recipients", async () => {
      await approved({
        name: "named_hello",
        category: "UTILITY",
        language: "en_US",
        parameter_format: "NAMED",
        components: [
          {
            type: "BODY",
            text: "Hello {{first_name}}, your order {{order_id}} is ready.",
            example: {
              body_text_named_params: [
                { param_name: "first_name", example: "Ana" },
                { param_name: "order_id", example: "A-1" }
              ]
            }
          }
        ]
      })
      const wrong = await sendTemplate({ name: "named_hello", language: "en_US", parameters: ["Ana", "A-1"] })
      expect(wrong.status).toBe(400)
      const res = await sendTemplate({ name: "named_hello", language: "en_US", parameters: { first_name: "Ana", order_id: "A-9" } })
      expect(res.status, res.text).toBe(201)
      expect((await lastSend("named_hello")).template.components).toEqual([
        {
          type: "body",
          parameters: [
            { type: "text", parameter_name: "first_name", text: "Ana" },
            { type: "text", parameter_name: "order_id", text: "A-9" }
          ]
        }
      ])
      const campaign = await h.request("POST", "/chat/campaigns", a.live_key, {
        name: "Named",
        template: { name: "named_hello", language: "en_US", parameters: { first_name: "there", order_id: "-" } }
      })
      expect(campaign.status, campaign.text).toBe(201)
      const bad = await h.request("POST", `/chat/campaigns/${campaign.json.id}/recipients`, a.live_key, {
        phones: ["+15557100001"],
        parameters: { "+15557100001": ["Bo", "B-1"] }
      })
      expect(bad.status).toBe(400)
      expect(bad.json.error.details[0].path).toBe("parameters.+15557100001")
      const added = await h.request("POST", `/chat/campaigns/${campaign.json.id}/recipients`, a.live_key, {
        phones: ["+15557100001", "+15557100002"],
        parameters: { "+15557100001": { first_name: "Bo", order_id: "B-1" } }
      })
      expect(added.status, added.text).toBe(201)
      expect((await h.request("POST", `/chat/campaigns/${campaign.json.id}/launch`, a.live_key)).status).toBe(200)
      const sends = await eventually(
        async () => {
          const all = (await sent()).filter((m) => m.template?.name === "named_hello" && m.to.startsWith("15557100"))
          return all.length === 2 ? all : undefined
        },
        "2 named sends",
        20_000
      )
      const byPhone = Object.fromEntries(
        sends.map((m) => [m.to, m.template.components[0].parameters.map((p: any) => `${p.parameter_name}=${p.text}`)])
      )
      expect(byPhone).toEqual({ "15557100001": ["first_name=Bo", "order_id=B-1"], "15557100002": ["first_name=there", "order_id=-"] })
    })

    it("a two-card carousel is created from uploaded images and sent with each card's parameters", async () => {
      const card = (text: string) => ({
        components: [
          { type: "HEADER", format: "IMAGE", example: { header_media: png } },
          { type: "BODY", text },
          { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "More like this" }] }
        ]
      })
      const mismatched = await h.request("POST", "/chat/templates", a.live_key, {
        templateData: {
          name: "carousel_bad",
          category: "MARKETING",
          language: "en_US",
          components: [
            { type: "BODY", text: "Rare plants for you" },
            { type: "CAROUSEL", cards: [card("Aloe"), { components: [...card("Cactus").components.slice(0, 2)] }] }
          ]
        }
      })
      expect(mismatched.status).toBe(400)
      await approved({
        name: "plant_carousel",
        category: "MARKETING",
        language: "en_US",
        components: [
          { type: "BODY", text: "Rare plants for {{1}} this week", example: { body_text: [["Ana"]] } },
          { type: "CAROUSEL", cards: [card("The Aloe Blue Elf"), card("The Crassula Buddha's Temple")] }
        ]
      })
      const one = await sendTemplate({
        name: "plant_carousel",
        language: "en_US",
        parameters: ["Ana"],
        cards: [{ header: { type: "image", media_id: png } }]
      })
      expect(one.status).toBe(400)
      expect(one.json.error.details[0].path).toBe("template.cards")
      const res = await sendTemplate({
        name: "plant_carousel",
        language: "en_US",
        parameters: ["Ana"],
        cards: [
          { header: { type: "image", media_id: png }, buttons: [{ index: 0, sub_type: "quick_reply", parameter: "aloe" }] },
          { header: { type: "image", link: "https://shop.example.com/crassula.png" } }
        ]
      })
      expect(res.status, res.text).toBe(201)
      const carousel = (await lastSend("plant_carousel")).template.components.find((c: any) => c.type === "carousel")
      expect(carousel.cards.map((c: any) => c.card_index)).toEqual([0, 1])
      expect(carousel.cards[0].components[0].parameters[0].image.id).toMatch(/^\d+$/)
      expect(carousel.cards[0].components[1]).toEqual({
        type: "button",
        sub_type: "quick_reply",
        index: "0",
        parameters: [{ type: "payload", payload: "aloe" }]
      })
      expect(carousel.cards[1].components[0].parameters[0]).toEqual({ type: "image", image: { link: "https://shop.example.com/crassula.png" } })
    })

    it("a limited-time offer goes with its code and expiry", async () => {
      await approved({
        name: "caribbean_offer",
        category: "MARKETING",
        language: "en_US",
        components: [
          { type: "HEADER", format: "IMAGE", example: { header_media: png } },
          { type: "LIMITED_TIME_OFFER", limited_time_offer: { text: "Expiring offer!", has_expiration: true } },
          { type: "BODY", text: "Good news, {{1}}! Use code {{2}} for 25% off.", example: { body_text: [["Pablo", "CARIBE25"]] } },
          { type: "BUTTONS", buttons: [{ type: "COPY_CODE", example: "CARIBE25" }] }
        ]
      })
      const noExpiry = await sendTemplate({
        name: "caribbean_offer",
        language: "en_US",
        parameters: ["Ana", "CARIBE25"],
        header: { type: "image", media_id: png },
        buttons: [{ index: 0, sub_type: "copy_code", parameter: "CARIBE25" }]
      })
      expect(noExpiry.status).toBe(400)
      expect(noExpiry.json.error.details[0].path).toBe("template.limited_time_offer")
      const res = await sendTemplate({
        name: "caribbean_offer",
        language: "en_US",
        parameters: ["Ana", "CARIBE25"],
        header: { type: "image", media_id: png },
        buttons: [{ index: 0, sub_type: "copy_code", parameter: "CARIBE25" }],
        limited_time_offer: { expiration_time_ms: 1_900_000_000_000 }
      })
      expect(res.status, res.text).toBe(201)
      const components = (await lastSend("caribbean_offer")).template.components
      expect(components).toContainEqual({
        type: "limited_time_offer",
        parameters: [{ type: "limited_time_offer", limited_time_offer: { expiration_time_ms: 1_900_000_000_000 } }]
      })
      expect(components).toContainEqual({
        type: "button",
        sub_type: "copy_code",
        index: "0",
        parameters: [{ type: "coupon_code", coupon_code: "CARIBE25" }]
      })
    })

    it("a template with a catalog button, and one with a multi-product button", async () => {
      await approved({
        name: "shop_catalog",
        category: "MARKETING",
        language: "en_US",
        components: [
          { type: "BODY", text: "Browse our new catalog, {{1}}!", example: { body_text: [["Ana"]] } },
          { type: "BUTTONS", buttons: [{ type: "CATALOG", text: "View catalog" }] }
        ]
      })
      const res = await sendTemplate({
        name: "shop_catalog",
        language: "en_US",
        parameters: ["Ana"],
        buttons: [{ index: 0, sub_type: "catalog", parameter: "sku-1" }]
      })
      expect(res.status, res.text).toBe(201)
      expect((await lastSend("shop_catalog")).template.components).toContainEqual({
        type: "button",
        sub_type: "catalog",
        index: "0",
        parameters: [{ type: "action", action: { thumbnail_product_retailer_id: "sku-1" } }]
      })
      await approved({
        name: "shop_picks",
        category: "MARKETING",
        language: "en_US",
        components: [
          { type: "BODY", text: "Our picks for you, {{1}}, this week", example: { body_text: [["Ana"]] } },
          { type: "BUTTONS", buttons: [{ type: "MPM", text: "View items" }] }
        ]
      })
      const noSections = await sendTemplate({
        name: "shop_picks",
        language: "en_US",
        parameters: ["Ana"],
        buttons: [{ index: 0, sub_type: "mpm", parameter: "sku-1" }]
      })
      expect(noSections.status).toBe(400)
      const picks = await sendTemplate({
        name: "shop_picks",
        language: "en_US",
        parameters: ["Ana"],
        buttons: [{ index: 0, sub_type: "mpm", parameter: "sku-1", sections: [{ title: "New", product_retailer_ids: ["sku-1", "sku-2"] }] }]
      })
      expect(picks.status, picks.text).toBe(201)
      const mpm = (await lastSend("shop_picks")).template.components.find((c: any) => c.type === "button")
      expect(mpm.parameters[0].action.sections).toEqual([
        { title: "New", product_items: [{ product_retailer_id: "sku-1" }, { product_retailer_id: "sku-2" }] }
      ])
    })
  })
