/**
 * The API surface a user trips on: an unknown query parameter answers 400 naming it (on every
 * route, the fast lane's lists included), a path with a trailing slash or an empty segment
 * answers 404, every list takes `limit` and answers `next_cursor`, `GET /chat/templates/{name}`
 * and `DELETE /chat/campaigns/{id}/recipients/{recipient_id}` exist. Real server, real HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FetchHttpClient } from "@effect/platform"
import { Client, HttpServer, Readiness } from "@switchboard/http"
import { GraphTransport, OperatorClient } from "@switchboard/operator-client"
import { startEmulator } from "@switchboard/operator-emulator"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Outbound } from "@switchboard/outbound"
import { Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, SQLITE } from "@switchboard/testing"
import { signUpFlow as signUp } from "./fixtures/flows.js"
import { eventually, startServer, type CreatedStore, type Harness, withStores } from "./harness.js"

const ADMIN_TOKEN = "surface-admin-token"

describe.skipIf(!SQLITE.available)("unknown query parameters and exact paths", () => {
  let h: Harness
  let store: CreatedStore
  let doc: any

  beforeAll(async () => {
    h = await startServer({ SWITCHBOARD_ADMIN_TOKEN: ADMIN_TOKEN })
    store = h.createStore("Surface")
    doc = (await h.request("GET", "/chat/openapi.json")).json
  }, 60_000)
  afterAll(() => h?.stop())

  const expectUnknown = (res: { status: number; json: any }, name: string, where: string) => {
    expect(res.status, where).toBe(400)
    expect(res.json.error.code, where).toBe("validation_failed")
    expect(res.json.error.details, where).toEqual([{ path: name, message: "is not a known field" }])
  }

  it("GET /chat/templates?name=x answers 400 naming `name`, by the fast lane and the usual path alike", async () => {
    // twice: the second request would be the fast lane's cached page if the first were one
    for (let i = 0; i < 2; i++) expectUnknown(await h.request("GET", "/chat/templates?name=x", store.live_key), "name", "templates")
    expectUnknown(await h.request("GET", "/chat/templates?limit=5&name=x", store.live_key), "name", "templates with limit")
    for (const path of ["/chat/messages", "/chat/campaigns", "/chat/orders"])
      expectUnknown(await h.request("GET", `${path}?bogus=1`, store.test_key), "bogus", path)
    // the known ones still work
    expect((await h.request("GET", "/chat/templates?limit=5", store.live_key)).status).toBe(200)
  })

  it("every operation of the document refuses an unknown query parameter", async () => {
    let checked = 0
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        const url = path.replace(/\{([^}]+)\}/g, (_, name) => {
          const parameter = op.parameters.find((p: any) => p.in === "path" && p.name === name)
          return encodeURIComponent(String(parameter?.example ?? "x"))
        })
        const required = op.parameters.filter((p: any) => p.in === "query" && p.required)
        const query = required.map((p: any) => `${p.name}=${encodeURIComponent(String(p.example ?? "x"))}`)
        const body = op.requestBody?.content?.["application/json"]?.example
        const multipart = op.requestBody?.content?.["multipart/form-data"] !== undefined
        if (multipart) continue // a multipart route reads its parts before its parameters
        // the admin routes sign in with the admin token, the others with a store key
        const key = path.startsWith("/admin") ? ADMIN_TOKEN : store.test_key
        const res = await h.request(method.toUpperCase(), `${url}?${[...query, "surface_bogus=1"].join("&")}`, key, body)
        const where = `${method.toUpperCase()} ${path}`
        // refused before anything is written or sent, public routes included
        expect(res.status, `${where}: ${res.text}`).toBe(400)
        expect(res.json.error.details, where).toEqual([{ path: "surface_bogus", message: "is not a known field" }])
        checked++
      }
    }
    expect(checked).toBeGreaterThan(80)
  }, 60_000)

  it("the typed client still calls routes without parameters, and GET /chat/templates/{name}", async () => {
    const created = (
      await h.request("POST", "/chat/campaigns", store.test_key, {
        name: "Client",
        template: { name: "client_shipped", language: "en_US", parameters: [] }
      })
    ).json
    const program = Effect.gen(function* () {
      const client = yield* Client.make({ baseUrl: h.base, apiKey: store.test_key })
      const read = yield* client.campaigns.get({ path: { id: created.id } })
      const sync = yield* client.templates.sync()
      const missing = yield* Effect.flip(client.templates.get({ path: { name: "client_missing" }, urlParams: { limit: 25 } }))
      return { read: read.id === created.id, synced: typeof sync.synced, missing: missing._tag }
    }).pipe(Effect.provide(FetchHttpClient.layer))
    expect(await Effect.runPromise(program)).toEqual({ read: true, synced: "number", missing: "ResourceNotFound" })
  })

  it("a trailing slash or an empty segment answers 404 as a path no route has, with a key or without", async () => {
    const order = "ord_01M859WYCJRKH5XFVVK5FNE2QJ"
    for (const [method, path] of [
      ["GET", "/chat/orders/"],
      ["GET", "/chat/templates/"],
      ["DELETE", "/chat/templates/"],
      ["GET", "/chat/messages/"],
      ["GET", "/chat/campaigns/"],
      ["GET", `/chat/orders/${order}/`],
      ["GET", "/chat/orders//items"],
      ["GET", "/chat//orders"],
      ["DELETE", "/chat/opt-outs/"],
      ["GET", "/chat/calls/permissions/"],
      ["POST", "/chat/campaigns/"],
      ["GET", "/healthz/"],
      ["GET", "/chat/orders/?limit=5"]
    ]) {
      for (const key of [store.test_key, undefined]) {
        const res = await h.request(method, path, key)
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.json.error, `${method} ${path}`).toEqual({ code: "resource_not_found", message: `No route ${method} ${path.split("?")[0]}` })
      }
    }
  })
})

describe("the embedded handler (HttpServer.toWebHandler) is as exact", () => {
  it("a trailing slash answers 404 and an unknown parameter 400", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-surface-"))
    const emulator = await startEmulator({ appSecret: "surface-secret" })
    const { handler, dispose } = HttpServer.toWebHandler(
      Layer.mergeAll(
        StoreSqlite.layer({ filename: join(dir, "switchboard.sqlite") }),
        OperatorClient.layer({
          sandbox: { baseUrl: emulator.url, accessToken: Redacted.make("sandbox"), appSecret: Redacted.make("surface-secret") },
          verifyToken: Redacted.make("surface-verify")
        }).pipe(Layer.provide(GraphTransport.layer())),
        Outbound.layer({ allowPrivateUrls: false }),
        Layer.succeed(Readiness, { check: Effect.void })
      ).pipe(Layer.orDie)
    )
    try {
      const slash = await handler(new Request("http://embedded/chat/templates/"))
      expect(slash.status).toBe(404)
      expect(((await slash.json()) as any).error.code).toBe("resource_not_found")
      const unknown = await handler(new Request("http://embedded/healthz?verbose=1"))
      expect(unknown.status).toBe(400)
      expect(((await unknown.json()) as any).error.details).toEqual([{ path: "verbose", message: "is not a known field" }])
      expect((await handler(new Request("http://embedded/healthz"))).status).toBe(200)
    } finally {
      await dispose()
      await emulator.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

const utility = (name: string, language: string) => ({
  templateData: {
    name,
    category: "UTILITY",
    language,
    components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
  }
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`templates by name, draft recipients and bounded lists (${dialect.name}, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect))
    }, 60_000)
    afterAll(() => h?.stop())

    /** Every page of `path` (which has no query yet) at `limit` a page: the pages' data, in order. */
    const pages = async (path: string, key: string, limit: number) => {
      const out: Array<Array<any>> = []
      let cursor: string | null = null
      do {
        const res = await h.request("GET", `${path}?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`, key)
        expect(res.status, res.text).toBe(200)
        expect(Object.keys(res.json).sort()).toEqual(["data", "next_cursor"])
        expect(res.json.data.length).toBeLessThanOrEqual(limit)
        out.push(res.json.data)
        cursor = res.json.next_cursor
      } while (cursor !== null && out.length < 10)
      return out
    }

    it("GET /chat/templates/{name} answers the name's templates, one per language, as a page; 404 for a name the store lacks", async () => {
      for (const language of ["es_MX", "en_US"]) {
        const created = await h.request("POST", "/chat/templates", a.live_key, utility("surface_shipped", language))
        expect(created.status, created.text).toBe(201)
      }
      expect((await h.request("POST", "/chat/templates", a.live_key, utility("surface_other", "en_US"))).status).toBe(201)
      const all = await h.request("GET", "/chat/templates/surface_shipped", a.live_key)
      expect(all.status, all.text).toBe(200)
      expect(all.json.next_cursor).toBeNull()
      expect(all.json.data.map((t: any) => [t.name, t.language])).toEqual([
        ["surface_shipped", "en_US"],
        ["surface_shipped", "es_MX"]
      ])
      // the store's test key reads the same templates
      expect((await h.request("GET", "/chat/templates/surface_shipped", a.test_key)).json.data).toHaveLength(2)
      // paged by language
      expect((await pages("/chat/templates/surface_shipped", a.live_key, 1)).map((p) => p.map((t: any) => t.language))).toEqual([
        ["en_US"],
        ["es_MX"]
      ])
      for (const [key, name] of [
        [a.live_key, "surface_missing"],
        [b.live_key, "surface_shipped"]
      ]) {
        const missing = await h.request("GET", `/chat/templates/${name}`, key)
        expect(missing.status).toBe(404)
        expect(missing.json.error.code).toBe("resource_not_found")
      }
      const bogus = await h.request("GET", "/chat/templates/surface_shipped?language=en_US", a.live_key)
      expect(bogus.status).toBe(400)
      expect(bogus.json.error.details).toEqual([{ path: "language", message: "is not a known field" }])
    })

    it("DELETE /chat/campaigns/{id}/recipients/{recipient_id} removes a draft's recipient (204) and its counts; 404 for another's; 409 once launched", async () => {
      expect((await h.request("POST", "/chat/templates", a.live_key, utility("surface_campaign", "en_US"))).status).toBe(201)
      const campaign = await h.request("POST", "/chat/campaigns", a.test_key, {
        name: "Surface",
        template: { name: "surface_campaign", language: "en_US", parameters: ["Ana", "A-1"] }
      })
      expect(campaign.status, campaign.text).toBe(201)
      const id = campaign.json.id
      const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.test_key, { phones: ["+15551117001", "+15551117002", "123"] })
      expect(added.status, added.text).toBe(201)
      const recipients = async () => (await h.request("GET", `/chat/campaigns/${id}/recipients`, a.test_key)).json.data
      const [first, second, invalid] = await recipients()
      expect(invalid.status).toBe("skipped")
      const counts = async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, a.test_key)).json
        return { total: c.total, pending: c.pending, skipped: c.skipped }
      }
      expect(await counts()).toEqual({ total: 3, pending: 2, skipped: 1 })

      const removed = await h.request("DELETE", `/chat/campaigns/${id}/recipients/${first.id}`, a.test_key)
      expect(removed.status, removed.text).toBe(204)
      expect(removed.text).toBe("")
      expect((await recipients()).map((r: any) => r.id)).toEqual([second.id, invalid.id])
      expect(await counts()).toEqual({ total: 2, pending: 1, skipped: 1 })
      expect((await h.request("DELETE", `/chat/campaigns/${id}/recipients/${invalid.id}`, a.test_key)).status).toBe(204)
      expect(await counts()).toEqual({ total: 1, pending: 1, skipped: 0 })

      // gone, malformed, another store's campaign, another campaign's recipient: the same 404
      const other = await h.request("POST", "/chat/campaigns", b.test_key, {
        name: "Other",
        template: { name: "surface_shipped", language: "en_US", parameters: ["Ana", "A-1"] }
      })
      await h.request("POST", `/chat/campaigns/${other.json.id}/recipients`, b.test_key, { phones: ["+15551117003"] })
      const [foreign] = (await h.request("GET", `/chat/campaigns/${other.json.id}/recipients`, b.test_key)).json.data
      for (const [key, path] of [
        [a.test_key, `/chat/campaigns/${id}/recipients/${first.id}`],
        [a.test_key, `/chat/campaigns/${id}/recipients/nope`],
        [a.test_key, `/chat/campaigns/${id}/recipients/${foreign.id}`],
        [b.test_key, `/chat/campaigns/${id}/recipients/${second.id}`],
        [a.live_key, `/chat/campaigns/${id}/recipients/${second.id}`]
      ]) {
        const res = await h.request("DELETE", path, key)
        expect(res.status, path).toBe(404)
        expect(res.json.error.code).toBe("resource_not_found")
      }
      expect(await counts()).toEqual({ total: 1, pending: 1, skipped: 0 })
      // the removed phone is no duplicate when added again
      const again = await h.request("POST", `/chat/campaigns/${id}/recipients`, a.test_key, { phones: ["+15551117001"] })
      expect(again.json).toMatchObject({ added: 1, skipped: 0, total: 2 })

      // launched: refused, nothing removed
      await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
          return sync.status === 200 && sync.json.data.some((t: any) => t.name === "surface_campaign" && t.status === "APPROVED")
        },
        "the template approved",
        15_000
      )
      const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, a.test_key)
      expect(launched.status, launched.text).toBe(200)
      const refused = await h.request("DELETE", `/chat/campaigns/${id}/recipients/${second.id}`, a.test_key)
      expect(refused.status).toBe(409)
      expect(refused.json.error).toMatchObject({ code: "invalid_state", details: { status: launched.json.status } })
      expect((await recipients()).map((r: any) => r.id)).toContain(second.id)
    }, 30_000)

    it("an order's items and payments page by `limit` and `cursor` and answer `next_cursor`", async () => {
      const catalog = await h.request("POST", "/chat/catalogs", a.test_key, { name: "Shirts" })
      expect(catalog.status, catalog.text).toBe(201)
      for (const rid of ["SKU-A", "SKU-B", "SKU-C"]) {
        const p = await h.request("POST", `/chat/catalogs/${catalog.json.id}/products`, a.test_key, {
          retailer_id: rid,
          name: `Shirt ${rid}`,
          price: 1250,
          currency: "USD",
          image_url: `https://img.example.com/${rid}.jpg`
        })
        expect(p.status, p.text).toBe(201)
      }
      const placed = await h.request("POST", "/chat/sandbox/orders", a.test_key, {
        phone: "+15551117101",
        catalog_id: catalog.json.id,
        items: ["SKU-A", "SKU-B", "SKU-C"].map((retailer_id) => ({ retailer_id, quantity: 1 }))
      })
      expect(placed.status, placed.text).toBe(202)
      const order = placed.json.order_id
      const whole = (await h.request("GET", `/chat/orders/${order}`, a.test_key)).json
      const items = await pages(`/chat/orders/${order}/items`, a.test_key, 2)
      expect(items.map((p) => p.length)).toEqual([2, 1])
      expect(items.flat()).toEqual(whole.items)
      expect((await pages(`/chat/orders/${order}/items`, a.test_key, 3)).map((p) => p.length)).toEqual([3])

      // a cart is paid after a payment request
      const payments_ = {
        payment_type: "upi",
        payment_settings: [{ type: "payment_gateway", payment_gateway: { type: "razorpay", configuration_name: "c" } }]
      }
      expect((await h.request("PATCH", "/chat/commerce/settings", a.test_key, { payments: payments_ })).status).toBe(200)
      expect((await h.request("POST", `/chat/orders/${order}/payment-request`, a.test_key)).status).toBe(202)
      const payments = await eventually(
        async () => {
          const listed = (await h.request("GET", `/chat/orders/${order}/payments?limit=1`, a.test_key)).json
          return listed.data.length > 0 ? listed : undefined
        },
        "the payment",
        15_000
      )
      expect(payments).toEqual({ data: [expect.objectContaining({ status: "captured" })], next_cursor: null })
      for (const path of [
        `/chat/orders/${order}/items?limit=0`,
        `/chat/orders/${order}/payments?limit=101`,
        `/chat/orders/${order}/items?cursor=x`
      ]) {
        const bad = await h.request("GET", path, a.test_key)
        expect(bad.status, path).toBe(400)
        expect(bad.json.error.code).toBe("validation_failed")
      }
      // another store's order: 404, whatever the page
      expect((await h.request("GET", `/chat/orders/${order}/items?limit=1`, b.test_key)).status).toBe(404)
    }, 30_000)

    it("a flow's versions page by `limit` and `cursor` and answer `next_cursor`", async () => {
      const v1 = (await h.request("POST", "/chat/flows", a.live_key, { name: "Surface", categories: ["OTHER"] })).json
      expect((await h.request("PUT", `/chat/flows/${v1.id}/json`, a.live_key, { json: signUp })).status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${v1.id}/publish`, a.live_key)).status).toBe(200)
      const v2 = (await h.request("POST", `/chat/flows/${v1.id}/versions`, a.live_key)).json
      expect((await h.request("POST", `/chat/flows/${v2.id}/publish`, a.live_key)).status).toBe(200)
      const v3 = await h.request("POST", `/chat/flows/${v2.id}/versions`, a.live_key)
      expect(v3.status, v3.text).toBe(201)
      const versions = await pages(`/chat/flows/${v3.json.id}/versions`, a.live_key, 2)
      expect(versions.map((p) => p.map((f: any) => f.version))).toEqual([[1, 2], [3]])
      expect((await pages(`/chat/flows/${v1.id}/versions`, a.live_key, 25)).map((p) => p.length)).toEqual([3])
      const itemsCursor = await h.request(
        "GET",
        `/chat/flows/${v1.id}/versions?cursor=${Buffer.from("oit_01M85GK8TB3E8BH2R1WY18AD8X").toString("base64url")}`,
        a.live_key
      )
      expect(itemsCursor.status).toBe(400)
      expect(itemsCursor.json.error.details[0].path).toBe("cursor")
    }, 30_000)
  })
