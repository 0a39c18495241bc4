/**
 * The request intake, as an attacker and a careless client would try it (issue 11, items 1,
 * 2, 4, 7 and the operator route's limit of item 10), against the real server over HTTP on
 * SQLite:
 * - bodies are read only after authentication and never past the route's limit; a chunked
 *   body over the limit answers 413 in the envelope, not a reset;
 * - no input answers 500: deep JSON, undeclared content types (415), a path parameter with a
 *   `%`; validation errors quote a short prefix of the bad value and no schema internals;
 * - `Idempotency-Key` is scoped by the tenant the key authenticates, not by the header text;
 * - Node's own parser errors answer in the error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signOperatorPayload } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"
import { raw, upload } from "./rawHttp.js"

const MiB = 1024 * 1024
const MADE_UP_KEY = `sk_live_${"Z".repeat(32)}`
const campaign = (name: string) => ({ name, template: { name: "order_ready", language: "en_US" } })

const expectEnvelope = (res: { status: number; json: any; text: string }, status: number, code: string) => {
  expect({ status: res.status, code: res.json?.error?.code }, res.text.slice(0, 300)).toEqual({ status, code })
  expect(typeof res.json.error.message).toBe("string")
}

describe("request intake (SQLite, real HTTP)", () => {
  let h: Harness
  let port: number
  let a: CreatedStore

  beforeAll(async () => {
    h = await startServer()
    port = Number(new URL(h.base).port)
    a = h.createStore("Intake")
  })
  afterAll(async () => {
    await h?.stop()
  })

  describe("bodies are read only after authentication, and never past the limit", () => {
    it("a made-up key with an Idempotency-Key is refused 401 before its body is sent", async () => {
      const res = await upload({
        port,
        path: "/chat/campaigns",
        size: 50 * MiB,
        stopAfter: 64 * 1024,
        timeoutMs: 5000,
        headers: { authorization: `Bearer ${MADE_UP_KEY}`, "idempotency-key": "k-made-up", "content-type": "application/json" }
      })
      expectEnvelope(res, 401, "unauthorized")
    })

    it("a declared length over the limit is refused 413 before the body is sent, with or without an Idempotency-Key", async () => {
      for (const extra of [{}, { "idempotency-key": "k-too-long" }] as Array<Record<string, string>>) {
        const res = await upload({
          port,
          path: "/chat/campaigns",
          size: 5 * MiB,
          stopAfter: 64 * 1024,
          timeoutMs: 5000,
          headers: { authorization: `Bearer ${a.live_key}`, "content-type": "application/json", ...extra }
        })
        expectEnvelope(res, 413, "payload_too_large")
      }
    })

    it("a chunked body over the limit answers 413 in the envelope, not a reset", async () => {
      for (const extra of [{}, { "idempotency-key": "k-chunked" }] as Array<Record<string, string>>) {
        const res = await upload({
          port,
          path: "/chat/campaigns",
          size: 8 * MiB,
          chunked: true,
          timeoutMs: 10_000,
          headers: { authorization: `Bearer ${a.live_key}`, "content-type": "application/json", ...extra }
        })
        expectEnvelope(res, 413, "payload_too_large")
      }
      // the connection's next request still works
      expect((await h.request("GET", "/chat/campaigns", a.live_key)).status).toBe(200)
    })

    it("a chunked body within the limit is read", async () => {
      const text = JSON.stringify(campaign("chunked"))
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < text.length; i += 7) controller.enqueue(new TextEncoder().encode(text.slice(i, i + 7)))
          controller.close()
        }
      })
      const res = await fetch(`${h.base}/chat/campaigns`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.live_key}`, "content-type": "application/json" },
        body,
        duplex: "half"
      } as RequestInit)
      expect(res.status).toBe(201)
      expect(((await res.json()) as { name: string }).name).toBe("chunked")
    })

    it("the operator webhook route takes signed bodies up to 3 MiB; more is 413", async () => {
      const signed = (bytes: number) => {
        const head = '{"object":"whatsapp_business_account","entry":[],"padding":"'
        const body = `${head + "x".repeat(bytes - head.length - 2)}"}`
        return { body, signature: signOperatorPayload(body, "e2e-app-secret") }
      }
      const within = signed(Math.floor(2.9 * MiB))
      const ok = await h.request("POST", "/chat/operator/webhook", undefined, within.body, { "x-hub-signature-256": within.signature })
      expect(ok.status, ok.text.slice(0, 200)).toBe(200)
      const over = signed(Math.floor(3.1 * MiB))
      expectEnvelope(
        await h.request("POST", "/chat/operator/webhook", undefined, over.body, { "x-hub-signature-256": over.signature }),
        413,
        "payload_too_large"
      )
      // the API's own routes keep their 1 MiB
      expectEnvelope(await h.request("POST", "/chat/campaigns", a.live_key, within.body), 413, "payload_too_large")
    })
  })

  describe("no 500 from input", () => {
    it("JSON nested 3,000 levels deep in a field that fails validation answers 400", async () => {
      const arrays = `{"name":${"[".repeat(3000)}${"]".repeat(3000)},"template":{"name":"t","language":"en_US"}}`
      const objects = `{"name":"x","template":${'{"a":'.repeat(3000)}1${"}".repeat(3000)}}`
      for (const body of [arrays, objects]) expectEnvelope(await h.request("POST", "/chat/campaigns", a.live_key, body), 400, "validation_failed")
      // and a failing field a little less deep is still formatted without overflowing
      const deepish = `{"name":${"[".repeat(120)}${"]".repeat(120)},"template":{"name":"t","language":"en_US"}}`
      expectEnvelope(await h.request("POST", "/chat/campaigns", a.live_key, deepish), 400, "validation_failed")
    })

    it("a content type the route does not declare answers 415; a form body is never taken as JSON", async () => {
      const cases: Array<[string, string]> = [
        ["multipart/form-data; boundary=x", "garbage"],
        ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--\r\n'],
        ["application/x-www-form-urlencoded", "name=x&template=y"],
        ["text/plain", JSON.stringify(campaign("as text"))],
        ["application/xml", "<campaign/>"]
      ]
      for (const [type, body] of cases) {
        const res = await h.request("POST", "/chat/campaigns", a.live_key, body, { "content-type": type })
        expectEnvelope(res, 415, "unsupported_media_type")
      }
      const withCharset = await h.request("POST", "/chat/campaigns", a.live_key, JSON.stringify(campaign("charset")), {
        "content-type": "application/json; charset=utf-8"
      })
      expect(withCharset.status).toBe(201)
    })

    it("a path parameter is decoded once: %25 does not 500 and %252B does not act on +", async () => {
      expect((await h.request("POST", "/chat/opt-outs", a.live_key, { phone: "+15557770001" })).status).toBe(201)
      const percent = await h.request("DELETE", "/chat/opt-outs/%25", a.live_key)
      expect(percent.status).toBeLessThan(500)
      expect(percent.json.error.code).toMatch(/^(validation_failed|resource_not_found)$/)
      const doubly = await h.request("DELETE", "/chat/opt-outs/%252B15557770001", a.live_key)
      expect(doubly.status).toBeGreaterThanOrEqual(400)
      expect(doubly.status).toBeLessThan(500)
      const list = await h.request("GET", "/chat/opt-outs", a.live_key)
      expect(list.json.data.map((o: any) => o.phone)).toContain("+15557770001")
      expect((await h.request("DELETE", "/chat/opt-outs/%2B15557770001", a.live_key)).status).toBe(200)
    })

    it("a validation error quotes a short prefix of the bad value, once, and no schema internals", async () => {
      const big = "y".repeat(MiB - 200)
      const res = await h.request("POST", "/chat/messages", a.live_key, { to: "+15557770002", type: [big], text: { body: "hi" } })
      expectEnvelope(res, 400, "validation_failed")
      expect(res.text.length).toBeLessThan(2048)
      expect(res.json.error.details[0].path).toBe("type")
      expect(res.json.error.details[0].message).toContain("yyyy")

      const limit = await h.request("GET", "/chat/customers?limit=500", a.live_key)
      expectEnvelope(limit, 400, "validation_failed")
      expect(limit.text).not.toMatch(/Expected undefined|readonly|ReadonlyArray|<declaration/)
      expect(limit.json.error.details).toEqual([{ path: "limit", message: expect.stringContaining("between 1 and 100") }])
    })
  })

  describe("idempotency is scoped by the tenant", () => {
    it("Bearer, bearer and Bearer<TAB> with one key and one body create one campaign", async () => {
      const body = campaign("one of three")
      const answers = []
      for (const authorization of [`Bearer ${a.live_key}`, `bearer ${a.live_key}`, `Bearer\t${a.live_key}`]) {
        answers.push(await h.request("POST", "/chat/campaigns", undefined, body, { authorization, "idempotency-key": "scheme-case" }))
      }
      expect(answers.map((r) => r.status)).toEqual([201, 201, 201])
      expect(new Set(answers.map((r) => r.json.id)).size).toBe(1)
      expect(answers.slice(1).map((r) => r.headers.get("idempotent-replayed"))).toEqual(["true", "true"])
      const list = await h.request("GET", "/chat/campaigns?limit=100", a.live_key)
      expect(list.json.data.filter((c: any) => c.name === "one of three")).toHaveLength(1)
    })

    it("one key under the live and the test key are two tenants; a made-up key never sees a replay", async () => {
      const body = campaign("per tenant")
      const live = await h.request("POST", "/chat/campaigns", a.live_key, body, { "idempotency-key": "per-tenant" })
      const test = await h.request("POST", "/chat/campaigns", a.test_key, body, { "idempotency-key": "per-tenant" })
      expect([live.status, test.status]).toEqual([201, 201])
      expect(live.json.id).not.toBe(test.json.id)
      expectEnvelope(await h.request("POST", "/chat/campaigns", MADE_UP_KEY, body, { "idempotency-key": "per-tenant" }), 401, "unauthorized")
    })

    it("a request refused 400 keeps no result under its key: the corrected request with the same key is served", async () => {
      const bad = { ...campaign("fixed later"), name: "" }
      for (let i = 0; i < 2; i++) {
        const refused = await h.request("POST", "/chat/campaigns", a.live_key, bad, { "idempotency-key": "fix-and-retry" })
        expectEnvelope(refused, 400, "validation_failed")
        expect(refused.headers.get("idempotent-replayed")).toBeNull()
      }
      const fixed = await h.request("POST", "/chat/campaigns", a.live_key, campaign("fixed later"), { "idempotency-key": "fix-and-retry" })
      expect(fixed.status).toBe(201)
      const again = await h.request("POST", "/chat/campaigns", a.live_key, campaign("fixed later"), { "idempotency-key": "fix-and-retry" })
      expect([again.status, again.json.id, again.headers.get("idempotent-replayed")]).toEqual([201, fixed.json.id, "true"])
    })
  })

  describe("Node's parser errors answer in the envelope", () => {
    it("a malformed request line: 400", async () => {
      const res = await raw(port, "GARBAGE\r\n\r\n")
      expect(res.status).toBe(400)
      expect(res.json?.error?.code, res.head).toBe("bad_request")
      expect(res.head.toLowerCase()).toContain("content-type: application/json")
    })

    it("headers too large: 431", async () => {
      const res = await raw(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`)
      expect(res.status).toBe(431)
      expect(res.json?.error?.code, res.head).toBe("request_header_fields_too_large")
    })
  })
})
