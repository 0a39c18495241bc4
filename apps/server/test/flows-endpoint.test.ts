/**
 * The hosted data endpoint end to end (issue 15 item 7), on SQLite and PostgreSQL over real
 * HTTP: the test plays the operator with real encryption (RSA-OAEP SHA-256 over the AES key
 * registered at the emulator, AES-GCM payload) against our `/chat/flow-endpoint/{id}`, which
 * forwards to a small local server as signed plain JSON (verified with `standardwebhooks`),
 * checks its reply and encrypts it with the inverted IV; 421, 427 and a refused reply are
 * answered and counted in the stats.
 */
import { createHmac } from "node:crypto"
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { type Forwarded, operatorRequest, startCallerEndpoint } from "./fixtures/flowEndpoint.js"
import { bookingFlow } from "./fixtures/flows.js"
import { startServer, type CreatedStore, type Harness } from "./harness.js"
import { bookingFlowToken, businessPublicKey, expectForwardedExchange } from "./steps.js"

const json = bookingFlow()

/** `X-Hub-Signature-256` as the operator signs its requests: HMAC-SHA256 of the raw body with the app secret. */
const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`the hosted flow data endpoint (${dialect.name}, real encryption, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let local: Server
    let localUrl: string
    const received: Array<Forwarded> = []
    let reply: unknown = { screen: "SUMMARY", data: { summary: "Booked for Ana" } }
    let pingReply: unknown

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      ;({ server: local, url: localUrl } = await startCallerEndpoint(
        "/flow-data",
        (request) => (request.action === "ping" ? (pingReply ?? { data: { status: "active" } }) : reply),
        received
      ))
    })
    afterAll(async () => {
      local?.close()
      await h?.stop()
    })

    it("decrypts, forwards signed plain JSON to the caller, checks and encrypts the reply; 421, 427, 432 and bad replies are refused and counted", async () => {
      const customer = "+15551239301"
      const flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Booking", categories: ["APPOINTMENT_BOOKING"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.test_key, { json })).status).toBe(200)
      const bad = await h.request("PUT", `/chat/flows/${flow.id}/endpoint`, a.test_key, { url: "ftp://nope" })
      expect(bad.status).toBe(400)
      const put = await h.request("PUT", `/chat/flows/${flow.id}/endpoint`, a.test_key, { url: localUrl })
      expect(put.status).toBe(200)
      expect(put.json).toMatchObject({ endpoint_url: localUrl, endpoint_secret: expect.stringMatching(/^whsec_/) })
      expect(put.json.hosted_endpoint_url).toContain(`/chat/flow-endpoint/${flow.id}`)
      // publishing pings the caller's endpoint first: an unhealthy one keeps the flow a draft, with the reason
      pingReply = { data: { status: "down" } }
      const unhealthy = await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)
      expect(unhealthy.status).toBe(409)
      expect(unhealthy.json.error.message).toContain("health check")
      pingReply = undefined
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
      expect((await h.request("PUT", `/chat/flows/${flow.id}/endpoint`, a.test_key, { url: localUrl })).json.error.code).toBe("flow_published")

      // the public key the operator was given
      const publicKey = await businessPublicKey(h)
      const token = await bookingFlowToken(h, a.test_key, flow.id, customer)
      const call = async (payload: unknown, secret: string | null = h.env.SWITCHBOARD_EMULATOR_APP_SECRET) => {
        const request = operatorRequest(publicKey, payload)
        const body = JSON.stringify(request.body)
        const res = await fetch(put.json.hosted_endpoint_url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(secret === null ? {} : { "x-hub-signature-256": sign(secret, body) }) },
          body
        })
        return { status: res.status, text: await res.text(), decrypt: request.decrypt }
      }

      const ping = await call({ version: "3.0", action: "ping" })
      expect(ping.status).toBe(200)
      expect(ping.decrypt(ping.text)).toEqual({ data: { status: "active" } })

      const exchange = await call({ version: "3.0", action: "data_exchange", screen: "START", data: { name: "Ana" }, flow_token: token })
      expect(exchange.status).toBe(200)
      expect(exchange.decrypt(exchange.text)).toEqual({ screen: "SUMMARY", data: { summary: "Booked for Ana" } })
      const forwarded = received.at(-1)!
      expect(received.filter((r) => JSON.parse(r.body).action === "ping")).toHaveLength(2)
      expectForwardedExchange(forwarded, put.json.endpoint_secret, token, flow.id)

      const unknown = await call({ version: "3.0", action: "data_exchange", screen: "START", data: {}, flow_token: "never-sent" })
      expect(unknown.status).toBe(427)
      const garbageBody = JSON.stringify({ encrypted_flow_data: "AAAA", encrypted_aes_key: "AAAA", initial_vector: "AAAA" })
      const garbage = await fetch(put.json.hosted_endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": sign(h.env.SWITCHBOARD_EMULATOR_APP_SECRET, garbageBody) },
        body: garbageBody
      })
      expect(garbage.status).toBe(421)
      // the operator signs its requests with the app secret: unsigned or signed with another secret is 432, and nothing is forwarded
      const forwardedBefore = received.length
      const exchange432 = { version: "3.0", action: "data_exchange", screen: "START", data: { name: "Eve" }, flow_token: token }
      const unsigned = await call(exchange432, null)
      expect(unsigned.status).toBe(432)
      expect(JSON.parse(unsigned.text).error.code).toBe("signature_invalid")
      expect((await call(exchange432, "not-the-app-secret")).status).toBe(432)
      expect(received.length).toBe(forwardedBefore)
      reply = { screen: "NOWHERE", data: {} }
      expect((await call({ version: "3.0", action: "navigate", screen: "START", data: {}, flow_token: token })).status).toBe(500)
      reply = { screen: "SUMMARY", data: { undeclared: 1 } }
      expect((await call({ version: "3.0", action: "data_exchange", screen: "START", data: {}, flow_token: token })).status).toBe(500)

      const stats = (await h.request("GET", `/chat/flows/${flow.id}/stats`, a.test_key)).json
      // fetch (undici) sends a request again once after a 421, as RFC 9110 §15.5.20 allows: 9 requests, 2 of them 421, 2 of them 432
      expect(stats).toMatchObject({ sent: 1, endpoint: { requests: 9, errors: 7, error_rate: 0.7778 } })
      expect(stats.endpoint.p50_latency_ms).toEqual(expect.any(Number))
      expect(stats.endpoint.availability).toBeCloseTo(7 / 9, 3)
    })
  })
