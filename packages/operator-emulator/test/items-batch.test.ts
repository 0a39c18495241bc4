/**
 * The emulator's catalog items over real HTTP (GRAPH_API.md §8.2, §8.3): `items_batch` with
 * its checks and per-catalog quota (80014 and the usage header), asynchronous processing
 * (`started`, then `finished` after `itemsBatchProcessMs`), the sandbox outcomes, the
 * products list and item node, and the chunk counters of `GET /_emulator/items-batches`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator } from "../src/index.js"
import type { Emulator } from "../src/index.js"

const PROCESS_MS = 150

let emulator: Emulator

beforeAll(async () => {
  emulator = await startEmulator({ appSecret: "items-batch-secret", itemsBatchProcessMs: PROCESS_MS })
})

afterAll(async () => {
  await emulator?.close()
})

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly json: any
}

const call = async (method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Answer> => {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "content-type": contentType, authorization: "Bearer any-token" },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: text.length > 0 ? JSON.parse(text) : undefined }
}

const graph = (method: string, path: string, body?: unknown) => call(method, `/v23.0${path}`, body)
const control = (method: string, path: string, body?: unknown) => call(method, `/_emulator${path}`, body)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let accounts = 0
/** A new catalog of a freshly registered WABA (its business is `8` + the WABA id's other digits). */
const newCatalog = async (): Promise<string> => {
  accounts++
  const waba = `1${String(accounts).padStart(14, "0")}`
  await control("POST", "/accounts", { waba_id: waba, phone_number_id: `2${String(accounts).padStart(14, "0")}` })
  const created = await graph("POST", `/8${waba.slice(1)}/owned_product_catalogs`, { name: `Catalog ${accounts}`, vertical: "commerce" })
  expect(created.status).toBe(200)
  return created.json.id as string
}

const product = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Product ${id}`,
  price: 1999,
  currency: "USD",
  image_url: `https://images.example.com/${id}.jpg`,
  ...extra
})

const submit = (catalogId: string, requests: unknown, extra: Record<string, unknown> = {}) =>
  graph("POST", `/${catalogId}/items_batch`, { item_type: "PRODUCT_ITEM", requests, ...extra })

const status = (catalogId: string, handle: string) =>
  graph("GET", `/${catalogId}/check_batch_request_status?handle=${encodeURIComponent(handle)}&load_ids_of_invalid_requests=true`)

/** Polls the chunk's status until it is finished (the emulator's delay is PROCESS_MS). */
const finished = async (catalogId: string, handle: string): Promise<any> => {
  const deadline = Date.now() + 5000
  for (;;) {
    const answer = await status(catalogId, handle)
    expect(answer.status).toBe(200)
    if (answer.json.data[0].status === "finished") return answer.json.data[0]
    if (Date.now() > deadline) throw new Error(`chunk ${handle} not finished in time`)
    await sleep(25)
  }
}

const products = async (catalogId: string, query = ""): Promise<any> => {
  const answer = await graph("GET", `/${catalogId}/products${query}`)
  expect(answer.status).toBe(200)
  return answer.json
}

const byRetailerId = async (catalogId: string): Promise<Map<string, any>> =>
  new Map((await products(catalogId, "?limit=5000")).data.map((p: any) => [p.retailer_id, p]))

const stats = async (catalogId?: string) => (await control("GET", `/items-batches${catalogId === undefined ? "" : `?catalog_id=${catalogId}`}`)).json

describe("items_batch processing", () => {
  it("answers a handle, reports started, then finished after the delay, and the products are readable", async () => {
    const catalog = await newCatalog()
    const accepted = await submit(catalog, [
      { method: "CREATE", data: product("sku-1") },
      { method: "CREATE", data: product("sku-2", { description: "Blue" }) }
    ])
    expect(accepted.status).toBe(200)
    expect(accepted.json).toEqual({ handles: [expect.any(String)] })
    const handle = accepted.json.handles[0] as string

    const early = await status(catalog, handle)
    expect(early.json.data).toEqual([
      {
        handle,
        status: "started",
        errors_total_count: 0,
        errors: [],
        warnings_total_count: 0,
        warnings: [],
        ids_of_invalid_requests: []
      }
    ])
    // not applied before it finished
    expect((await products(catalog)).data).toEqual([])

    await sleep(PROCESS_MS + 20)
    const done = await finished(catalog, handle)
    expect(done).toMatchObject({ handle, status: "finished", errors_total_count: 0, errors: [], ids_of_invalid_requests: [] })

    const list = await products(catalog, "?fields=id,retailer_id,name,price,currency,review_status,errors")
    expect(list.data).toEqual([
      expect.objectContaining({ retailer_id: "sku-1", name: "Product sku-1", price: 1999, currency: "USD", review_status: "approved", errors: [] }),
      expect.objectContaining({ retailer_id: "sku-2", description: "Blue", review_status: "approved", errors: [] })
    ])
    expect(list.data[0].id).toMatch(/^\d{16}$/)
    expect(list.data[0].id).not.toBe(list.data[1].id)

    // the item node, and the catalog's count
    const node = await graph("GET", `/${list.data[1].id}`)
    expect(node.status).toBe(200)
    expect(node.json).toMatchObject({ id: list.data[1].id, retailer_id: "sku-2", review_status: "approved" })
    expect((await graph("GET", `/${catalog}?fields=id,product_count`)).json).toEqual({ id: catalog, product_count: 2 })
  })

  it("merges an UPDATE into the product, upserts an unknown one by default, deletes with DELETE", async () => {
    const catalog = await newCatalog()
    await finished(catalog, (await submit(catalog, [{ method: "CREATE", data: product("a", { description: "old" }) }])).json.handles[0])
    const second = await submit(catalog, [
      { method: "UPDATE", data: { id: "a", price: 2500 } },
      { method: "UPDATE", data: product("b") },
      { method: "CREATE", data: product("c") }
    ])
    await finished(catalog, second.json.handles[0])
    const deleted = (await byRetailerId(catalog)).get("c").id as string
    expect((await graph("GET", `/${deleted}`)).json).toMatchObject({ id: deleted, retailer_id: "c" })
    const third = await submit(catalog, [{ method: "DELETE", data: { id: "c" } }])
    expect((await finished(catalog, third.json.handles[0])).errors).toEqual([])
    // a deleted item's node is unknown, as any other id
    expect((await graph("GET", `/${deleted}`)).json.error).toMatchObject({ code: 100, error_subcode: 33 })

    const items = await byRetailerId(catalog)
    expect([...items.keys()]).toEqual(["a", "b"])
    expect(items.get("a")).toMatchObject({ name: "Product a", description: "old", price: 2500, review_status: "approved" })
    expect(items.get("b")).toMatchObject({ review_status: "approved" })
  })

  it("applies due chunks in the order they were accepted, whichever status is read first", async () => {
    const catalog = await newCatalog()
    const first = await submit(catalog, [{ method: "CREATE", data: product("x", { name: "First" }) }])
    const second = await submit(catalog, [{ method: "UPDATE", data: { id: "x", name: "Second" } }])
    await sleep(PROCESS_MS + 20)
    await finished(catalog, second.json.handles[0])
    await finished(catalog, first.json.handles[0])
    expect((await byRetailerId(catalog)).get("x")).toMatchObject({ name: "Second" })
  })

  it("takes a form-encoded body with requests as JSON text", async () => {
    const catalog = await newCatalog()
    const form = new URLSearchParams({
      item_type: "PRODUCT_ITEM",
      allow_upsert: "false",
      requests: JSON.stringify([
        { method: "CREATE", data: product("f1") },
        { method: "UPDATE", data: { id: "nope", name: "x" } }
      ])
    })
    const accepted = await call("POST", `/v23.0/${catalog}/items_batch`, form.toString(), "application/x-www-form-urlencoded")
    expect(accepted.status).toBe(200)
    const done = await finished(catalog, accepted.json.handles[0])
    // allow_upsert "false" from the form was understood
    expect(done.errors).toEqual([expect.objectContaining({ line: 1, id: "nope", error_type: "ITEM_NOT_FOUND" })])
    expect([...(await byRetailerId(catalog)).keys()]).toEqual(["f1"])
  })
})

describe("sandbox outcomes", () => {
  it("decides each request's outcome from its input", async () => {
    const catalog = await newCatalog()
    const accepted = await submit(catalog, [
      { method: "CREATE", data: product("ok") },
      { method: "CREATE", data: product("bad-image", { image_url: "https://cdn.shop.invalid/p.jpg" }) },
      { method: "CREATE", data: product("fake", { name: "Genuine CounterFeit bag" }) },
      { method: "DELETE", data: { id: "ghost" } },
      { method: "CREATE", data: { id: "bare", name: "No price", image_url: "https://images.example.com/bare.jpg" } }
    ])
    const done = await finished(catalog, accepted.json.handles[0])
    expect(done.errors_total_count).toBe(4)
    expect(done.errors).toEqual([
      { line: 1, id: "bad-image", error_type: "IMAGE_QUALITY", error_priority: "HIGH", message: expect.any(String) },
      { line: 2, id: "fake", error_type: "POLICY_VIOLATION", error_priority: "HIGH", message: expect.any(String) },
      { line: 3, id: "ghost", error_type: "ITEM_NOT_FOUND", error_priority: "HIGH", message: expect.any(String) },
      { line: 4, id: "bare", error_type: "ATTRIBUTES_MISSING", error_priority: "HIGH", message: expect.stringContaining("price, currency") }
    ])
    expect(done.ids_of_invalid_requests).toEqual(["bad-image", "fake", "ghost", "bare"])

    const items = await byRetailerId(catalog)
    expect([...items.keys()]).toEqual(["ok", "bad-image", "fake"])
    expect(items.get("ok")).toMatchObject({ review_status: "approved", errors: [] })
    expect(items.get("bad-image")).toMatchObject({
      review_status: "rejected",
      errors: [{ error_type: "IMAGE_QUALITY", error_priority: "HIGH", title: expect.any(String), description: expect.any(String) }]
    })
    expect(items.get("fake")).toMatchObject({ review_status: "rejected", errors: [expect.objectContaining({ error_type: "POLICY_VIOLATION" })] })
  })

  it("refuses an UPDATE of an unknown item when allow_upsert is false", async () => {
    const catalog = await newCatalog()
    const accepted = await submit(catalog, [{ method: "UPDATE", data: product("unknown") }], { allow_upsert: false })
    const done = await finished(catalog, accepted.json.handles[0])
    expect(done.errors).toEqual([expect.objectContaining({ line: 0, id: "unknown", error_type: "ITEM_NOT_FOUND" })])
    expect((await products(catalog)).data).toEqual([])
  })

  it("an UPDATE that fixes the image brings a rejected product back to approved", async () => {
    const catalog = await newCatalog()
    await finished(
      catalog,
      (await submit(catalog, [{ method: "CREATE", data: product("p", { image_url: "http://x.invalid/a.png" }) }])).json.handles[0]
    )
    expect((await byRetailerId(catalog)).get("p")).toMatchObject({ review_status: "rejected" })
    const fixed = await submit(catalog, [{ method: "UPDATE", data: { id: "p", image_url: "https://images.example.com/p.png" } }])
    expect((await finished(catalog, fixed.json.handles[0])).errors).toEqual([])
    expect((await byRetailerId(catalog)).get("p")).toMatchObject({ review_status: "approved", errors: [] })
  })
})

describe("items_batch refusals", () => {
  it("answers the operator's error 100 for a malformed call, and 100 subcode 33 for an unknown catalog", async () => {
    const catalog = await newCatalog()
    const cases: Array<[unknown, RegExp]> = [
      [{ requests: [{ method: "CREATE", data: product("a") }] }, /item_type/],
      [{ item_type: "PRODUCT_SET", requests: [{ method: "CREATE", data: product("a") }] }, /item_type/],
      [{ item_type: "PRODUCT_ITEM" }, /requests/],
      [{ item_type: "PRODUCT_ITEM", requests: [] }, /requests/],
      [{ item_type: "PRODUCT_ITEM", requests: "not json" }, /requests/],
      [{ item_type: "PRODUCT_ITEM", requests: [{ method: "UPSERT", data: product("a") }] }, /requests\[0\]\.method/],
      [{ item_type: "PRODUCT_ITEM", requests: [{ method: "CREATE", data: { name: "no id" } }] }, /requests\[0\]\.data\.id/]
    ]
    for (const [body, detail] of cases) {
      const refused = await graph("POST", `/${catalog}/items_batch`, body)
      expect(refused.status).toBe(400)
      expect(refused.json.error).toMatchObject({ code: 100, type: "OAuthException" })
      expect(refused.json.error.error_data.details).toMatch(detail)
    }

    const unknown = await submit("999000111222333", [{ method: "CREATE", data: product("a") }])
    expect(unknown.status).toBe(400)
    expect(unknown.json.error).toMatchObject({ code: 100, error_subcode: 33 })

    const noHandle = await status(catalog, "no-such-handle")
    expect(noHandle.status).toBe(400)
    expect(noHandle.json.error).toMatchObject({ code: 100 })
    // malformed calls are not counted against the quota nor recorded
    expect(await stats(catalog)).toEqual({ calls: 0, refused: 0, duplicates: 0, requests: 0 })
  })

  it("refuses more than 5,000 requests in one call with error 100, and takes exactly 5,000", async () => {
    const catalog = await newCatalog()
    const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ method: "DELETE", data: { id: `r${i}` } }))
    const tooMany = await submit(catalog, requests(5001))
    expect(tooMany.status).toBe(400)
    expect(tooMany.json.error.code).toBe(100)
    expect(tooMany.json.error.error_data.details).toMatch(/too many requests/i)
    const most = await submit(catalog, requests(5000))
    expect(most.status).toBe(200)
    expect(await stats(catalog)).toMatchObject({ calls: 1, requests: 5000 })
  })
})

describe("per-catalog call quota", () => {
  it("answers 80014 with the usage header past the quota, records nothing, and accepts again after the window", async () => {
    const WINDOW_MS = 600
    emulator.configure({ catalogBatchCalls: 2, catalogBatchWindowMs: WINDOW_MS })
    try {
      const catalog = await newCatalog()
      const other = await newCatalog()
      const chunk = (id: string) => [{ method: "CREATE", data: product(id) }]
      const first = await submit(catalog, chunk("q1"))
      expect(first.status).toBe(200)
      // accepted calls carry the usage header of the catalog too
      expect(JSON.parse(first.headers.get("x-business-use-case-usage")!)).toHaveProperty(catalog)
      expect((await submit(catalog, chunk("q2"))).status).toBe(200)

      const refused = await submit(catalog, chunk("q3"))
      expect(refused.status).toBe(400)
      expect(refused.json.error).toMatchObject({
        code: 80014,
        type: "OAuthException",
        message: expect.stringContaining("too many calls for this catalog"),
        is_transient: true
      })
      const usage = JSON.parse(refused.headers.get("x-business-use-case-usage")!)
      expect(usage[catalog]).toEqual([expect.objectContaining({ estimated_time_to_regain_access: 1 })])

      // the quota is the catalog's own
      expect((await submit(other, chunk("o1"))).status).toBe(200)
      expect(await stats(catalog)).toEqual({ calls: 2, refused: 1, duplicates: 0, requests: 2 })

      await sleep(WINDOW_MS + 50)
      const again = await submit(catalog, chunk("q3"))
      expect(again.status).toBe(200)
      await finished(catalog, again.json.handles[0])
      // the refused call left nothing behind: q3 exists once, from the accepted retry
      expect([...(await byRetailerId(catalog)).keys()]).toEqual(["q1", "q2", "q3"])
      expect(await stats(catalog)).toEqual({ calls: 3, refused: 1, duplicates: 0, requests: 3 })
    } finally {
      emulator.configure({ catalogBatchCalls: 10, catalogBatchWindowMs: 60_000 })
    }
  })

  it("rounds the wait up to whole minutes", async () => {
    emulator.configure({ catalogBatchCalls: 1, catalogBatchWindowMs: 150_000 })
    try {
      const catalog = await newCatalog()
      expect((await submit(catalog, [{ method: "DELETE", data: { id: "a" } }])).status).toBe(200)
      const refused = await submit(catalog, [{ method: "DELETE", data: { id: "a" } }])
      expect(refused.json.error.code).toBe(80014)
      expect(JSON.parse(refused.headers.get("x-business-use-case-usage")!)[catalog][0].estimated_time_to_regain_access).toBe(3)
    } finally {
      emulator.configure({ catalogBatchCalls: 10, catalogBatchWindowMs: 60_000 })
    }
  })
})

describe("products list", () => {
  it("pages by cursor: 25 by default, `next` while more remain, `limit` honoured", async () => {
    const catalog = await newCatalog()
    const requests = Array.from({ length: 30 }, (_, i) => ({ method: "CREATE", data: product(`p${String(i).padStart(2, "0")}`) }))
    await finished(catalog, (await submit(catalog, requests)).json.handles[0])

    const first = await products(catalog)
    expect(first.data).toHaveLength(25)
    expect(first.paging.next).toEqual(expect.stringContaining(`after=${first.paging.cursors.after}`))
    const rest = await products(catalog, `?after=${first.paging.cursors.after}`)
    expect(rest.data.map((p: any) => p.retailer_id)).toEqual(["p25", "p26", "p27", "p28", "p29"])
    expect(rest.paging.next).toBeUndefined()

    const ids = new Set([...first.data, ...rest.data].map((p: any) => p.id))
    expect(ids.size).toBe(30)
    expect((await products(catalog, "?limit=7")).data).toHaveLength(7)
  })
})

describe("chunk fingerprints (GET /_emulator/items-batches)", () => {
  it("counts an accepted chunk seen before as a duplicate, per catalog and in total", async () => {
    const catalog = await newCatalog()
    const other = await newCatalog()
    const chunk = [
      { method: "CREATE", data: product("d1") },
      { method: "DELETE", data: { id: "d2" } }
    ]
    const before = await stats()
    expect((await submit(catalog, chunk)).status).toBe(200)
    expect((await submit(catalog, chunk)).status).toBe(200)
    // the same requests to another catalog are another chunk
    expect((await submit(other, chunk)).status).toBe(200)
    // a different chunk
    expect((await submit(catalog, [chunk[0]])).status).toBe(200)

    expect(await stats(catalog)).toEqual({ calls: 3, refused: 0, duplicates: 1, requests: 5 })
    expect(await stats(other)).toEqual({ calls: 1, refused: 0, duplicates: 0, requests: 2 })
    const after = await stats()
    expect(after.calls - before.calls).toBe(4)
    expect(after.duplicates - before.duplicates).toBe(1)
    expect(after.requests - before.requests).toBe(7)
  })
})
