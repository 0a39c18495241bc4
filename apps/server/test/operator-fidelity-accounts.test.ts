/**
 * The operator's account rules end to end, on both stores (issue 28, item 5):
 * - a catalog is connected only by the business that owns it or one it was shared with: a
 *   store connecting another business's operator catalog gets the 404 of an unknown id and
 *   writes nothing, until the owner shares it (the emulator's control `catalogs/share`);
 * - the phone number's `health_status`, in the operator's shape, is what the calls health
 *   route reports: AVAILABLE, then BLOCKED once the WABA is blocked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { freePort, startServer, type CreatedStore, type Harness } from "./harness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`the operator's account rules (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let shop: CreatedStore
    let emulator: string
    let account: { waba: string; phone: string; business: string }

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${emulator}${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: "Bearer sandbox" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { status: res.status, json: (await res.json()) as any }
    }

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port) }, { dialect })
      shop = h.createStore("Accounts shop")
      const [row] = await h.query<{ w: string; p: string }>(
        `SELECT sandbox_waba_id AS w, sandbox_phone_number_id AS p FROM stores WHERE id = '${shop.id}'`
      )
      account = { waba: row.w, phone: row.p, business: `8${row.w.slice(1)}` }
    })
    afterAll(() => h?.stop())

    it("another business's catalog is an unknown id until its owner shares it; then it connects", async () => {
      // a business the store does not belong to creates a catalog at the operator
      const otherBusiness = "8990000000000077"
      await call("POST", "/_emulator/accounts", { waba_id: `7${otherBusiness.slice(1)}`, phone_number_id: "8990000000000078" })
      const foreign = await call("POST", `/v23.0/${otherBusiness}/owned_product_catalogs`, { name: "Not ours" })
      expect(foreign.status, JSON.stringify(foreign.json)).toBe(200)

      const refused = await h.request("POST", "/chat/catalogs/connect", shop.test_key, { operator_catalog_id: foreign.json.id })
      expect(refused.status, refused.text).toBe(404)
      expect(refused.json.error.code).toBe("resource_not_found")
      expect(Number((await h.query(`SELECT count(*) AS n FROM catalogs WHERE store_id = '${shop.id}'`))[0].n)).toBe(0)

      const shared = await call("POST", "/_emulator/catalogs/share", { catalog_id: foreign.json.id, business_id: account.business })
      expect(shared.status).toBe(200)
      const connected = await h.request("POST", "/chat/catalogs/connect", shop.test_key, { operator_catalog_id: foreign.json.id })
      expect(connected.status, connected.text).toBe(201)
      expect(connected.json).toMatchObject({ operator_catalog_id: foreign.json.id, connected: true })
      const atOperator = await call("GET", `/v23.0/${account.waba}/product_catalogs`)
      expect(atOperator.json.data.map((c: { id: string }) => c.id)).toContain(foreign.json.id)
    })

    it("the number's health_status is the operator's shape, and the calls health route reports it", async () => {
      const health = await call("GET", `/v23.0/${account.phone}?fields=health_status`)
      expect(health.json.health_status.can_send_message).toBe("AVAILABLE")
      expect(health.json.health_status.entities.map((e: { entity_type: string }) => e.entity_type)).toEqual([
        "PHONE_NUMBER",
        "WABA",
        "BUSINESS",
        "APP"
      ])
      const available = await h.request("GET", "/chat/calls/health", shop.test_key)
      expect(available.status).toBe(200)
      expect(available.json.operator.health_status).toBe("AVAILABLE")

      expect((await call("POST", "/_emulator/node-health", { id: account.waba, can_send_message: "BLOCKED" })).status).toBe(200)
      const blocked = await h.request("GET", "/chat/calls/health", shop.test_key)
      expect(blocked.json.operator.health_status).toBe("BLOCKED")
      await call("POST", "/_emulator/node-health", { id: account.waba, can_send_message: "AVAILABLE" })
    })
  })
