/**
 * Products and batches end to end (spec §4.2, issue 12 items 2–4 and 9), on SQLite and
 * PostgreSQL over real HTTP with the emulator carrying `items_batch`:
 * - a 10,000-product batch with every sandbox outcome (an `.invalid` image host, a
 *   `counterfeit` name) and locally invalid requests finishes with exact counts; its errors
 *   are read by batch (paged), by product, by catalog (paged, filtered) and as diagnostics;
 * - single writes are pending until the operator's verdict;
 * - a sync pushes every product again and reports `catalog.sync.completed`;
 * - bad input is a 400 naming the field; another store's ids answer 404 on every route.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

const ENV = {
  SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
  // room for the single writes of these tests; the quota itself is tried in the batch-kill test and the bench
  SWITCHBOARD_CATALOG_BATCH_CALLS: "200",
  SWITCHBOARD_EMULATOR_CATALOG_BATCH_CALLS: "200"
}

const item = (rid: string, over: Record<string, unknown> = {}) => ({
  retailer_id: rid,
  name: `Shirt ${rid}`,
  price: 1999,
  currency: "USD",
  image_url: `https://img.example.com/${rid}.jpg`,
  ...over
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`products and batches end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>

    beforeAll(async () => {
      h = await startServer(ENV, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      const hook = await h.request("POST", "/chat/webhooks", a.live_key, {
        url: receiver.url,
        events: ["product_batch.completed", "catalog.sync.completed"]
      })
      expect(hook.status).toBe(201)
    })
    afterAll(() => h?.stop())

    const catalog = async (key: string, name: string): Promise<string> => {
      const created = await h.request("POST", "/chat/catalogs", key, { name })
      expect(created.status).toBe(201)
      return created.json.id
    }
    /** Every item of a list, page by page (100 at a time). */
    const every = async (path: string): Promise<Array<any>> => {
      const items: Array<any> = []
      let cursor: string | null = null
      do {
        const page = await h.request("GET", `${path}${path.includes("?") ? "&" : "?"}limit=100${cursor ? `&cursor=${cursor}` : ""}`, a.live_key)
        expect(page.status, page.text).toBe(200)
        items.push(...page.json.data)
        cursor = page.json.next_cursor
      } while (cursor !== null)
      return items
    }
    const finished = (key: string, cat: string, handle: string, timeout = 30_000) =>
      eventually(
        async () => {
          const got = await h.request("GET", `/chat/catalogs/${cat}/products/batch/${handle}`, key)
          return got.json.status === "finished" ? got.json : undefined
        },
        `batch ${handle} finished`,
        timeout
      )

    it("a 10,000-product batch finishes with exact counts; errors by batch, product and catalog, and diagnostics agree", async () => {
      const cat = await catalog(a.live_key, "Big")
      const requests = []
      const expected = { image: 0, policy: 0, invalid: 0, ok: 0 }
      for (let i = 0; i < 10_000; i++) {
        const rid = `SKU-${i}`
        if (i % 97 === 1) {
          expected.image++
          requests.push({ method: "CREATE", data: item(rid, { image_url: `https://cdn.shop.invalid/${rid}.jpg` }) })
        } else if (i % 89 === 2) {
          expected.policy++
          requests.push({ method: "CREATE", data: item(rid, { name: `Counterfeit bag ${rid}` }) })
        } else if (i % 83 === 3) {
          expected.invalid++
          requests.push({ method: "CREATE", data: item(rid, i % 2 === 0 ? { price: 19.99 } : { currency: "XYZ" }) })
        } else {
          expected.ok++
          requests.push({ method: i % 2 === 0 ? "CREATE" : "UPDATE", data: item(rid) })
        }
      }
      const submitted = await h.request("POST", `/chat/catalogs/${cat}/products/batch`, a.live_key, { requests })
      expect(submitted.status).toBe(202)
      expect(submitted.json.handle).toMatch(/^pbh_/)
      expect(submitted.json).toMatchObject({ total: 10_000, failed: expected.invalid, succeeded: 0 })
      expect(["queued", "in_progress"]).toContain(submitted.json.status)
      const local = submitted.json.errors[0]
      expect(local).toMatchObject({ code: "validation_failed", retailer_id: expect.stringMatching(/^SKU-/) })
      expect(["price", "currency"]).toContain(local.field)
      expect(requests[local.index].data.retailer_id).toBe(local.retailer_id)

      const done = await finished(a.live_key, cat, submitted.json.handle)
      expect(done).toMatchObject({
        total: 10_000,
        processed: 10_000,
        succeeded: expected.ok,
        failed: expected.image + expected.policy + expected.invalid
      })
      // every error, paged
      const all: Array<{ index: number; retailer_id: string; code: string; message: string }> = []
      let cursor: string | null = null
      do {
        const page = await h.request(
          "GET",
          `/chat/catalogs/${cat}/products/batch/${submitted.json.handle}?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
          a.live_key
        )
        expect(page.status).toBe(200)
        all.push(...page.json.errors)
        cursor = page.json.errors_next_cursor
      } while (cursor !== null)
      const byCode = (code: string) => all.filter((e) => e.code === code).length
      expect([byCode("image_quality"), byCode("policy_violation"), byCode("validation_failed")]).toEqual([
        expected.image,
        expected.policy,
        expected.invalid
      ])
      expect(new Set(all.map((e) => e.index)).size).toBe(all.length)

      // by product
      const rejected = await every(`/chat/catalogs/${cat}/products?review_status=rejected`)
      expect(rejected.length).toBe(expected.image + expected.policy)
      const one = rejected.find((p: any) => p.name.startsWith("Counterfeit"))
      expect(one).toMatchObject({ id: expect.stringMatching(/^prd_/), price: 1999, currency: "USD", review_status: "rejected" })
      expect(one.errors).toEqual([expect.objectContaining({ type: "POLICY_VIOLATION", severity: "MUST_FIX" })])
      const errs = await h.request("GET", `/chat/products/${one.id}/errors`, a.live_key)
      expect(errs.json.data).toEqual(one.errors)
      const approved = await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=SKU-0`, a.live_key)
      expect(approved.json.data).toEqual([expect.objectContaining({ retailer_id: "SKU-0", review_status: "approved", errors: [] })])
      const clean = await h.request("GET", `/chat/catalogs/${cat}/products?has_errors=false&limit=5`, a.live_key)
      expect(clean.json.data.every((p: any) => p.errors.length === 0)).toBe(true)
      expect(clean.json.next_cursor).not.toBeNull()

      // by catalog
      const diagnostics = await h.request("GET", `/chat/catalogs/${cat}/diagnostics`, a.live_key)
      expect(diagnostics.json).toEqual({
        catalog_id: cat,
        products: expected.ok + expected.image + expected.policy,
        products_with_errors: expected.image + expected.policy,
        groups: [
          { type: "IMAGE_QUALITY", severity: "MUST_FIX", affected_products: expected.image },
          { type: "POLICY_VIOLATION", severity: "MUST_FIX", affected_products: expected.policy }
        ]
      })
      const images = await every(`/chat/catalogs/${cat}/errors?type=IMAGE_QUALITY`)
      expect(images.length).toBe(expected.image)
      expect(images[0]).toMatchObject({ product_id: expect.stringMatching(/^prd_/), type: "IMAGE_QUALITY", severity: "MUST_FIX" })
      const firstTwo = await h.request("GET", `/chat/catalogs/${cat}/errors?limit=2`, a.live_key)
      const next = await h.request("GET", `/chat/catalogs/${cat}/errors?limit=2&cursor=${firstTwo.json.next_cursor}`, a.live_key)
      expect(next.json.data[0]).not.toEqual(firstTwo.json.data[1])

      await eventually(
        async () =>
          receiver.received.some((r) => {
            const event = JSON.parse(r.body)
            return event.type === "product_batch.completed" && event.data.handle === submitted.json.handle && event.data.succeeded === expected.ok
          }),
        "product_batch.completed with its counts",
        10_000
      )
      const listed = await h.request("GET", `/chat/catalogs/${cat}/products/batch`, a.live_key)
      expect(listed.json.data[0]).toMatchObject({ handle: submitted.json.handle, status: "finished", total: 10_000 })
    }, 120_000)

    it("connecting an operator catalog imports its items with the operator's review", async () => {
      // a catalog of the same business, filled through another tenant (the test mode)
      const source = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Elsewhere" })).json
      const submitted = await h.request("POST", `/chat/catalogs/${source.id}/products/batch`, a.test_key, {
        requests: [item("IMP-1"), item("IMP-2", { name: "Counterfeit belt" }), item("IMP-3", { price: 0 })].map((data) => ({
          method: "CREATE",
          data
        }))
      })
      await finished(a.test_key, source.id, submitted.json.handle)
      const connected = await h.request("POST", "/chat/catalogs/connect", a.live_key, { operator_catalog_id: source.operator_catalog_id })
      expect(connected.status, connected.text).toBe(201)
      const imported = await every(`/chat/catalogs/${connected.json.id}/products`)
      expect(imported.map((p) => [p.retailer_id, p.review_status, p.price]).sort()).toEqual([
        ["IMP-1", "approved", 1999],
        ["IMP-2", "rejected", 1999],
        ["IMP-3", "approved", 0]
      ])
      expect(imported.find((p) => p.retailer_id === "IMP-2").errors[0]).toMatchObject({ type: "POLICY_VIOLATION" })
    })

    it("single writes are pending until the operator's verdict; PATCH and DELETE reach it too", async () => {
      const cat = await catalog(a.live_key, "Singles")
      const created = await h.request("POST", `/chat/catalogs/${cat}/products`, a.live_key, item("ONE", { inventory: 4 }))
      expect(created.status).toBe(201)
      expect(created.json).toMatchObject({
        retailer_id: "ONE",
        price: 1999,
        currency: "USD",
        review_status: "pending",
        errors: [],
        inventory: 4,
        availability: "in stock"
      })
      const again = await h.request("POST", `/chat/catalogs/${cat}/products`, a.live_key, item("ONE"))
      expect(again.status).toBe(409)
      const status = (id: string) => h.request("GET", `/chat/products/${id}`, a.live_key)
      await eventually(async () => (await status(created.json.id)).json.review_status === "approved", "approved", 15_000)
      const patched = await h.request("PATCH", `/chat/products/${created.json.id}`, a.live_key, { name: "Counterfeit watch" })
      expect(patched.json).toMatchObject({ name: "Counterfeit watch", price: 1999, review_status: "pending" })
      await eventually(async () => (await status(created.json.id)).json.review_status === "rejected", "rejected after the patch", 15_000)
      const removed = await h.request("DELETE", `/chat/products/${created.json.id}`, a.live_key)
      expect(removed.json).toEqual({ id: created.json.id, deleted: true })
      expect((await status(created.json.id)).status).toBe(404)
    }, 60_000)

    it("a sync pushes every product again and reports catalog.sync.completed; delete needs force once there are products", async () => {
      const cat = await catalog(a.live_key, "Synced")
      const submitted = await h.request("POST", `/chat/catalogs/${cat}/products/batch`, a.live_key, {
        requests: [0, 1, 2].map((i) => ({ method: "CREATE", data: item(`S${i}`, i === 2 ? { image_url: "https://x.invalid/a.png" } : {}) }))
      })
      await finished(a.live_key, cat, submitted.json.handle)
      const sync = await h.request("POST", `/chat/catalogs/${cat}/sync`, a.live_key)
      expect(sync.status).toBe(202)
      expect(sync.json).toMatchObject({ id: expect.stringMatching(/^pbh_/), total: 3 })
      const done = await eventually(
        async () => {
          const got = await h.request("GET", `/chat/catalogs/${cat}/syncs/${sync.json.id}`, a.live_key)
          return got.json.status === "finished" ? got.json : undefined
        },
        "sync finished",
        20_000
      )
      expect(done).toMatchObject({ total: 3, processed: 3, succeeded: 2, failed: 1 })
      await eventually(
        async () =>
          receiver.received.some((r) => JSON.parse(r.body).type === "catalog.sync.completed" && JSON.parse(r.body).data.handle === sync.json.id),
        "catalog.sync.completed",
        10_000
      )
      // a batch handle is not a sync
      expect((await h.request("GET", `/chat/catalogs/${cat}/syncs/${submitted.json.handle}`, a.live_key)).status).toBe(404)
      const refused = await h.request("DELETE", `/chat/catalogs/${cat}`, a.live_key)
      expect(refused.status).toBe(400)
      expect(refused.json.error.details[0].path).toBe("force")
      const forced = await h.request("DELETE", `/chat/catalogs/${cat}?force=true`, a.live_key)
      expect(forced.json).toEqual({ id: cat, deleted: true })
    }, 60_000)

    it("bad input is a 400 that names the field", async () => {
      const cat = await catalog(a.live_key, "Strict")
      const fieldOf = async (method: string, path: string, body: unknown) => {
        const res = await h.request(method, path, a.live_key, body)
        expect(res.status, res.text).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        return res.json.error.details.map((d: { path: string }) => d.path)
      }
      const products = `/chat/catalogs/${cat}/products`
      expect(await fieldOf("POST", products, item("D", { price: 12.5 }))).toEqual(["price"])
      expect(await fieldOf("POST", products, item("N", { price: -1 }))).toEqual(["price"])
      expect(await fieldOf("POST", products, item("C", { currency: "EURO" }))).toEqual(["currency"])
      expect(await fieldOf("POST", products, { retailer_id: "M", price: 100, currency: "USD" })).toEqual(
        expect.arrayContaining(["name", "image_url"])
      )
      expect(await fieldOf("POST", products, item("S", { sale_price: 5000 }))).toEqual(["sale_price"])
      const batch = `${products}/batch`
      const many = Array.from({ length: 50_001 }, (_, i) => ({ method: "DELETE", data: { retailer_id: `R${i}` } }))
      expect((await fieldOf("POST", batch, { requests: many }))[0]).toMatch(/^requests/)
      expect(
        await fieldOf("POST", batch, {
          requests: [
            { method: "CREATE", data: item("TWICE") },
            { method: "UPDATE", data: item("TWICE") }
          ]
        })
      ).toEqual(["requests[1].data.retailer_id"])
      // a request with an unknown method is an error of the batch, like any request that fails our check
      const upsert = await h.request("POST", batch, a.live_key, { requests: [{ method: "UPSERT", data: item("X") }, "nonsense"] })
      expect(upsert.status).toBe(202)
      expect(upsert.json).toMatchObject({ status: "finished", total: 2, failed: 2 })
      expect(upsert.json.errors.map((e: any) => [e.index, e.retailer_id, e.field])).toEqual([
        [0, "X", "method"],
        [1, null, "method"]
      ])
      expect((await fieldOf("POST", batch, { requests: [], allow_upsert: true }))[0]).toMatch(/^requests/)
      expect(await fieldOf("GET", `${batch}/pbh_nothing?cursor=zzz`, undefined)).toEqual(["cursor"])
      expect((await h.request("GET", `${batch}/pbh_nothing`, a.live_key)).status).toBe(404)
    })

    it("another store's catalog, product and handle answer 404 resource_not_found on every route", async () => {
      const cat = await catalog(a.live_key, "Private")
      const created = await h.request("POST", `/chat/catalogs/${cat}/products`, a.live_key, item("P1"))
      const submitted = await h.request("POST", `/chat/catalogs/${cat}/products/batch`, a.live_key, {
        requests: [{ method: "CREATE", data: item("P2") }]
      })
      const product = created.json.id
      const handle = submitted.json.handle
      const ownCat = await catalog(b.live_key, "Mine")
      const routes: Array<[string, string, unknown?]> = [
        ["GET", `/chat/catalogs/${cat}/products`],
        ["POST", `/chat/catalogs/${cat}/products`, item("X")],
        ["POST", `/chat/catalogs/${cat}/products/batch`, { requests: [{ method: "DELETE", data: { retailer_id: "P1" } }] }],
        ["GET", `/chat/catalogs/${cat}/products/batch`],
        ["GET", `/chat/catalogs/${cat}/products/batch/${handle}`],
        ["GET", `/chat/catalogs/${ownCat}/products/batch/${handle}`],
        ["POST", `/chat/catalogs/${cat}/sync`],
        ["GET", `/chat/catalogs/${cat}/syncs/${handle}`],
        ["GET", `/chat/catalogs/${cat}/diagnostics`],
        ["GET", `/chat/catalogs/${cat}/errors`],
        ["GET", `/chat/products/${product}`],
        ["PATCH", `/chat/products/${product}`, { name: "Stolen" }],
        ["DELETE", `/chat/products/${product}`],
        ["GET", `/chat/products/${product}/errors`],
        ["DELETE", `/chat/catalogs/${cat}?force=true`]
      ]
      for (const key of [b.live_key, a.test_key])
        for (const [method, path, body] of routes) {
          const res = await h.request(method, path, key, body)
          expect([method, path, res.status, res.json?.error?.code]).toEqual([method, path, 404, "resource_not_found"])
        }
      expect((await h.request("GET", `/chat/products/${product}`, a.live_key)).status).toBe(200)
    })
  })
