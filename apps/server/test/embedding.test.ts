/**
 * Embedding, as the README shows it: `HttpServer.toWebHandler` over the layers the API needs
 * (a SQLite store, the operator client aimed at the emulator, the caller-webhook sender,
 * readiness), mounted inside a plain `Request → Response` function of the embedding app.
 * The README's block is this fixture, word for word, and runs here.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EmbeddedApp, startEmbedded } from "./embedded.js"

const fixture = join(root, "apps/server/test/fixtures/readme-embedding.ts")

describe("embedding the web handler in a Request → Response function", { timeout: 60_000 }, () => {
  let app: EmbeddedApp
  let key: string
  let stop: (() => Promise<void>) | undefined

  beforeAll(async () => {
    ;({ app, key, stop } = await startEmbedded("sb-embed-"))
  })
  afterAll(() => stop?.())

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.fetch(
      new Request(`http://shop.example${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
    )
    const text = await response.text()
    return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined }
  }

  it("is the README's example, word for word", () => {
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain(readFileSync(fixture, "utf8").trim())
  })

  it("answers the API under /chat and leaves the rest to the app", async () => {
    expect(await call("GET", "/")).toMatchObject({ status: 200, text: "Hello from my app" })
    const empty = await call("GET", "/chat/templates")
    expect(empty).toMatchObject({ status: 200, json: { data: [], next_cursor: null } })
    const created = await call("POST", "/chat/templates", {
      templateData: {
        name: "order_shipped",
        category: "UTILITY",
        language: "en_US",
        components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
      }
    })
    expect(created.status, created.text).toBe(201)
    expect(created.json).toMatchObject({ name: "order_shipped", status: "PENDING" })
    expect((await call("GET", "/chat/messages")).json).toEqual({ data: [], next_cursor: null })
    const anonymous = await app.fetch(new Request("http://shop.example/chat/templates"))
    expect(anonymous.status).toBe(401)
    expect((await call("GET", "/docs")).status).toBe(200)
  })
})
