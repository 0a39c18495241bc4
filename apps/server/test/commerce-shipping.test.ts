/**
 * Shipping profiles end to end (spec §4.6, issue 12 item 6), on SQLite and PostgreSQL over
 * real HTTP: create, read, list, change, delete; one default per store and mode, switched in
 * one transaction; another store's or mode's ids answer 404 as unknown ones; bad input is a
 * 400 that names the field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { type CreatedStore, type Harness, withStores } from "./harness.js"

const domestic = {
  name: "Domestic",
  destinations: [{ country: "US", rates: [{ name: "Standard", price: 499, currency: "USD", min_days: 2, max_days: 5 }] }]
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`shipping profiles end to end (${dialect.name}, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
    afterAll(() => h?.stop())

    const defaults = async (key: string) =>
      ((await h.request("GET", "/chat/shipping-profiles?limit=100", key)).json.data as Array<any>).filter((p) => p.is_default).map((p) => p.id)

    it("create answers 201 with id and is_default; the first profile is the default; read and list show it", async () => {
      const created = await h.request("POST", "/chat/shipping-profiles", a.live_key, domestic)
      expect(created.status).toBe(201)
      expect(created.json).toMatchObject({
        id: expect.stringMatching(/^shp_/),
        name: "Domestic",
        is_default: true,
        handling_time: { min_days: 1, max_days: 3 },
        destinations: [{ country: "US", regions: [], rates: [{ name: "Standard", price: 499, currency: "USD", min_days: 2, max_days: 5 }] }]
      })
      const read = await h.request("GET", `/chat/shipping-profiles/${created.json.id}`, a.live_key)
      expect(read.status).toBe(200)
      expect(read.json).toEqual(created.json)
      expect(await defaults(a.live_key)).toEqual([created.json.id])
    })

    it("making another the default unsets the first, on create and on PATCH; at most one default, ever", async () => {
      const first = (await h.request("POST", "/chat/shipping-profiles", a.test_key, domestic)).json
      const second = (await h.request("POST", "/chat/shipping-profiles", a.test_key, { ...domestic, name: "Express", is_default: true })).json
      expect(second.is_default).toBe(true)
      expect(await defaults(a.test_key)).toEqual([second.id])
      const patched = await h.request("PATCH", `/chat/shipping-profiles/${first.id}`, a.test_key, { is_default: true })
      expect(patched.status).toBe(200)
      expect(patched.json.is_default).toBe(true)
      expect(await defaults(a.test_key)).toEqual([first.id])
      // concurrent switches: one default remains, never two
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          h.request("PATCH", `/chat/shipping-profiles/${i % 2 ? first.id : second.id}`, a.test_key, { is_default: true })
        )
      )
      expect(await defaults(a.test_key)).toHaveLength(1)
      // the live mode's default is its own
      expect(await defaults(a.live_key)).toHaveLength(1)
    })

    it("PATCH changes what it names and keeps the rest; DELETE removes it", async () => {
      const created = (await h.request("POST", "/chat/shipping-profiles", a.live_key, { ...domestic, name: "Temp" })).json
      const patched = await h.request("PATCH", `/chat/shipping-profiles/${created.id}`, a.live_key, { handling_time: { min_days: 0, max_days: 1 } })
      expect(patched.json).toMatchObject({ name: "Temp", handling_time: { min_days: 0, max_days: 1 }, destinations: created.destinations })
      const removed = await h.request("DELETE", `/chat/shipping-profiles/${created.id}`, a.live_key)
      expect(removed.json).toEqual({ id: created.id, deleted: true })
      expect((await h.request("GET", `/chat/shipping-profiles/${created.id}`, a.live_key)).status).toBe(404)
    })

    it("another store's, the other mode's, an unknown and a malformed id: the same 404 resource_not_found on every route", async () => {
      const own = (await h.request("POST", "/chat/shipping-profiles", a.live_key, domestic)).json.id
      for (const [key, id] of [
        [b.live_key, own],
        [a.test_key, own],
        [a.live_key, "shp_01M85GK8TB3E8BH2R1WY18AD8X"],
        [a.live_key, "nope"]
      ]) {
        for (const [method, body] of [
          ["GET", undefined],
          ["PATCH", { name: "x" }],
          ["DELETE", undefined]
        ] as const) {
          const res = await h.request(method, `/chat/shipping-profiles/${id}`, key, body)
          expect(res.status).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
        }
      }
      expect((await h.request("GET", `/chat/shipping-profiles/${own}`, a.live_key)).status).toBe(200)
    })

    it("bad input: 400 validation_failed naming the field, never a 500", async () => {
      const rate = domestic.destinations[0].rates[0]
      const cases: Array<[unknown, string]> = [
        [{ ...domestic, name: "" }, "name"],
        [{ name: "x", destinations: [] }, "destinations"],
        [{ name: "x", destinations: [{ country: "USA", rates: [rate] }] }, "destinations[0].country"],
        [{ name: "x", destinations: [{ country: "US", rates: [{ ...rate, price: 4.99 }] }] }, "destinations[0].rates[0].price"],
        [{ name: "x", destinations: [{ country: "US", rates: [{ ...rate, price: -1 }] }] }, "destinations[0].rates[0].price"],
        [{ name: "x", destinations: [{ country: "US", rates: [{ ...rate, currency: "XYZ" }] }] }, "destinations[0].rates[0].currency"],
        [{ name: "x", destinations: [{ country: "US", rates: [{ ...rate, min_days: 5, max_days: 2 }] }] }, "destinations[0].rates[0].max_days"],
        [{ name: "x", destinations: [domestic.destinations[0], domestic.destinations[0]] }, "destinations[1].country"],
        [{ ...domestic, handling_time: { min_days: 1.5, max_days: 2 } }, "handling_time.min_days"],
        [{ ...domestic, colour: "red" }, "colour"]
      ]
      for (const [body, field] of cases) {
        const res = await h.request("POST", "/chat/shipping-profiles", a.live_key, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(field)
      }
    })
  })
