/**
 * Every Graph edge of the router table, asked without its parameters (an empty body, no
 * query), answers as the operator does: 400 with error code 100 in the OAuthException
 * envelope when it needs a parameter, never a 500. The few edges that need none are listed
 * with what they answer instead; an edge added to the table without a parameter it needs
 * fails here until it refuses the empty request with 100. Bodies that are not JSON objects
 * (null, an array, a string, a number) never answer 5xx either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GRAPH_EDGES } from "../src/Emulator.js"
import { type Emulator, startEmulator } from "../src/index.js"
import { requests } from "./helpers.js"

const WABA = "700000000000031"
const PHONE = "800000000000031"
const BUSINESS = `8${WABA.slice(1)}`

let emulator: Emulator
const ids: Record<string, string> = { phoneNumberId: PHONE, wabaId: WABA, businessId: BUSINESS, orderId: "5550001" }

const { call } = requests(() => emulator)

/**
 * Edges that need no parameter, with the status they answer to the bare request (and the
 * code when it is a refusal of another kind than a missing parameter).
 */
const NEEDS_NOTHING: Record<string, { status: number; code?: number }> = {
  "GET /:phoneNumberId/settings": { status: 200 },
  "GET /:wabaId/message_templates": { status: 200 },
  "GET /:flowId/assets": { status: 200 },
  "GET /:phoneNumberId/whatsapp_business_encryption": { status: 200 },
  "GET /:wabaId/flows": { status: 200 },
  // publishing a flow without Flow JSON, deprecating a draft: the flow's own refusals
  "POST /:flowId/publish": { status: 400, code: 139002 },
  "POST /:flowId/deprecate": { status: 400, code: 139003 },
  "GET /:phoneNumberId/whatsapp_commerce_settings": { status: 200 },
  "GET /:catalogId/products": { status: 200 },
  "GET /:businessId/owned_product_catalogs": { status: 200 },
  "GET /:wabaId/product_catalogs": { status: 200 },
  "GET /:wabaId/phone_numbers": { status: 200 },
  "GET /:id": { status: 200 },
  // a catalog update without fields changes nothing; POST /{flow} likewise (the `:id` edge)
  "POST /:id": { status: 200 },
  "POST /:catalogId": { status: 200 }
}

/** Edges whose bare request would destroy the object the next edges use: asked last, on their own object. */
const DESTRUCTIVE = new Set(["DELETE /:id", "DELETE /:catalogId"])

beforeAll(async () => {
  emulator = await startEmulator({ appSecret: "edges-secret" })
  expect((await call("POST", "/_emulator/accounts", { waba_id: WABA, phone_number_id: PHONE })).status).toBe(200)
  const catalog = await call("POST", `/v23.0/${BUSINESS}/owned_product_catalogs`, { name: "Edges" })
  expect(catalog.status).toBe(200)
  ids.catalogId = catalog.json.id
  const flow = await call("POST", `/v23.0/${WABA}/flows`, { name: "edges", categories: ["OTHER"] })
  expect(flow.status).toBe(200)
  ids.flowId = flow.json.id
  ids.id = flow.json.id
})

afterAll(async () => {
  await emulator?.close()
})

const pathOf = (pattern: string, values: Record<string, string>) => pattern.replace(/:(\w+)/g, (_, name: string) => values[name] ?? "1")
const methodOf = (method: string) => (method === "*" ? "PUT" : method)

describe("every Graph edge asked without its parameters", () => {
  const ordered = [...GRAPH_EDGES].sort((a, b) => Number(DESTRUCTIVE.has(`${a.method} ${a.path}`)) - Number(DESTRUCTIVE.has(`${b.method} ${b.path}`)))

  it("the table is walked whole", () => {
    expect(GRAPH_EDGES.length).toBeGreaterThan(25)
  })

  for (const edge of ordered) {
    const key = `${edge.method} ${edge.path}`
    it(`${key} answers 400 code 100 (or its documented answer), never a 5xx`, async () => {
      const values = DESTRUCTIVE.has(key) ? { ...ids, id: "999000111", catalogId: "999000111" } : ids
      const method = methodOf(edge.method)
      const answer = await call(method, `/v23.0${pathOf(edge.path, values)}`, method === "POST" ? {} : undefined)
      const expected = NEEDS_NOTHING[key] ?? { status: 400, code: 100 }
      expect(answer.status, JSON.stringify(answer.json)).toBe(expected.status)
      if (expected.status >= 400) {
        expect(answer.json.error).toMatchObject({ type: "OAuthException", code: expected.code })
        expect(answer.json.error.fbtrace_id).toEqual(expect.any(String))
        expect(answer.json.error.error_data.messaging_product).toBe("whatsapp")
      }
    })
  }

  it("bodies that are not JSON objects never answer 5xx on any POST edge", async () => {
    for (const edge of GRAPH_EDGES.filter((e) => e.method === "POST")) {
      for (const body of [null, [], "text", 5]) {
        const answer = await call("POST", `/v23.0${pathOf(edge.path, ids)}`, body)
        expect(answer.status, `${edge.path} ${JSON.stringify(body)}: ${JSON.stringify(answer.json)}`).toBeLessThan(500)
        if (answer.status >= 400) expect(answer.json.error.type).toBe("OAuthException")
      }
    }
  })

  it("a body that is not JSON at all is error 100", async () => {
    const res = await fetch(`${emulator.url}/v23.0/${PHONE}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sandbox" },
      body: "{not json"
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error.code).toBe(100)
  })
})
