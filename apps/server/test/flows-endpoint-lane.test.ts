/**
 * The hosted flow data endpoint on the fast lane (`FastLane.rawJson`, `packages/http/src/flows/Http.ts`
 * `FlowsRaw`): a request whose body declares its length is answered by the lane, a chunked one by
 * the usual path, and both answer every outcome the same, on SQLite and PostgreSQL over real
 * HTTP: the same status, content type and body (for a 200 both decrypt to the same reply), the
 * same request-log row (`flow_endpoint_calls`) and the same forward to the caller's endpoint.
 * Outcomes: 200 (ping, data exchange), 421, 427, 432, 500, 404 (an unknown id, a malformed one,
 * an id of another kind), another store's flow, 400 (not JSON, missing or mistyped fields, an
 * empty body, nested too deep), 413 and 415 (left to the usual path), a query, a trailing
 * slash and an encoded character (left to the router).
 */
import { createHmac } from "node:crypto"
import { request as httpRequest, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { type Forwarded, operatorRequest, startCallerEndpoint } from "./fixtures/flowEndpoint.js"
import { bookingFlow } from "./fixtures/flows.js"
import { eventually, startServer, type CreatedStore, type Harness } from "./harness.js"
import { bookingFlowToken, businessPublicKey } from "./steps.js"

const APP_SECRET = "e2e-app-secret"
const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

interface Answer {
  readonly status: number
  readonly type: string | undefined
  readonly text: string
}

/** A POST whose body declares its length (the lane takes it) or comes chunked (the usual path does). */
const post = (base: string, path: string, body: string, headers: Record<string, string>, chunked: boolean) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(base)
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: "POST",
        headers: chunked ? { ...headers, "transfer-encoding": "chunked" } : { ...headers, "content-length": String(Buffer.byteLength(body)) }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, type: res.headers["content-type"] }))
      }
    )
    req.on("error", reject)
    if (chunked && body.length > 1) {
      const half = Math.floor(body.length / 2)
      req.write(body.slice(0, half))
      req.end(body.slice(half))
    } else req.end(body)
  })

type Row = Record<string, unknown>

const ADMIN_TOKEN = "lane-metrics-token"

/** The value of the sample `name{labels}` (labels in the order the exporter writes them: route, method, status), or 0. */
const counted = (metrics: string, labels: Record<string, string>): number => {
  const wanted = Object.entries(labels)
  for (const line of metrics.split("\n")) {
    if (!line.startsWith("switchboard_http_requests_total{")) continue
    const found = Object.fromEntries(
      [...line.slice(line.indexOf("{") + 1, line.lastIndexOf("}")).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])
    )
    if (wanted.length === Object.keys(found).length && wanted.every(([k, v]) => found[k] === v)) return Number(line.slice(line.lastIndexOf(" ") + 1))
  }
  return 0
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`the hosted flow data endpoint on the fast lane (${dialect.name}, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let local: Server
    let localUrl: string
    const received: Array<Forwarded> = []
    let reply: unknown = { screen: "SUMMARY", data: { summary: "Booked for Ana" } }

    beforeAll(async () => {
      h = await startServer(
        { SWITCHBOARD_ALLOW_PRIVATE_URLS: "true", SWITCHBOARD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: "INFO", LOG_FORMAT: "json" },
        { dialect }
      )
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      ;({ server: local, url: localUrl } = await startCallerEndpoint(
        "/flow-data",
        (request) => (request.action === "ping" ? { data: { status: "active" } } : reply),
        received
      ))
    })
    afterAll(async () => {
      local?.close()
      await h?.stop()
    })

    it("answers every outcome as the usual path does: status, content type, body, the request-log row and the forward", async () => {
      const flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Booking", categories: ["APPOINTMENT_BOOKING"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.test_key, { json: bookingFlow() })).status).toBe(200)
      expect((await h.request("PUT", `/chat/flows/${flow.id}/endpoint`, a.test_key, { url: localUrl })).status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
      const other = (await h.request("POST", "/chat/flows", b.test_key, { name: "Other", categories: ["OTHER"] })).json
      expect(other.id).toMatch(/^flw_/)
      const publicKey = await businessPublicKey(h)
      const token = await bookingFlowToken(h, a.test_key, flow.id, "+15551239401")
      const rows = async (): Promise<Array<Row>> =>
        h.query<Row>(`SELECT id, store_id, mode, flow_id, action, http_status, ok, error FROM flow_endpoint_calls`)

      /** Sends `body` both ways; answers both answers and the request-log rows each added. */
      const both = async (path: string, body: string, headers: Record<string, string>, logged: number) => {
        const seen = new Set((await rows()).map((r) => r.id))
        const forwardedBefore = received.length
        const lane = await post(h.base, path, body, headers, false)
        const laneRows = await eventually(
          async () => {
            const added = (await rows()).filter((r) => !seen.has(r.id))
            return added.length === logged ? added : undefined
          },
          `${path}: the lane's request-log row`,
          5_000
        )
        for (const row of laneRows) seen.add(row.id)
        const laneForwards = received.slice(forwardedBefore).map((f) => JSON.parse(f.body))
        const usual = await post(h.base, path, body, headers, true)
        const usualRows = await eventually(
          async () => {
            const added = (await rows()).filter((r) => !seen.has(r.id))
            return added.length === logged ? added : undefined
          },
          `${path}: the usual path's request-log row`,
          5_000
        )
        const usualForwards = received.slice(forwardedBefore + laneForwards.length).map((f) => JSON.parse(f.body))
        const strip = ({ id: _id, ...row }: Row) => ({ ...row, ok: Number(row.ok), http_status: Number(row.http_status) })
        expect(laneRows.map(strip), path).toEqual(usualRows.map(strip))
        expect(laneForwards, path).toEqual(usualForwards)
        return { lane, usual, rows: laneRows.map(strip), forwards: laneForwards }
      }

      const at = `/chat/flow-endpoint/${flow.id}`
      const json = { "content-type": "application/json" }
      /** An encrypted, signed operator request; both answers decrypt to the same reply. */
      const exchange = async (payload: unknown, expected: unknown) => {
        const request = operatorRequest(publicKey, payload)
        const body = JSON.stringify(request.body)
        const { lane, usual, rows: logged } = await both(at, body, { ...json, "x-hub-signature-256": sign(body) }, 1)
        expect(lane.status).toBe(200)
        expect({ status: lane.status, type: lane.type }).toEqual({ status: usual.status, type: usual.type })
        expect(lane.type).toBe("text/plain")
        expect(request.decrypt(lane.text)).toEqual(expected)
        expect(request.decrypt(usual.text)).toEqual(request.decrypt(lane.text))
        return logged
      }
      expect(await exchange({ version: "3.0", action: "ping" }, { data: { status: "active" } })).toMatchObject([
        { action: "ping", http_status: 200, ok: 1, error: null, flow_id: flow.id, store_id: a.id }
      ])
      const dataExchange = { version: "3.0", action: "data_exchange", screen: "START", data: { name: "Ana" }, flow_token: token }
      expect(await exchange(dataExchange, reply)).toMatchObject([{ action: "data_exchange", http_status: 200, ok: 1 }])
      expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ ...dataExchange, flow_id: flow.id })

      /** A refusal: the same status, content type and bytes both ways. */
      const same = async (path: string, body: string, headers: Record<string, string>, status: number, logged = 0) => {
        const { lane, usual, rows: added } = await both(path, body, headers, logged)
        expect(lane, path).toEqual(usual)
        expect(lane.status, `${path} ${body.slice(0, 60)}`).toBe(status)
        return { answer: lane, rows: added }
      }
      const signed = (payload: unknown, secret = APP_SECRET) => {
        const body = JSON.stringify(operatorRequest(publicKey, payload).body)
        return { body, headers: { ...json, "x-hub-signature-256": sign(body, secret) } }
      }

      const unknownToken = signed({ ...dataExchange, flow_token: "never-sent" })
      const r427 = await same(at, unknownToken.body, unknownToken.headers, 427, 1)
      expect(JSON.parse(r427.answer.text)).toEqual({
        error_msg: "This flow token is no longer valid.",
        error: { code: "flow_token_invalid", message: "This flow token is no longer valid." }
      })
      const garbage = JSON.stringify({ encrypted_flow_data: "AAAA", encrypted_aes_key: "AAAA", initial_vector: "AAAA" })
      expect((await same(at, garbage, { ...json, "x-hub-signature-256": sign(garbage) }, 421, 1)).rows).toMatchObject([{ http_status: 421, ok: 0 }])
      const unsigned = signed(dataExchange)
      expect(JSON.parse((await same(at, unsigned.body, json, 432, 1)).answer.text).error.code).toBe("signature_invalid")
      const wrongSecret = signed(dataExchange, "not-the-app-secret")
      await same(at, wrongSecret.body, wrongSecret.headers, 432, 1)
      reply = { screen: "NOWHERE", data: {} }
      const badReply = signed({ version: "3.0", action: "navigate", screen: "START", data: {}, flow_token: token })
      expect((await same(at, badReply.body, badReply.headers, 500, 1)).rows).toMatchObject([{ action: "navigate", http_status: 500, ok: 0 }])
      reply = { screen: "SUMMARY", data: { summary: "Booked for Ana" } }

      // 404: an unknown id, a malformed one, an id of another kind; another store's flow is that store's
      const valid = signed(dataExchange)
      const unknownId = `${flow.id.slice(0, -4)}${flow.id.endsWith("AAAA") ? "BBBB" : "AAAA"}`
      for (const id of [unknownId, "nope", a.id]) {
        const { answer } = await same(`/chat/flow-endpoint/${id}`, valid.body, valid.headers, 404)
        expect(JSON.parse(answer.text).error.code).toBe("resource_not_found")
      }
      const ofB = await same(`/chat/flow-endpoint/${other.id}`, valid.body, valid.headers, 421, 1)
      expect(ofB.rows).toMatchObject([{ store_id: b.id, flow_id: other.id, http_status: 421 }])
      await same(`/chat/flow-endpoint/${other.id}`, valid.body, json, 432, 1)

      // the payload schema's refusals, and the intake's
      const malformed = [
        "{",
        "not json",
        "{}",
        "null",
        "[]",
        '"text"',
        JSON.stringify({ encrypted_flow_data: "AAAA", encrypted_aes_key: "AAAA" }),
        JSON.stringify({ encrypted_flow_data: 1, encrypted_aes_key: "AAAA", initial_vector: null }),
        `${"[".repeat(200)}${"]".repeat(200)}`,
        `{"encrypted_flow_data":${"[".repeat(129)}${"]".repeat(129)}}`
      ]
      for (const body of malformed) {
        const { answer } = await same(at, body, { ...json, "x-hub-signature-256": sign(body) }, 400)
        expect(JSON.parse(answer.text).error.code, body).toBe("validation_failed")
      }
      // no body at all is `{}` both ways
      const empty = await same(at, "", json, 400)
      expect(JSON.parse(empty.answer.text).error.details).toEqual([{ path: "encrypted_flow_data", message: "is required" }])
      // no content type counts as JSON; another media type, a body over the limit: left to the usual path
      await same(at, valid.body, { "x-hub-signature-256": valid.headers["x-hub-signature-256"] }, 200, 1)
      await same(at, valid.body, { ...valid.headers, "content-type": "application/json; charset=utf-8" }, 200, 1)
      await same(at, valid.body, { ...valid.headers, "content-type": "text/plain" }, 415)
      const huge = JSON.stringify({ encrypted_flow_data: "A".repeat(1024 * 1024), encrypted_aes_key: "AAAA", initial_vector: "AAAA" })
      await same(at, huge, json, 413)
      // paths the router reads its own way: a query, a trailing slash, an encoded character
      await same(`${at}?x=1`, valid.body, valid.headers, 400)
      await same(`${at}/`, valid.body, valid.headers, 404)
      await same(`/chat/flow-endpoint/${flow.id.replace("_", "%5F")}`, unknownToken.body, unknownToken.headers, 427, 1)
    })

    it("is counted and logged as the usual path: the route's template, method and status, one access line each", async () => {
      const cases = [
        {
          path: "/chat/flow-endpoint/flw_00000000000000000000000000",
          body: JSON.stringify({ encrypted_flow_data: "A", encrypted_aes_key: "A", initial_vector: "A" }),
          status: "404"
        },
        { path: "/chat/flow-endpoint/nope", body: "{", status: "400" }
      ]
      for (const [n, { path, body, status }] of cases.entries()) {
        const labels = { route: "/chat/flow-endpoint/:id", method: "POST", status }
        const before = counted((await h.request("GET", "/metrics", ADMIN_TOKEN)).text, labels)
        const headers = (id: string) => ({ "content-type": "application/json", "x-request-id": id })
        expect((await post(h.base, path, body, headers(`lane-${n}`), false)).status).toBe(Number(status))
        const afterLane = counted((await h.request("GET", "/metrics", ADMIN_TOKEN)).text, labels)
        expect((await post(h.base, path, body, headers(`usual-${n}`), true)).status).toBe(Number(status))
        const afterUsual = counted((await h.request("GET", "/metrics", ADMIN_TOKEN)).text, labels)
        expect([afterLane - before, afterUsual - afterLane], path).toEqual([1, 1])
        const lines = await eventually(
          async () => {
            const all = h
              .stderr()
              .split("\n")
              .filter((l) => l.startsWith("{"))
              .map((l) => JSON.parse(l).annotations ?? {})
            const lane = all.filter((a) => a.request_id === `lane-${n}`)
            const usual = all.filter((a) => a.request_id === `usual-${n}`)
            return lane.length > 0 && usual.length > 0 ? { lane, usual } : undefined
          },
          "both access lines",
          5_000
        )
        const fields = ({ duration_ms, request_id, ...rest }: Record<string, unknown>) => ({ ...rest, duration: typeof duration_ms })
        expect(lines.lane.map(fields), path).toEqual(lines.usual.map(fields))
        expect(lines.lane).toHaveLength(1)
        expect(lines.lane[0]).toMatchObject({ method: "POST", route: "/chat/flow-endpoint/:id", status: Number(status) })
      }
    })
  })
