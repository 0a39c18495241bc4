/**
 * The fast lane from outside (`@switchboard/http` `FastLane`, `src/FastLane.ts`): a hot list
 * route answers the same bytes and headers whether the lane or the usual path serves it, its
 * pages are never stale (a write through the API, a write by another connection to the
 * database, a status webhook processed by the worker), another store's key never sees the
 * first store's page, and every refusal is the usual path's, on both dialects.
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, signOperatorPayload } from "@switchboard/testing"
import { eventually, startServer, type CreatedStore, type Harness } from "./harness.js"

const template = (name: string) => ({
  templateData: {
    name,
    category: "UTILITY",
    language: "en_US",
    components: [{ type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } }]
  }
})

/** A GET with an empty chunked body: the lane declines it, so the usual path answers. */
const usualGet = (base: string, path: string, key: string) =>
  new Promise<{ status: number; text: string; type: string | undefined }>((resolve, reject) => {
    const url = new URL(path, base)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { authorization: `Bearer ${key}`, "transfer-encoding": "chunked" }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, type: res.headers["content-type"] }))
      }
    )
    req.on("error", reject)
    req.end()
  })

/** A POST whose body declares its length (the lane takes it) or comes chunked (the usual path does). */
const post = (base: string, path: string, body: string, headers: Record<string, string>, chunked: boolean) =>
  new Promise<{ status: number; text: string; type: string | undefined }>((resolve, reject) => {
    const url = new URL(path, base)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: chunked ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, type: res.headers["content-type"] }))
      }
    )
    req.on("error", reject)
    if (chunked) {
      const half = Math.floor(body.length / 2)
      req.write(body.slice(0, half))
      req.end(body.slice(half))
    } else req.end(body)
  })

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`fast lane: hot list routes (${dialect.name}, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_EMULATOR_REVIEW_DELAY_MS: "60000" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      for (const name of ["lane_one", "lane_two", "lane_three"]) {
        expect((await h.request("POST", "/chat/templates", a.live_key, template(name))).status).toBe(201)
      }
    })
    afterAll(() => h?.stop())

    it("answers the same bytes and headers every time, the first (usual path) and the next ones (lane)", async () => {
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(await h.request("GET", "/chat/templates?limit=2", a.live_key))
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        expect(answer.text).toBe(answers[0].text)
        expect(answer.headers.get("content-type")).toBe("application/json")
        expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(answers[0].text)))
      }
      expect(answers[0].json.data.map((t: { name: string }) => t.name)).toEqual(["lane_three", "lane_two"])
      const next = await h.request("GET", `/chat/templates?limit=2&cursor=${answers[0].json.next_cursor}`, a.live_key)
      expect(next.json.data.map((t: { name: string }) => t.name)).toEqual(["lane_one"])
    })

    it("answers every hot list route as the usual path does (templates, messages, campaigns, orders)", async () => {
      const key = a.test_key
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", key, { from: "+15551230009", text: "hello" })).status).toBe(202)
      // the inbound message opens the window once the worker has applied it
      await eventually(
        async () => (await h.request("POST", "/chat/messages", key, { to: "+15551230009", type: "text", text: { body: "Hi!" } })).status === 201,
        "a reply inside the window",
        15_000
      )
      // the reply's status reports (sent, delivered, read) arrive over the next seconds: compare once it is final
      await eventually(
        async () => ["read", "failed"].includes((await h.request("GET", "/chat/messages?limit=1", key)).json.data[0]?.status),
        "the reply's final status",
        15_000
      )
      const campaign = await h.request("POST", "/chat/campaigns", key, {
        name: "Lane digest",
        template: { name: "lane_one", language: "en_US", parameters: ["friend"] }
      })
      expect(campaign.status).toBe(201)
      const paths = [
        "/chat/templates?limit=2",
        "/chat/messages",
        "/chat/messages?status=accepted&limit=5",
        "/chat/campaigns",
        "/chat/campaigns?status=draft",
        "/chat/orders",
        "/chat/orders?status=pending&created_after=2020-01-01T00:00:00Z"
      ]
      for (const path of paths) {
        await h.request("GET", path, key)
        const lane = await h.request("GET", path, key)
        const usual = await usualGet(h.base, path, key)
        expect(lane.status, path).toBe(200)
        expect({ status: lane.status, text: lane.text, type: lane.headers.get("content-type") }, path).toEqual(usual)
      }
      expect((await h.request("GET", "/chat/messages", key)).json.data.length).toBeGreaterThan(0)
      expect((await h.request("GET", "/chat/campaigns", key)).json.data[0].id).toBe(campaign.json.id)
    })

    it("answers one template (a route with a path parameter) as the usual path does, and leaves what it does not take to it", async () => {
      const paths = [
        "/chat/templates/lane_one",
        "/chat/templates/lane_two?limit=1",
        // an encoded character: the router decodes it, the lane leaves it to the router
        "/chat/templates/lane%5Fthree",
        "/chat/templates/not_there",
        "/chat/templates/lane_one?limit=0",
        "/chat/templates/lane_one?cursor=nope",
        "/chat/templates/lane_one?name=x",
        "/chat/templates/lane_one/",
        "/chat/templates//lane_one",
        // a path longer than the lane keeps matched (it matches it each time)
        `/chat/templates/${"n".repeat(300)}`
      ]
      // each path three times: the first matched, the next ones through the paths the lane keeps matched
      for (const path of paths) {
        await h.request("GET", path, a.live_key)
        for (let i = 0; i < 2; i++) {
          const lane = await h.request("GET", path, a.live_key)
          const usual = await usualGet(h.base, path, a.live_key)
          expect({ status: lane.status, text: lane.text, type: lane.headers.get("content-type") }, path).toEqual(usual)
        }
      }
      const one = await h.request("GET", "/chat/templates/lane_one", a.live_key)
      expect(one.status).toBe(200)
      expect(one.json.data.map((t: { name: string; language: string }) => [t.name, t.language])).toEqual([["lane_one", "en_US"]])
      expect(one.json.next_cursor).toBeNull()
      expect((await h.request("GET", "/chat/templates/lane%5Fthree", a.live_key)).json.data[0].name).toBe("lane_three")
      expect((await h.request("GET", "/chat/templates/not_there", a.live_key)).status).toBe(404)
      // another store's key does not see it, nor does an unknown key
      await h.request("GET", "/chat/templates/lane_one", b.live_key)
      expect((await h.request("GET", "/chat/templates/lane_one", b.live_key)).status).toBe(404)
      expect((await h.request("GET", "/chat/templates/lane_one", "sk_live_00000000000000000000000000000000")).status).toBe(401)
      // a write shows at once
      await h.write(`UPDATE templates SET status = 'PAUSED' WHERE store_id = '${a.id}' AND name = 'lane_three'`)
      expect((await h.request("GET", "/chat/templates/lane_three", a.live_key)).json.data[0].status).toBe("PAUSED")
      await h.write(`UPDATE templates SET status = 'PENDING' WHERE store_id = '${a.id}' AND name = 'lane_three'`)
    })

    it("shows a write through the API at once", async () => {
      const before = await h.request("GET", "/chat/templates", a.live_key)
      await h.request("GET", "/chat/templates", a.live_key)
      expect((await h.request("POST", "/chat/templates", a.live_key, template("lane_four"))).status).toBe(201)
      const after = await h.request("GET", "/chat/templates", a.live_key)
      expect(after.json.data.length).toBe(before.json.data.length + 1)
      expect(after.json.data[0].name).toBe("lane_four")
      const removed = await h.request("DELETE", "/chat/templates/lane_four", a.live_key)
      expect(removed.status).toBe(200)
      expect((await h.request("GET", "/chat/templates", a.live_key)).text).toBe(before.text)
    })

    it("shows a write committed by another connection at once", async () => {
      await h.request("GET", "/chat/templates?limit=1", a.live_key)
      const first = await h.request("GET", "/chat/templates?limit=1", a.live_key)
      expect(first.json.data[0].status).toBe("PENDING")
      await h.write(`UPDATE templates SET status = 'PAUSED' WHERE id = '${first.json.data[0].id}'`)
      const again = await h.request("GET", "/chat/templates?limit=1", a.live_key)
      expect(again.json.data[0]).toMatchObject({ id: first.json.data[0].id, status: "PAUSED" })
    })

    it("shows a status the worker applied from a signed operator webhook", async () => {
      await h.request("GET", "/chat/templates?status=REJECTED", a.live_key)
      expect((await h.request("GET", "/chat/templates?status=REJECTED", a.live_key)).json.data).toEqual([])
      const [row] = await h.query<{ operator_id: string; waba: string }>(
        `SELECT t.operator_id, s.sandbox_waba_id AS waba FROM templates t JOIN stores s ON s.id = t.store_id WHERE t.store_id = '${a.id}' AND t.name = 'lane_two'`
      )
      const value = {
        event: "REJECTED",
        message_template_id: Number(row.operator_id),
        message_template_name: "lane_two",
        message_template_language: "en_US",
        reason: "INVALID_FORMAT"
      }
      const body = JSON.stringify({
        object: "whatsapp_business_account",
        entry: [{ id: row.waba, time: Math.floor(Date.now() / 1000), changes: [{ field: "message_template_status_update", value }] }]
      })
      const signature = signOperatorPayload(body, "e2e-app-secret")
      expect((await h.request("POST", "/chat/operator/webhook", undefined, body, { "x-hub-signature-256": signature })).status).toBe(200)
      const rejected = await eventually(
        async () => {
          const page = await h.request("GET", "/chat/templates?status=REJECTED", a.live_key)
          expect(page.status).toBe(200)
          return page.json.data.length > 0 ? page.json.data : undefined
        },
        "the rejection listed",
        15_000
      )
      expect(rejected).toMatchObject([{ name: "lane_two", status: "REJECTED", rejected_reason: "INVALID_FORMAT" }])
    })

    it("never answers another store's page, nor the other mode's", async () => {
      const ofA = await h.request("GET", "/chat/templates", a.live_key)
      await h.request("GET", "/chat/templates", b.live_key)
      const ofB = await h.request("GET", "/chat/templates", b.live_key)
      expect(ofA.json.data.length).toBeGreaterThan(0)
      expect(ofB.status).toBe(200)
      expect(ofB.json.data).toEqual([])
      // templates belong to the store: its test key lists the same ones
      await h.request("GET", "/chat/templates", a.test_key)
      expect((await h.request("GET", "/chat/templates", a.test_key)).text).toBe((await h.request("GET", "/chat/templates", a.live_key)).text)
    })

    it("refuses as the usual path does: unknown key, bad parameters, a cursor it did not issue", async () => {
      await h.request("GET", "/chat/templates", a.live_key)
      const unknown = await h.request("GET", "/chat/templates", "sk_live_00000000000000000000000000000000")
      expect(unknown.status).toBe(401)
      expect(unknown.json.error.code).toBe("unauthorized")
      expect((await h.request("GET", "/chat/templates")).status).toBe(401)
      const badLimit = await h.request("GET", "/chat/templates?limit=abc", a.live_key)
      expect(badLimit.status).toBe(400)
      expect(badLimit.json.error.details[0]).toEqual({ path: "limit", message: 'must be a number (got "abc")' })
      const twice = await h.request("GET", "/chat/templates?status=APPROVED&status=PAUSED", a.live_key)
      expect(twice.status).toBe(400)
      expect(twice.json.error.details[0].path).toBe("status")
      const cursor = await h.request("GET", "/chat/templates?cursor=nope", a.live_key)
      expect(cursor.status).toBe(400)
      expect(cursor.json.error.details[0]).toEqual({ path: "cursor", message: "is not a cursor this API issued" })
      const head = await fetch(`${h.base}/chat/templates`, { method: "HEAD", headers: { authorization: `Bearer ${a.live_key}` } })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe("")
    })

    it("answers a signed webhook the same whether its body declares its length (lane) or comes chunked (usual path)", async () => {
      const inbox = async () => Number((await h.query<{ n: number | string }>("SELECT count(*) AS n FROM inbox WHERE body LIKE '%lane-test%'"))[0].n)
      const before = await inbox()
      const payload = JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "lane-test", changes: [] }] })
      const signed = { "content-type": "application/json", "x-hub-signature-256": signOperatorPayload(payload, "e2e-app-secret") }
      const deep = `${"[".repeat(200)}${"]".repeat(200)}`
      const cases = [
        { body: payload, headers: signed, status: 200 },
        {
          body: payload,
          headers: { "content-type": "application/json", "x-hub-signature-256": signOperatorPayload(payload, "not-the-secret") },
          status: 401
        },
        { body: payload, headers: { "content-type": "application/json" }, status: 401 },
        {
          body: deep,
          headers: { "content-type": "application/json", "x-hub-signature-256": signOperatorPayload(deep, "e2e-app-secret") },
          status: 400
        },
        { body: payload, headers: { ...signed, "content-type": "text/plain" }, status: 200 }
      ]
      /** This test's inbox rows stored after the row `after` (ids are time-ordered): kind and body, the rest the processing's. */
      const rowsAfter = async (after: string) =>
        (await h.query<{ kind: string; body: string }>(`SELECT kind, body FROM inbox WHERE id > '${after}' ORDER BY id`)).filter(
          (row) => row.body === payload || row.body === deep
        )
      const last = async () => (await h.query<{ id: string | null }>("SELECT max(id) AS id FROM inbox"))[0].id ?? ""
      /** The server's WARN lines of a refused signature so far (stderr reaches the test a little after the answer). */
      const warned = () => h.stderr().split("operator webhook refused: bad or missing X-Hub-Signature-256").length - 1
      const warnedReaches = async (n: number) => {
        for (let waited = 0; warned() < n && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20))
        return warned()
      }
      for (const { body, headers, status } of cases) {
        const warnedBefore = warned()
        const beforeLane = await last()
        const lane = await post(h.base, "/chat/operator/webhook", body, headers, false)
        const byLane = await rowsAfter(beforeLane)
        const beforeUsual = await last()
        const usual = await post(h.base, "/chat/operator/webhook", body, headers, true)
        expect(lane.status).toBe(status)
        expect(lane).toEqual(usual)
        // the same row stored by either path, none when refused
        expect(byLane).toEqual(status === 200 ? [{ kind: "sandbox", body }] : [])
        expect(await rowsAfter(beforeUsual)).toEqual(byLane)
        // a refused signature is logged once by either path
        expect(await warnedReaches(warnedBefore + (status === 401 ? 2 : 0))).toBe(warnedBefore + (status === 401 ? 2 : 0))
      }
      expect(JSON.parse((await post(h.base, "/chat/operator/webhook", payload, signed, false)).text)).toEqual({ received: true })
      // two accepted POSTs per accepted case, one more just above: each stored once
      expect(await inbox()).toBe(before + 5)
    })
  })
