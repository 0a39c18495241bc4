/**
 * The intake, hardened (issue "Hardening III", defects 2, 3, 7, 8, 9 and 11), on SQLite and
 * PostgreSQL against the real server over HTTP:
 * - JSON to the feed upload route is held to the 1 MiB JSON limit (only a multipart file may
 *   be large), and JSON nested thousands deep there answers 400, not 500;
 * - a body that stops arriving is answered 408 `request_timeout` (JSON, chunked, multipart,
 *   the operator webhook's fast lane), and a multipart body that ends without its closing
 *   boundary 400, instead of being held for ever;
 * - the body's `idempotency_key` and the `Idempotency-Key` header are one mechanism: replays
 *   answer the first answer with `idempotent-replayed: true`, another body under the key is
 *   422, concurrent twins have one effect;
 * - the multipart feed upload honours `Idempotency-Key`;
 * - acknowledgement takes an optional `idempotency_key`, and no body at all is `{}`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { product, upiPayments } from "./fixtures/commerce.js"
import { eventually, startServer, type CreatedStore, type Harness } from "./harness.js"
import { upload } from "./rawHttp.js"

const MiB = 1024 * 1024

const expectEnvelope = (res: { status: number; json: any; text: string }, status: number, code: string) => {
  expect({ status: res.status, code: res.json?.error?.code }, res.text.slice(0, 300)).toEqual({ status, code })
  expect(typeof res.json.error.message).toBe("string")
}

const csv = (rid: string) => `retailer_id,name,price,currency,image_url\n${rid},Thing ${rid},1000,USD,https://img.example.com/${rid}.jpg\n`

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`intake hardening (${dialect.name}, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, port: number
    let catalog = ""
    let feed = ""
    let seq = 100

    beforeAll(async () => {
      h = await startServer({}, { dialect })
      port = Number(new URL(h.base).port)
      a = h.createStore("Hardening")
      catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Goods" })).json.id
      const p = await h.request("POST", `/chat/catalogs/${catalog}/products`, a.test_key, product("SHIRT", 4900))
      expect(p.status, p.text).toBe(201)
      const f = await h.request("POST", `/chat/catalogs/${catalog}/feeds`, a.test_key, { name: "Nightly" })
      expect(f.status, f.text).toBe(201)
      feed = f.json.id
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
    })

    const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => h.request(method, path, a.test_key, body, headers)

    /** A sandbox order (2 shirts: 9,800), its payment requested, waited until its payment applied. */
    const placed = async () => {
      const res = await req("POST", "/chat/sandbox/orders", {
        phone: `+1555${String(seq++).padStart(3, "0")}4321`,
        catalog_id: catalog,
        items: [{ retailer_id: "SHIRT", quantity: 2 }]
      })
      expect(res.status, res.text).toBe(202)
      const id = res.json.order_id as string
      expect((await req("PATCH", "/chat/commerce/settings", { payments: upiPayments })).status).toBe(200)
      expect((await req("POST", `/chat/orders/${id}/payment-request`)).status).toBe(202)
      return eventually(
        async () =>
          (await req("GET", `/chat/orders/${id}/payments`)).json.data.length > 0 ? (await req("GET", `/chat/orders/${id}`)).json : undefined,
        `the payment of ${id}`,
        15_000
      )
    }

    const sendFile = async (text: string, headers: Record<string, string> = {}) => {
      const form = new FormData()
      form.append("file", new Blob([text], { type: "text/csv" }), "products.csv")
      const res = await fetch(`${h.base}/chat/feeds/${feed}/uploads`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.test_key}`, ...headers },
        body: form
      })
      const body = await res.text()
      let json: any
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      return { status: res.status, text: body, json, headers: res.headers }
    }
    const uploads = async () => (await req("GET", `/chat/feeds/${feed}/uploads?limit=100`)).json.data as Array<{ id: string }>

    it("JSON to the feed upload route is held to the 1 MiB JSON limit, declared or chunked; a multipart file may be larger", async () => {
      const path = `/chat/feeds/${feed}/uploads`
      const headers = { authorization: `Bearer ${a.test_key}`, "content-type": "application/json" }
      const declared = await upload({ port, path, size: 200 * MiB, stopAfter: 64 * 1024, timeoutMs: 10_000, headers })
      expectEnvelope(declared, 413, "payload_too_large")
      expect(declared.json.error.message).toContain(String(MiB))
      const chunked = await upload({ port, path, size: 1024 * MiB, chunked: true, timeoutMs: 20_000, headers })
      expectEnvelope(chunked, 413, "payload_too_large")
      // answered long before the client could send it all (how far the client got depends on the machine's load)
      expect(chunked.bytesSent).toBeLessThan(256 * MiB)
      // a 2 MiB file, over the JSON limit, is still taken as multipart
      const big = await sendFile(`${csv("BIG").trimEnd()}\n${"#".repeat(2 * MiB)}\n`)
      expect(big.status, big.text.slice(0, 300)).not.toBe(413)
      expect(big.status).toBeLessThan(500)
    })

    it("JSON nested thousands of levels deep to the feed upload route answers 400, not 500", async () => {
      for (const body of [`${"[".repeat(3000)}${"]".repeat(3000)}`, `{"url": ${"[".repeat(3000)}${"]".repeat(3000)}}`]) {
        const res = await req("POST", `/chat/feeds/${feed}/uploads`, body)
        expectEnvelope(res, 400, "validation_failed")
      }
    })

    it("a multipart content type on a JSON route is refused, with or without a body, never a 500 (found by the fuzz test)", async () => {
      const post = async (path: string, contentType: string, body?: string) => {
        const res = await fetch(`${h.base}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${a.test_key}`, "content-type": contentType },
          body
        })
        const text = await res.text()
        return { status: res.status, text, json: JSON.parse(text) }
      }
      for (const path of ["/chat/flows", `/chat/calls/call_${"0".repeat(26)}/pre-accept`, "/chat/templates/sync"]) {
        expectEnvelope(await post(path, "multipart/form-data"), 400, "validation_failed")
        expectEnvelope(await post(path, "multipart/form-data", "xx"), 400, "validation_failed")
      }
      for (const path of ["/chat/flows", `/chat/calls/call_${"0".repeat(26)}/pre-accept`]) {
        expectEnvelope(await post(path, "multipart/form-data; boundary=x"), 415, "unsupported_media_type")
        expectEnvelope(await post(path, "text/plain"), 415, "unsupported_media_type")
      }
    })

    it("a body that stops arriving is answered 408 within 10 s; a multipart body without its closing boundary 400", { timeout: 60_000 }, async () => {
      const auth = { authorization: `Bearer ${a.test_key}` }
      const multipart = { ...auth, "content-type": "multipart/form-data; boundary=bnd" }
      const before = (await uploads()).length
      const started = Date.now()
      const [unclosed, stalledForm, stalledJson, stalledChunks, stalledWebhook] = await Promise.all([
        // a complete content-length, no closing boundary: every byte sent
        (async () => {
          const body = `--bnd\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n${csv("X")}`
          const res = await fetch(`${h.base}/chat/feeds/${feed}/uploads`, { method: "POST", headers: multipart, body })
          const text = await res.text()
          return { status: res.status, text, json: JSON.parse(text), elapsed: Date.now() - started }
        })(),
        upload({ port, path: `/chat/feeds/${feed}/uploads`, size: 100_000, stopAfter: 1000, timeoutMs: 25_000, headers: multipart }),
        upload({
          port,
          path: "/chat/campaigns",
          size: 10_000,
          stopAfter: 100,
          timeoutMs: 25_000,
          headers: { ...auth, "content-type": "application/json" }
        }),
        upload({
          port,
          path: "/chat/campaigns",
          size: 10_000,
          stopAfter: 100,
          chunked: true,
          timeoutMs: 25_000,
          headers: { ...auth, "content-type": "application/json" }
        }),
        upload({
          port,
          path: "/chat/operator/webhook",
          size: 10_000,
          stopAfter: 100,
          timeoutMs: 25_000,
          headers: { "content-type": "application/json" }
        })
      ])
      expectEnvelope(unclosed, 400, "validation_failed")
      expect(unclosed.json.error.details[0].path).toBe("body")
      expect(unclosed.elapsed).toBeLessThan(5000)
      // an empty form has no closing boundary either
      const empty = await fetch(`${h.base}/chat/feeds/${feed}/uploads`, {
        method: "POST",
        headers: multipart,
        body: "",
        signal: AbortSignal.timeout(5000)
      })
      const emptyText = await empty.text()
      expectEnvelope({ status: empty.status, text: emptyText, json: JSON.parse(emptyText) }, 400, "validation_failed")
      for (const res of [stalledForm, stalledJson, stalledChunks, stalledWebhook]) {
        expectEnvelope(res, 408, "request_timeout")
        expect(res.headers.connection).toBe("close")
      }
      // nothing was made of them, and the server goes on answering
      expect((await uploads()).length).toBe(before)
      expect((await req("GET", "/chat/campaigns")).status).toBe(200)
    })

    it("the body's idempotency_key is the Idempotency-Key: one refund of four concurrent bodies, replays marked, another body 422", async () => {
      const o = await placed()
      const refunds = `/chat/orders/${o.id}/refunds`
      const key = `refund-${o.id}`
      const racing = await Promise.all(
        [700, 800, 900, 1000].map((amount) => req("POST", refunds, { idempotency_key: key, reason_code: "DAMAGED_GOODS", amount }))
      )
      const won = racing.filter((r) => r.status === 201)
      expect(won, JSON.stringify(racing.map((r) => r.text))).toHaveLength(1)
      for (const r of racing.filter((r) => r.status !== 201))
        expect(["idempotency_key_in_use", "idempotency_key_reused"]).toContain(r.json?.error?.code)
      const winner = won[0]
      const amount = winner.json.amount as number
      // the same body again: the first answer, marked; twenty of them, still one refund
      const replays = await Promise.all(
        Array.from({ length: 20 }, () => req("POST", refunds, { idempotency_key: key, reason_code: "DAMAGED_GOODS", amount }))
      )
      for (const r of replays) {
        expect(r.status).toBe(201)
        expect(r.headers.get("idempotent-replayed")).toBe("true")
        expect(r.text).toBe(winner.text)
      }
      // another amount under the key: 422, exactly as with the header
      const other = await req("POST", refunds, { idempotency_key: key, reason_code: "DAMAGED_GOODS", amount: amount + 1 })
      expectEnvelope(other, 422, "idempotency_key_reused")
      const byHeader = await req("POST", refunds, { reason_code: "DAMAGED_GOODS", amount: amount + 1 }, { "Idempotency-Key": key })
      expectEnvelope(byHeader, 422, "idempotency_key_reused")
      // the header and the field naming one key are one request; two different keys are a 400
      const both = await req("POST", refunds, { idempotency_key: key, reason_code: "DAMAGED_GOODS", amount }, { "Idempotency-Key": key })
      expect(both.status).toBe(201)
      expect(both.headers.get("idempotent-replayed")).toBe("true")
      const differ = await req(
        "POST",
        refunds,
        { idempotency_key: `${key}-b`, reason_code: "DAMAGED_GOODS", amount: 1 },
        { "Idempotency-Key": `${key}-c` }
      )
      expectEnvelope(differ, 400, "validation_failed")
      expect(differ.json.error.details[0].path).toBe("idempotency_key")
      const stored = (await req("GET", refunds)).json.data
      expect(stored.map((r: any) => r.amount)).toEqual([amount])
      expect((await req("GET", `/chat/orders/${o.id}/refundable-amount`)).json.amount).toBe(9800 - amount)
    })

    it("the multipart feed upload honours Idempotency-Key: a replay and concurrent twins make one upload; another file is 422", async () => {
      const before = (await uploads()).length
      const first = await sendFile(csv("IDEM1"), { "Idempotency-Key": "feed-1" })
      expect(first.status, first.text).toBe(201)
      const replay = await sendFile(csv("IDEM1"), { "Idempotency-Key": "feed-1" })
      expect(replay.status).toBe(201)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.text).toBe(first.text)
      expect((await uploads()).length).toBe(before + 1)
      const twins = await Promise.all(Array.from({ length: 5 }, () => sendFile(csv("IDEM2"), { "Idempotency-Key": "feed-2" })))
      expect(twins.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
      for (const r of twins.filter((r) => r.status !== 201)) expectEnvelope(r, 409, "idempotency_key_in_use")
      expect((await uploads()).length).toBe(before + 2)
      const another = await sendFile(csv("IDEM3"), { "Idempotency-Key": "feed-1" })
      expectEnvelope(another, 422, "idempotency_key_reused")
      expect((await uploads()).length).toBe(before + 2)
    })

    it("acknowledge takes an optional idempotency_key: no key or no body at all is 200, again 200 with the same order", async () => {
      const one = await placed()
      const first = await req("POST", `/chat/orders/${one.id}/acknowledge`, {})
      expect(first.status, first.text).toBe(200)
      expect(first.json).toMatchObject({ id: one.id, status: "in_progress" })
      const again = await req("POST", `/chat/orders/${one.id}/acknowledge`, {})
      expect(again.status, again.text).toBe(200)
      expect(again.json).toEqual(first.json)
      // under a new key too: acknowledgement is idempotent by nature
      const newKey = await req("POST", `/chat/orders/${one.id}/acknowledge`, { idempotency_key: `late-${one.id}` })
      expect(newKey.status).toBe(200)
      expect(newKey.json.acknowledged_at).toBe(first.json.acknowledged_at)
      // no body at all means {}
      const two = await placed()
      const bare = await fetch(`${h.base}/chat/orders/${two.id}/acknowledge`, { method: "POST", headers: { authorization: `Bearer ${a.test_key}` } })
      expect(bare.status, await bare.clone().text()).toBe(200)
      expect(await bare.json()).toMatchObject({ id: two.id, status: "in_progress" })
      const three = await placed()
      const batch = await req("POST", "/chat/orders/acknowledge-batch", { orders: [{ id: three.id }, { id: two.id }] })
      expect(batch.status, batch.text).toBe(200)
      expect(batch.json.data.map((r: any) => r.result)).toEqual(["acknowledged", "already_acknowledged"])
    })
  })
