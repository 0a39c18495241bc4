import { createHmac, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, type CreatedStore, type Harness, withStores } from "./harness.js"

/** A create body: the UTILITY template `name` (en_US) of `components`. */
const utilityOf = (name: string, components: ReadonlyArray<unknown>) => ({
  templateData: { name, category: "UTILITY", language: "en_US", components }
})

/** A UTILITY template of one body `text`, its examples Ana and A-1 as far as it has placeholders. */
const utility = (name: string, text = "Hi {{1}}, your order {{2}} has shipped.") =>
  utilityOf(name, [{ type: "BODY", text, example: { body_text: [["Ana", "A-1"].slice(0, (text.match(/\{\{/g) ?? []).length)] } }])

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`templates end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
    afterAll(() => h?.stop())

    it("stores create prints the id and both keys", () => {
      expect(a.id).toMatch(/^str_[0-9A-Z]{26}$/)
      expect(a.live_key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/)
      expect(a.test_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/)
      expect(b.id).not.toBe(a.id)
    })

    it("a utility template starts PENDING and sync reaches APPROVED", async () => {
      const created = await h.request("POST", "/chat/templates", a.live_key, utility("order_shipped"))
      expect(created.status).toBe(201)
      expect(created.json).toMatchObject({ name: "order_shipped", status: "PENDING", category: "UTILITY", language: "en_US" })
      expect(created.json.id).toMatch(/^tpl_/)
      const approved = await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
          expect(sync.status).toBe(200)
          return sync.json.data.find((t: any) => t.name === "order_shipped" && t.status === "APPROVED")
        },
        "APPROVED after sync",
        10_000
      )
      expect(approved.rejected_reason).toBeNull()
      const listed = await h.request("GET", "/chat/templates?status=APPROVED", a.live_key)
      expect(listed.json.data.map((t: any) => t.name)).toContain("order_shipped")
      // the test key of the same store lists the same real templates
      const viaTest = await h.request("GET", "/chat/templates", a.test_key)
      expect(viaTest.json.data.map((t: any) => t.id)).toContain(created.json.id)
    })

    it("a UTILITY template offering a discount ends REJECTED with the reason (webhook path)", async () => {
      const created = await h.request(
        "POST",
        "/chat/templates",
        a.live_key,
        utility("spring_offer", "Hi {{1}}, get 20% off today with this discount, buy now")
      )
      expect(created.status).toBe(201)
      const rejected = await eventually(
        async () => {
          const list = await h.request("GET", "/chat/templates?status=REJECTED", a.live_key)
          return list.json.data.find((t: any) => t.name === "spring_offer")
        },
        "REJECTED by the status webhook",
        10_000
      )
      expect(rejected.rejected_reason).toMatch(/INCORRECT_CATEGORY/)
    })

    it("Bad-Name gets 400 validation_failed naming the field", async () => {
      const res = await h.request("POST", "/chat/templates", a.live_key, utility("Bad-Name"))
      expect(res.status).toBe(400)
      expect(res.json.error.code).toBe("validation_failed")
      expect(res.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "templateData.name" })]))
    })

    it("placeholder rules: gaps, missing examples", async () => {
      const gap = await h.request(
        "POST",
        "/chat/templates",
        a.live_key,
        utilityOf("gap", [{ type: "BODY", text: "Hi {{1}} and {{3}} ok", example: { body_text: [["a", "b"]] } }])
      )
      expect(gap.status).toBe(400)
      expect(gap.json.error.details[0].path).toBe("templateData.components[0].text")
      const noBody = await h.request("POST", "/chat/templates", a.live_key, utilityOf("no_body", [{ type: "FOOTER", text: "x" }]))
      expect(noBody.status).toBe(400)
      expect(noBody.json.error.details[0].path).toBe("templateData.components")
    })

    it("another store's template is invisible and cannot be deleted: 404 identical to a name that does not exist", async () => {
      const listB = await h.request("GET", "/chat/templates", b.live_key)
      expect(listB.status).toBe(200)
      expect(listB.json.data).toEqual([])
      const foreign = await h.request("DELETE", "/chat/templates/order_shipped", b.live_key)
      const missing = await h.request("DELETE", "/chat/templates/order_shipped", b.live_key)
      expect(foreign.status).toBe(404)
      expect(foreign.json.error.code).toBe("resource_not_found")
      const absent = await h.request("DELETE", "/chat/templates/no_such_name", b.live_key)
      expect(absent.text.replace("no_such_name", "order_shipped")).toBe(foreign.text)
      expect(missing.text).toBe(foreign.text)
      // A still has it
      const listA = await h.request("GET", "/chat/templates", a.live_key)
      expect(listA.json.data.map((t: any) => t.name)).toContain("order_shipped")
    })

    it("delete removes every language at the operator and here", async () => {
      await h.request("POST", "/chat/templates", a.live_key, utility("to_delete"))
      const del = await h.request("DELETE", "/chat/templates/to_delete", a.live_key)
      expect(del.status).toBe(200)
      expect(del.json).toEqual({ name: "to_delete", deleted: true, languages: ["en_US"] })
      const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
      expect(sync.json.data.map((t: any) => t.name)).not.toContain("to_delete")
    })

    it("pages with limit and cursor", async () => {
      for (const n of ["page_a", "page_b", "page_c"]) expect((await h.request("POST", "/chat/templates", a.live_key, utility(n))).status).toBe(201)
      const first = await h.request("GET", "/chat/templates?limit=2", a.live_key)
      expect(first.json.data).toHaveLength(2)
      expect(first.json.next_cursor).toEqual(expect.any(String))
      const second = await h.request("GET", `/chat/templates?limit=2&cursor=${first.json.next_cursor}`, a.live_key)
      const ids = [...first.json.data, ...second.json.data].map((t: any) => t.id)
      expect(new Set(ids).size).toBe(ids.length)
      expect([...ids].sort().reverse()).toEqual(ids)
    })

    describe("bad input never gets a 500", () => {
      it("malformed JSON, wrong types, unknown fields: 400", async () => {
        const malformed = await h.request("POST", "/chat/templates", a.live_key, '{"templateData":')
        expect(malformed.status).toBe(400)
        expect(malformed.json.error.code).toBe("validation_failed")
        const wrong = await h.request("POST", "/chat/templates", a.live_key, { templateData: { name: 5 } })
        expect(wrong.status).toBe(400)
        expect(wrong.json.error.details.map((d: any) => d.path)).toContain("templateData.name")
        const unknown = await h.request("POST", "/chat/templates", a.live_key, { ...utility("x_unknown"), extra: true })
        expect(unknown.status).toBe(400)
        expect(unknown.json.error.details).toEqual([{ path: "extra", message: "is not a known field" }])
        const badQuery = await h.request("GET", "/chat/templates?limit=500&status=NOPE", a.live_key)
        expect(badQuery.status).toBe(400)
      })

      it("a body over 1 MiB: 413", async () => {
        const big = JSON.stringify({ templateData: { name: "x".repeat(1024 * 1024 + 10) } })
        const res = await h.request("POST", "/chat/templates", a.live_key, big)
        expect(res.status).toBe(413)
        expect(res.json.error.code).toBe("payload_too_large")
      })

      it("a missing or bogus key: 401", async () => {
        const none = await h.request("GET", "/chat/templates")
        expect(none.status).toBe(401)
        expect(none.json.error.code).toBe("unauthorized")
        const bogus = await h.request("GET", "/chat/templates", `sk_live_${"A".repeat(32)}`)
        expect(bogus.status).toBe(401)
        const garbage = await h.request("GET", "/chat/templates", "hello")
        expect(garbage.status).toBe(401)
      })

      it("an unsigned or forged operator webhook: 401 and nothing stored", async () => {
        // counts only this test's webhook: the emulator's own webhooks (template reviews of
        // earlier tests) reach the same inbox at any time
        const marker = `probe-${randomUUID()}`
        const count = async () => Number((await h.query<{ n: number }>(`SELECT count(*) AS n FROM inbox WHERE body LIKE '%${marker}%'`))[0].n)
        const before = await count()
        const payload = JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: marker, changes: [] }] })
        const unsigned = await h.request("POST", "/chat/operator/webhook", undefined, payload)
        expect(unsigned.status).toBe(401)
        const forged = await h.request("POST", "/chat/operator/webhook", undefined, payload, {
          "x-hub-signature-256": `sha256=${createHmac("sha256", "not-the-secret").update(payload).digest("hex")}`
        })
        expect(forged.status).toBe(401)
        const good = `sha256=${createHmac("sha256", "e2e-app-secret").update(payload).digest("hex")}`
        const changedByte = await h.request("POST", "/chat/operator/webhook", undefined, payload.replace('"changes":[]', '"changes":[ ]'), {
          "x-hub-signature-256": good
        })
        expect(changedByte.status).toBe(401)
        expect(await count()).toBe(before)
        const valid = await h.request("POST", "/chat/operator/webhook", undefined, payload, { "x-hub-signature-256": good })
        expect(valid.status).toBe(200)
        expect(await count()).toBe(before + 1)
      })

      it("unknown routes answer the error body", async () => {
        const res = await h.request("GET", "/chat/nothing-here", a.live_key)
        expect(res.status).toBe(404)
        expect(res.json.error.code).toBe("resource_not_found")
      })
    })

    it("serves OpenAPI, docs and health", async () => {
      const spec = await h.request("GET", "/chat/openapi.json")
      expect(spec.status).toBe(200)
      expect(Object.keys(spec.json.paths)).toEqual(expect.arrayContaining(["/chat/templates", "/chat/templates/sync", "/chat/templates/{name}"]))
      const docs = await fetch(`${h.base}/docs`)
      expect(docs.status).toBe(200)
      expect(await docs.text()).toContain("<html")
      expect((await h.request("GET", "/healthz")).json).toEqual({ status: "ok" })
      expect((await h.request("GET", "/readyz")).json).toMatchObject({ status: "ok" })
    })

    it("the operator handshake answers the challenge only for our verify token", async () => {
      const ok = await fetch(`${h.base}/chat/operator/webhook?hub.mode=subscribe&hub.verify_token=e2e-verify-token&hub.challenge=1158201444`)
      expect(ok.status).toBe(200)
      expect(await ok.text()).toBe("1158201444")
      const bad = await fetch(`${h.base}/chat/operator/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=42`)
      expect(bad.status).toBe(403)
    })
  })
