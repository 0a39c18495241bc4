/**
 * Commerce settings end to end (spec §4.7, issue 12 item 7), on SQLite and PostgreSQL over
 * real HTTP with the emulator: a read before any change shows the operator's switches; a
 * change reaches the operator's `whatsapp_commerce_settings` of the key's phone number (read
 * back from the emulator's state file) and is recorded per store and mode; bad input is a
 * 400 that names the field.
 */
import { existsSync, readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, type CreatedStore, type Harness, withStores } from "./harness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`commerce settings end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
    afterAll(() => h?.stop())

    /** The commerce settings the emulator keeps for each phone number. */
    const operatorSettings = (): Array<{ id: string; commerce?: { isCartEnabled: boolean; isCatalogVisible: boolean } }> =>
      existsSync(h.env.SWITCHBOARD_EMULATOR_STATE) ? JSON.parse(readFileSync(h.env.SWITCHBOARD_EMULATOR_STATE, "utf8")).accounts.phoneNumbers : []

    it("before any change: the operator's defaults (cart on, catalog hidden), no country or currency", async () => {
      const res = await h.request("GET", "/chat/commerce/settings", a.live_key)
      expect(res.status).toBe(200)
      expect(res.json).toEqual({
        is_cart_enabled: true,
        is_catalog_visible: false,
        country: null,
        currency: null,
        updated_at: null,
        payments: null,
        order_updates_template: null
      })
    })

    it("a change is made at the operator and recorded; fields left out stay; another store is untouched", async () => {
      const before = operatorSettings().filter((p) => p.commerce !== undefined).length
      const res = await h.request("PATCH", "/chat/commerce/settings", a.live_key, { is_catalog_visible: true, country: "BR", currency: "BRL" })
      expect(res.status).toBe(200)
      expect(res.json).toMatchObject({ is_cart_enabled: true, is_catalog_visible: true, country: "BR", currency: "BRL" })
      expect(res.json.updated_at).toEqual(expect.any(String))
      await eventually(
        async () => operatorSettings().filter((p) => p.commerce?.isCatalogVisible === true).length === before + 1,
        "the operator has it",
        5_000
      )
      const off = await h.request("PATCH", "/chat/commerce/settings", a.live_key, { is_cart_enabled: false })
      expect(off.json).toMatchObject({ is_cart_enabled: false, is_catalog_visible: true, country: "BR", currency: "BRL" })
      await eventually(
        async () => operatorSettings().some((p) => p.commerce?.isCartEnabled === false && p.commerce.isCatalogVisible === true),
        "the operator has the cart off",
        5_000
      )
      expect((await h.request("GET", "/chat/commerce/settings", a.live_key)).json).toEqual(off.json)
      expect((await h.request("GET", "/chat/commerce/settings", b.live_key)).json).toMatchObject({ is_cart_enabled: true, country: null })
      const cleared = await h.request("PATCH", "/chat/commerce/settings", a.live_key, { country: null })
      expect(cleared.json).toMatchObject({ country: null, currency: "BRL" })
    })

    it("bad input: 400 validation_failed naming the field, never a 500", async () => {
      for (const [body, field] of [
        [{ country: "Brazil" }, "country"],
        [{ currency: "XYZ" }, "currency"],
        [{ currency: "usd" }, "currency"],
        [{ is_cart_enabled: "yes" }, "is_cart_enabled"],
        [{ colour: "red" }, "colour"]
      ] as const) {
        const res = await h.request("PATCH", "/chat/commerce/settings", a.test_key, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(field)
      }
      expect((await h.request("GET", "/chat/commerce/settings", a.test_key)).json.updated_at).toBe(null)
    })

    it("eligibility: each requirement with code, met and message; eligible only when all are met", async () => {
      const requirementsOf = async (key: string) => {
        const res = await h.request("GET", "/chat/commerce/eligibility", key)
        expect(res.status).toBe(200)
        return { eligible: res.json.eligible as boolean, met: Object.fromEntries(res.json.requirements.map((r: any) => [r.code, r.met])) }
      }
      const fresh = await requirementsOf(b.test_key)
      expect(fresh.eligible).toBe(false)
      expect(fresh.met).toEqual({
        supported_country: false,
        connected_catalog: false,
        cart_enabled: true,
        phone_number_in_good_standing: true,
        approved_product: false
      })
      await h.request("PATCH", "/chat/commerce/settings", b.test_key, { country: "IR" })
      expect((await requirementsOf(b.test_key)).met.supported_country).toBe(false)
      await h.request("PATCH", "/chat/commerce/settings", b.test_key, { country: "US", is_cart_enabled: false })
      await h.request("POST", "/chat/catalogs", b.test_key, { name: "Shop" })
      const after = await requirementsOf(b.test_key)
      expect(after.met).toMatchObject({ supported_country: true, connected_catalog: true, cart_enabled: false, approved_product: false })
      expect(after.eligible).toBe(false)
      // an approved product of the connected catalog, and the cart on: eligible
      const catalog = (await h.request("GET", "/chat/catalogs", b.test_key)).json.data[0].id
      await h.request("POST", `/chat/catalogs/${catalog}/products`, b.test_key, {
        retailer_id: "E1",
        name: "Tote",
        price: 1500,
        currency: "USD",
        image_url: "https://img.example.com/tote.png"
      })
      await h.request("PATCH", "/chat/commerce/settings", b.test_key, { is_cart_enabled: true })
      await eventually(async () => (await requirementsOf(b.test_key)).eligible, "eligible once the product is approved", 15_000)
      // the other mode's catalog and settings are its own
      expect((await requirementsOf(b.live_key)).met).toMatchObject({ supported_country: false, connected_catalog: false })
    })
  })
