/**
 * The hardened intake behind the web-standard handler (`HttpServer.toWebHandler`, the README's
 * embedding example on SQLite): the same limits as the Node server, where the body is a web
 * `Request`'s stream: JSON to the feed upload route is held to 1 MiB, and a form without its
 * closing boundary is a 400 instead of a request that never ends. (A multipart upload itself
 * needs a real `FileSystem`, which the web handler's context does not provide.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EmbeddedApp, startEmbedded } from "./embedded.js"

describe("the hardened intake behind the web handler (SQLite)", { timeout: 60_000 }, () => {
  let app: EmbeddedApp
  let key: string
  let stop: (() => Promise<void>) | undefined
  let feed: string

  const call = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
    const response = await app.fetch(
      new Request(`http://shop.example${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers }, body })
    )
    const text = await response.text()
    return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined, headers: response.headers }
  }
  const json = (method: string, path: string, body: unknown) => call(method, path, JSON.stringify(body), { "content-type": "application/json" })

  beforeAll(async () => {
    ;({ app, key, stop } = await startEmbedded("sb-web-intake-"))
    const catalog = await json("POST", "/chat/catalogs", { name: "Goods" })
    expect(catalog.status, catalog.text).toBe(201)
    const created2 = await json("POST", `/chat/catalogs/${catalog.json.id}/feeds`, { name: "Nightly" })
    expect(created2.status, created2.text).toBe(201)
    feed = created2.json.id
  })
  afterAll(() => stop?.())

  const form = (boundary: string, rid: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n` +
    `retailer_id,name,price,currency,image_url\n${rid},Thing,1000,USD,https://img.example.com/${rid}.jpg\n\r\n--${boundary}--\r\n`

  it("holds JSON to the feed upload route to 1 MiB, and refuses a form without its closing boundary", async () => {
    const big = await call("POST", `/chat/feeds/${feed}/uploads`, JSON.stringify({ url: "a".repeat(2 * 1024 * 1024) }), {
      "content-type": "application/json"
    })
    expect([big.status, big.json?.error?.code]).toEqual([413, "payload_too_large"])
    const unclosed = await call("POST", `/chat/feeds/${feed}/uploads`, form("bnd", "U1").replace("--bnd--\r\n", ""), {
      "content-type": "multipart/form-data; boundary=bnd"
    })
    expect([unclosed.status, unclosed.json?.error?.code]).toEqual([400, "validation_failed"])
  })
})
