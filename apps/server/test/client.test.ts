/**
 * `GET /chat/messages` (a store's messages, newest first, paged, filtered by status and
 * recipient, in the caller's tenant only) and the typed client of `@switchboard/http`
 * against the real server: requests typed by the API's schemas, error answers decoded into
 * their tagged errors, and the README's client example as written.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { FetchHttpClient } from "@effect/platform"
import { Client } from "@switchboard/http"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, eventually, type Harness, root, startServer } from "./harness.js"

describe("GET /chat/messages and the typed client", { timeout: 120_000 }, () => {
  let h: Harness
  let shop: CreatedStore
  let other: CreatedStore
  const ana = "+15551239001"
  const ben = "+15551239002"
  const sent: Array<string> = []

  beforeAll(async () => {
    h = await startServer()
    shop = h.createStore("Messages shop")
    other = h.createStore("Other shop")
    for (const phone of [ana, ben]) {
      const inbound = await h.request("POST", "/chat/sandbox/inbound-messages", shop.test_key, { from: phone, text: "hello" })
      expect(inbound.status).toBe(202)
    }
    await eventually(async () => (await h.request("GET", "/chat/customers", shop.test_key)).json?.data?.length === 2, "two customers", 20_000)
    for (const [to, body] of [
      [ana, "one"],
      [ben, "two"],
      [ana, "three"]
    ]) {
      const r = await h.request("POST", "/chat/messages", shop.test_key, { to, type: "text", text: { body } })
      expect(r.status, r.text).toBe(201)
      sent.push(r.json.id)
    }
  })
  afterAll(() => h?.stop())

  it("lists the tenant's messages newest first, with the message resource's fields", async () => {
    const all = await h.request("GET", "/chat/messages", shop.test_key)
    expect(all.status).toBe(200)
    expect(all.json.data.map((m: { id: string }) => m.id)).toEqual([...sent].reverse())
    expect(all.json.next_cursor).toBeNull()
    expect(Object.keys(all.json.data[0])).toEqual(["id", "to", "type", "status", "operator_message_id", "error", "created_at", "updated_at"])
    const one = await h.request("GET", `/chat/messages/${sent[2]}`, shop.test_key)
    expect(all.json.data[0]).toMatchObject({ id: one.json.id, to: one.json.to, type: "text" })

    // another store, and the other mode of this store, see none of them
    expect((await h.request("GET", "/chat/messages", other.test_key)).json).toEqual({ data: [], next_cursor: null })
    expect((await h.request("GET", "/chat/messages", shop.live_key)).json).toEqual({ data: [], next_cursor: null })
  })

  it("pages with limit and cursor, and filters by recipient and status", async () => {
    const first = await h.request("GET", "/chat/messages?limit=2", shop.test_key)
    expect(first.json.data.map((m: { id: string }) => m.id)).toEqual([sent[2], sent[1]])
    expect(first.json.next_cursor).toEqual(expect.any(String))
    const second = await h.request("GET", `/chat/messages?limit=2&cursor=${first.json.next_cursor}`, shop.test_key)
    expect(second.json).toEqual({ data: [expect.objectContaining({ id: sent[0] })], next_cursor: null })

    const toAna = await h.request("GET", `/chat/messages?to=${encodeURIComponent(ana)}`, shop.test_key)
    expect(toAna.json.data.map((m: { id: string }) => m.id)).toEqual([sent[2], sent[0]])
    // the filter takes a number as people write it
    const written = await h.request("GET", `/chat/messages?to=${encodeURIComponent("+1 555-123-9002")}`, shop.test_key)
    expect(written.json.data.map((m: { id: string }) => m.id)).toEqual([sent[1]])

    const read = await eventually(
      async () => {
        const page = (await h.request("GET", "/chat/messages?status=read", shop.test_key)).json
        return page.data.length === 3 ? page : undefined
      },
      "the emulator reads all three",
      20_000
    )
    expect(read.data.every((m: { status: string }) => m.status === "read")).toBe(true)
    expect((await h.request("GET", "/chat/messages?status=failed", shop.test_key)).json.data).toEqual([])

    const badStatus = await h.request("GET", "/chat/messages?status=lost", shop.test_key)
    expect(badStatus.status).toBe(400)
    expect(badStatus.json.error.details[0].path).toBe("status")
    const badPhone = await h.request("GET", "/chat/messages?to=nobody", shop.test_key)
    expect(badPhone.status).toBe(400)
    expect(badPhone.json.error.details).toEqual([{ path: "to", message: "must be a phone number in E.164 form, e.g. +15551230001" }])
    expect((await h.request("GET", "/chat/messages?cursor=nope", shop.test_key)).status).toBe(400)
    expect((await h.request("GET", "/chat/messages")).status).toBe(401)
  })

  it("the typed client: typed calls, and error answers as tagged errors", async () => {
    const run = <A, E>(effect: Effect.Effect<A, E, import("@effect/platform").HttpClient.HttpClient>) =>
      Effect.runPromise(Effect.either(Effect.provide(effect, FetchHttpClient.layer)))
    const client = (key?: string) => Client.make({ baseUrl: h.base, apiKey: key })

    const page = await run(Effect.flatMap(client(shop.test_key), (c) => c.messages.list({ urlParams: { to: ana, limit: 1 } })))
    expect(Either.getOrThrow(page).data.map((m) => m.id)).toEqual([sent[2]])
    expect(Either.getOrThrow(page).data[0].createdAt).toEqual(expect.any(Number))

    const missing = await run(Effect.flatMap(client(shop.test_key), (c) => c.messages.get({ path: { id: "msg_01JD00000000000000000000AA" } })))
    expect(Either.isLeft(missing) && missing.left._tag).toBe("ResourceNotFound")
    expect(Either.isLeft(missing) && missing.left.message).toBe("No such message: 'msg_01JD00000000000000000000AA'")

    const anonymous = await run(Effect.flatMap(client(), (c) => c.messages.list({ urlParams: { limit: 1 } })))
    expect(Either.isLeft(anonymous) && anonymous.left._tag).toBe("Unauthorized")

    const closed = await run(
      Effect.flatMap(client(shop.test_key), (c) => c.messages.send({ payload: { to: "+15551239555", type: "text", text: { body: "hi" } } }))
    )
    expect(Either.isLeft(closed) && closed.left._tag).toBe("OutsideCustomerWindow")
  })

  it("the README's client example runs as written", async () => {
    const fixture = readFileSync(join(root, "apps/server/test/fixtures/readme-client.ts"), "utf8")
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain(fixture.trim())
    process.env.SWITCHBOARD_URL = h.base
    process.env.SWITCHBOARD_API_KEY = shop.test_key
    try {
      const { program } = await import("./fixtures/readme-client.js")
      // +15551230001 never wrote to this store: the send is refused, as a tagged error the example handles
      expect(await Effect.runPromise(program)).toEqual({
        sent: null,
        statuses: [],
        refused: "The customer +15551230001 has not written in the last 24 hours; only an approved template can be sent"
      })
    } finally {
      delete process.env.SWITCHBOARD_URL
      delete process.env.SWITCHBOARD_API_KEY
    }
  })
})
