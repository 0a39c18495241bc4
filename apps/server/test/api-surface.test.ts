/**
 * The API surface a user trips on: an unknown query parameter answers 400 naming it (on every
 * route, the fast lane's lists included), a path with a trailing slash or an empty segment
 * answers 404, every list takes `limit` and answers `next_cursor`, `GET /chat/templates/{name}`
 * and `DELETE /chat/campaigns/{id}/recipients/{recipient_id}` exist. Real server, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, SQLITE } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"

describe.skipIf(!SQLITE.available)("unknown query parameters and exact paths", () => {
  let h: Harness
  let store: CreatedStore
  let doc: any

  beforeAll(async () => {
    h = await startServer()
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
        const res = await h.request(method.toUpperCase(), `${url}?${[...query, "surface_bogus=1"].join("&")}`, store.test_key, body)
        const where = `${method.toUpperCase()} ${path}`
        // refused before anything is written or sent, public routes included
        expect(res.status, `${where}: ${res.text}`).toBe(400)
        expect(res.json.error.details, where).toEqual([{ path: "surface_bogus", message: "is not a known field" }])
        checked++
      }
    }
    expect(checked).toBeGreaterThan(80)
  }, 60_000)

  it("a trailing slash or an empty segment answers 404, not the list or the resource", async () => {
    const order = "ord_01M859WYCJRKH5XFVVK5FNE2QJ"
    for (const path of [
      "/chat/orders/",
      "/chat/templates/",
      "/chat/messages/",
      "/chat/campaigns/",
      `/chat/orders/${order}/`,
      "/chat/orders//items",
      "/chat//orders",
      "/healthz/"
    ]) {
      const res = await h.request("GET", path, store.test_key)
      expect(res.status, path).toBe(404)
      expect(res.json.error.code, path).toBe("resource_not_found")
    }
  })
})
