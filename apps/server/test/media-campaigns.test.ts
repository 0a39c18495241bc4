/**
 * Rich campaigns and media re-upload end to end (issue 32), on both stores, against the
 * emulator over real HTTP: campaign recipients with their own image headers, carousel cards
 * and limited-time offers (checked at ingestion like a single send, frozen with the operator's
 * media ids, one upload per distinct media), and sends whose media the operator no longer
 * keeps: uploaded again once, then sent again once (a single send and a campaign's).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startServer, type CreatedStore, type Harness } from "./harness.js"

/** A 1x1 PNG, and another (one byte of its IDAT differs: still a PNG by its signature). */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex"
)
const PNG_B = Buffer.concat([PNG, Buffer.from("extra")])

const upload = async (h: Harness, key: string, bytes: Buffer, name: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type: "image/png" }), name)
  const res = await fetch(`${h.base}/chat/media`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`rich campaigns and media re-upload (${dialect.name}, emulator, real HTTP)`, { timeout: 120_000 }, () => {
    let h: Harness
    let a: CreatedStore
    let emulator = ""
    let pngA = ""
    let pngB = ""
    const sent = async (): Promise<Array<any>> => ((await (await fetch(`${emulator}/_emulator/messages`)).json()) as any).data
    const mediaUploads = async (): Promise<number> =>
      ((await (await fetch(`${emulator}/_emulator/media/uploads`)).json()) as any).data.filter((u: any) => u.kind === "media").length
    const expire = async (mediaId: string) => {
      const res = await fetch(`${emulator}/_emulator/media/expire`, { method: "POST", body: JSON.stringify({ media_id: mediaId }) })
      expect(res.status).toBe(200)
    }

    /** The MARKETING template `name` (en_US) of `components`, created and waited for until APPROVED. */
    const approved = async (name: string, components: ReadonlyArray<unknown>) => {
      const templateData = { name, category: "MARKETING", language: "en_US", components }
      const created = await h.request("POST", "/chat/templates", a.live_key, { templateData })
      expect(created.status, created.text).toBe(201)
      await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
          return sync.json.data.find((t: any) => t.name === templateData.name && t.status === "APPROVED")
        },
        `${templateData.name} APPROVED`,
        10_000
      )
    }
    const campaign = async (template: Record<string, unknown>) => {
      const res = await h.request("POST", "/chat/campaigns", a.live_key, { name: `c ${template.name}`, template })
      expect(res.status, res.text).toBe(201)
      return res.json.id as string
    }
    const sendsTo = (name: string, prefix: string, n: number) =>
      eventually(
        async () => {
          const all = (await sent()).filter((m) => m.template?.name === name && m.to.startsWith(prefix))
          return all.length === n ? Object.fromEntries(all.map((m) => [m.to, m.template.components])) : undefined
        },
        `${n} sends of ${name}`,
        20_000
      )
    const headerOf = (components: Array<any>) => components.find((c) => c.type === "header")?.parameters[0]

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port) }, { dialect })
      a = h.createStore("Rich campaigns")
      pngA = await upload(h, a.live_key, PNG, "a.png")
      pngB = await upload(h, a.live_key, PNG_B, "b.png")
      await approved("rc_promo", [
        { type: "HEADER", format: "IMAGE", example: { header_media: pngA } },
        { type: "BODY", text: "Hi {{1}}, this one is for you.", example: { body_text: [["Ana"]] } }
      ])
    }, 240_000)
    afterAll(() => h?.stop(), 60_000)

    it("3 recipients with their own image headers (2 distinct media): checked at ingestion, one upload per media, each send with its own header", async () => {
      const id = await campaign({ name: "rc_promo", language: "en_US", parameters: ["friend"] })
      const wrong = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558100001"],
        parameters: { "+15558100001": { header: { type: "video", media_id: pngA } } }
      })
      expect(wrong.status).toBe(400)
      expect(wrong.json.error.details[0].path).toBe("parameters.+15558100001.header.type")
      const unknown = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558100001"],
        parameters: { "+15558100001": { header: { type: "image", media_id: "med_01JAAAAAAAAAAAAAAAAAAAAAAA" } } }
      })
      expect(unknown.status).toBe(400)
      expect(unknown.json.error.details[0].path).toBe("parameters.+15558100001.header.media_id")

      const before = await mediaUploads()
      const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558100001", "+15558100002", "+15558100003"],
        parameters: {
          "+15558100001": { header: { type: "image", media_id: pngA } },
          "+15558100002": { parameters: ["Bo"], header: { type: "image", media_id: pngB } },
          "+15558100003": { header: { type: "image", media_id: pngA } }
        }
      })
      expect(added.status, added.text).toBe(201)
      expect(added.json.added).toBe(3)
      // one upload per distinct media (the template's example went as a handle, not to the number)
      expect(await mediaUploads()).toBe(before + 2)
      // the recipient shows its parameters as given, without the operator's media id
      const listed = await h.request("GET", `/chat/campaigns/${id}/recipients`, a.live_key)
      expect(listed.json.data.find((r: any) => r.phone === "+15558100002").parameters).toEqual({
        parameters: ["Bo"],
        header: { type: "image", media_id: pngB }
      })

      const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, a.live_key)
      expect(launched.status, launched.text).toBe(200)
      const sends = await sendsTo("rc_promo", "155581000", 3)
      const ids = Object.fromEntries(Object.entries(sends).map(([to, c]) => [to, headerOf(c as Array<any>).image.id]))
      expect(ids["15558100001"]).toMatch(/^\d+$/)
      expect(ids["15558100003"]).toBe(ids["15558100001"])
      expect(ids["15558100002"]).not.toBe(ids["15558100001"])
      expect((sends["15558100002"] as Array<any>).find((c) => c.type === "body").parameters).toEqual([{ type: "text", text: "Bo" }])
      expect((sends["15558100001"] as Array<any>).find((c) => c.type === "body").parameters).toEqual([{ type: "text", text: "friend" }])
      expect(await mediaUploads()).toBe(before + 2)
    })

    it("a launch refuses a media-header campaign whose recipient gives no header of its own, naming the field", async () => {
      const id = await campaign({ name: "rc_promo", language: "en_US", parameters: ["friend"] })
      await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558200001", "+15558200002"],
        parameters: { "+15558200001": { header: { type: "image", media_id: pngA } } }
      })
      const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, a.live_key)
      expect(launched.status).toBe(400)
      expect(launched.json.error.details[0].path).toBe("template.header")
      expect(launched.json.error.details[0].message).toMatch(/rcp_/)
    })

    it("a carousel campaign with 2 cards per recipient: each send carries its recipient's cards", async () => {
      const card = (text: string) => ({
        components: [
          { type: "HEADER", format: "IMAGE", example: { header_media: pngA } },
          { type: "BODY", text },
          { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "More like this" }] }
        ]
      })
      await approved("rc_carousel", [
        { type: "BODY", text: "Picks for {{1}} this week", example: { body_text: [["Ana"]] } },
        { type: "CAROUSEL", cards: [card("First pick"), card("Second pick")] }
      ])
      const id = await campaign({ name: "rc_carousel", language: "en_US", parameters: ["you"] })
      const cards = (first: string, payload: string) => [
        { header: { type: "image", media_id: first }, buttons: [{ index: 0, sub_type: "quick_reply", parameter: payload }] },
        { header: { type: "image", link: `https://shop.example.com/${payload}.png` } }
      ]
      const one = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558300001"],
        parameters: { "+15558300001": { cards: cards(pngA, "x").slice(0, 1) } }
      })
      expect(one.status).toBe(400)
      expect(one.json.error.details[0].path).toBe("parameters.+15558300001.cards")
      const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558300001", "+15558300002"],
        parameters: { "+15558300001": { cards: cards(pngA, "aloe") }, "+15558300002": { parameters: ["Bo"], cards: cards(pngB, "cactus") } }
      })
      expect(added.status, added.text).toBe(201)
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, a.live_key)).status).toBe(200)
      const sends = await sendsTo("rc_carousel", "155583000", 2)
      const carousel = (to: string) => (sends[to] as Array<any>).find((c) => c.type === "carousel").cards
      for (const [to, payload] of [
        ["15558300001", "aloe"],
        ["15558300002", "cactus"]
      ]) {
        const c = carousel(to)
        expect(c.map((x: any) => x.card_index)).toEqual([0, 1])
        expect(c[0].components[0].parameters[0].image.id).toMatch(/^\d+$/)
        expect(c[0].components[1]).toEqual({ type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload }] })
        expect(c[1].components[0].parameters[0]).toEqual({ type: "image", image: { link: `https://shop.example.com/${payload}.png` } })
      }
      expect(carousel("15558300001")[0].components[0].parameters[0].image.id).not.toBe(
        carousel("15558300002")[0].components[0].parameters[0].image.id
      )
      expect((sends["15558300002"] as Array<any>).find((c) => c.type === "body").parameters).toEqual([{ type: "text", text: "Bo" }])
    })

    it("a limited-time offer campaign: each recipient's code and expiry", async () => {
      await approved("rc_offer", [
        { type: "HEADER", format: "IMAGE", example: { header_media: pngA } },
        { type: "LIMITED_TIME_OFFER", limited_time_offer: { text: "Expiring offer!", has_expiration: true } },
        { type: "BODY", text: "Good news, {{1}}! Use code {{2}}.", example: { body_text: [["Pablo", "CARIBE25"]] } },
        { type: "BUTTONS", buttons: [{ type: "COPY_CODE", example: "CARIBE25" }] }
      ])
      const id = await campaign({ name: "rc_offer", language: "en_US", parameters: ["friend", "-"], header: { type: "image", media_id: pngA } })
      const offer = (name: string, code: string, at: number) => ({
        parameters: [name, code],
        buttons: [{ index: 0, sub_type: "copy_code", parameter: code }],
        limited_time_offer: { expiration_time_ms: at }
      })
      const noCode = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558400001"],
        parameters: { "+15558400001": { parameters: ["Ana", "ANA10"], limited_time_offer: { expiration_time_ms: 1_900_000_000_000 } } }
      })
      expect(noCode.status).toBe(400)
      expect(noCode.json.error.details[0].path).toBe("parameters.+15558400001.buttons")
      const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558400001", "+15558400002"],
        parameters: { "+15558400001": offer("Ana", "ANA10", 1_900_000_000_000), "+15558400002": offer("Bo", "BO20", 1_900_000_500_000) }
      })
      expect(added.status, added.text).toBe(201)
      const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, a.live_key)
      expect(launched.status, launched.text).toBe(200)
      const sends = await sendsTo("rc_offer", "155584000", 2)
      for (const [to, code, at] of [
        ["15558400001", "ANA10", 1_900_000_000_000],
        ["15558400002", "BO20", 1_900_000_500_000]
      ] as const) {
        const components = sends[to] as Array<any>
        expect(components).toContainEqual({
          type: "limited_time_offer",
          parameters: [{ type: "limited_time_offer", limited_time_offer: { expiration_time_ms: at } }]
        })
        expect(components).toContainEqual({
          type: "button",
          sub_type: "copy_code",
          index: "0",
          parameters: [{ type: "coupon_code", coupon_code: code }]
        })
        expect(headerOf(components).image.id).toMatch(/^\d+$/)
      }
    })

    it("a single send whose media expired at the operator: one re-upload, one accepted send", async () => {
      const first = await h.request("POST", "/chat/messages", a.live_key, {
        to: "+15558500001",
        type: "template",
        template: { name: "rc_promo", language: "en_US", parameters: ["Ana"], header: { type: "image", media_id: pngA } }
      })
      expect(first.status, first.text).toBe(201)
      const oldId = headerOf((await sendsTo("rc_promo", "15558500001", 1))["15558500001"] as Array<any>).image.id
      await expire(oldId)
      const before = await mediaUploads()
      const res = await h.request("POST", "/chat/messages", a.live_key, {
        to: "+15558500002",
        type: "template",
        template: { name: "rc_promo", language: "en_US", parameters: ["Bo"], header: { type: "image", media_id: pngA } }
      })
      expect(res.status, res.text).toBe(201)
      expect(res.json.status).toBe("accepted")
      expect(await mediaUploads()).toBe(before + 1)
      const again = (await sent()).filter((m) => m.to === "15558500002")
      expect(again).toHaveLength(1)
      const newId = headerOf(again[0].template.components).image.id
      expect(newId).toMatch(/^\d+$/)
      expect(newId).not.toBe(oldId)
    })

    it("a campaign whose frozen media expired before its sends: one re-upload for both recipients, each sent once", async () => {
      const id = await campaign({ name: "rc_promo", language: "en_US", parameters: ["friend"] })
      const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.live_key, {
        phones: ["+15558600001", "+15558600002"],
        parameters: {
          "+15558600001": { header: { type: "image", media_id: pngB } },
          "+15558600002": { header: { type: "image", media_id: pngB } }
        }
      })
      expect(added.status, added.text).toBe(201)
      // the copy frozen with the recipients: pngB's on the number
      const frozen = headerOf(Object.values(await sendsTo("rc_promo", "15558100002", 1))[0] as Array<any>).image.id
      await expire(frozen)
      const before = await mediaUploads()
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, a.live_key)).status).toBe(200)
      const sends = await sendsTo("rc_promo", "155586000", 2)
      const ids = Object.values(sends).map((c) => headerOf(c as Array<any>).image.id)
      expect(ids[0]).toBe(ids[1])
      expect(ids[0]).not.toBe(frozen)
      expect(await mediaUploads()).toBe(before + 1)
      // both taken by the operator on the second try
      let last: unknown
      await eventually(
        async () => {
          const listed = (await h.request("GET", `/chat/campaigns/${id}/recipients`, a.live_key)).json.data as Array<any>
          last = listed
          // taken by the operator (its message id); a later status report may still fail one (the emulator's simulated opt-outs), never for its media
          return listed.every((r) => r.operator_message_id !== null && ![131009, 131053].includes(r.failure?.code)) ? listed : undefined
        },
        "both recipients accepted",
        20_000
      ).catch((e) => {
        throw new Error(`${e}: ${JSON.stringify(last)}`)
      })
      expect((await sent()).filter((m) => m.to.startsWith("155586000"))).toHaveLength(2)
    })
  })
