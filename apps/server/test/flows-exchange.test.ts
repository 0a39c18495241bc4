/**
 * `POST /chat/sandbox/flows/{id}/data-exchange` end to end (issue 15 item 10), on SQLite and
 * PostgreSQL over real HTTP: the emulator plays the customer's WhatsApp client, encrypts the
 * request with the business public key we registered (RSA-OAEP, AES-GCM), signs it with the
 * app secret and POSTs it to our hosted endpoint; that one forwards it to a small local
 * node:http server (the caller's endpoint) as signed plain JSON, encrypts the reply with the
 * inverted IV, and the emulator decrypts it. The route answers what the client saw; refusals
 * (427 for an unknown token) come back with their status; the calls show in the stats.
 */
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { type Forwarded, startCallerEndpoint } from "./fixtures/flowEndpoint.js"
import { bookingFlow } from "./fixtures/flows.js"
import { startServer, type CreatedStore, type Harness } from "./harness.js"
import { bookingFlowToken, expectForwardedExchange } from "./steps.js"

const json = bookingFlow({ greeting: true })

/** The caller's endpoint: answers each action as a booking backend would. */
const answer = (request: Record<string, any>): unknown => {
  switch (request.action) {
    case "ping":
      return { data: { status: "active" } }
    case "INIT":
    case "BACK":
      return { screen: "START", data: { greeting: "Hello again" } }
    default:
      return { screen: "SUMMARY", data: { summary: `Booked for ${request.data?.name}` } }
  }
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`sandbox flow data exchange (${dialect.name}, emulator, real encryption, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let local: Server
    let localUrl: string
    const received: Array<Forwarded> = []
    const customer = "+15551239401"

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      ;({ server: local, url: localUrl } = await startCallerEndpoint("/booking", answer, received))
    })
    afterAll(async () => {
      local?.close()
      await h?.stop()
    })

    it("goes from the emulator through our endpoint to the caller's and back, decrypted; refusals keep their status", async () => {
      const flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Booking", categories: ["APPOINTMENT_BOOKING"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.test_key, { json })).status).toBe(200)
      const route = `/chat/sandbox/flows/${flow.id}/data-exchange`
      // no endpoint yet: nothing to call
      const none = await h.request("POST", route, a.test_key, { phone: customer, action: "ping" })
      expect(none.status).toBe(409)
      expect(none.json.error.code).toBe("invalid_state")
      const put = await h.request("PUT", `/chat/flows/${flow.id}/endpoint`, a.test_key, { url: localUrl })
      expect(put.status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
      const token = await bookingFlowToken(h, a.test_key, flow.id, customer)
      expect(token).toEqual(expect.any(String))

      const ping = await h.request("POST", route, a.test_key, { phone: customer, action: "ping" })
      expect(ping.status, JSON.stringify(ping.json)).toBe(200)
      expect(ping.json).toMatchObject({ flow_id: flow.id, action: "ping", status: 200, response: { data: { status: "active" } }, error: null })

      const init = await h.request("POST", route, a.test_key, { phone: customer, action: "INIT", flow_token: token })
      expect(init.json).toMatchObject({ status: 200, response: { screen: "START", data: { greeting: "Hello again" } } })
      const exchange = await h.request("POST", route, a.test_key, {
        phone: customer,
        action: "data_exchange",
        screen: "START",
        data: { name: "Ana" },
        flow_token: token
      })
      expect(exchange.status).toBe(200)
      expect(exchange.json).toMatchObject({ action: "data_exchange", flow_token: token, status: 200, error: null })
      expect(exchange.json.response).toEqual({ screen: "SUMMARY", data: { summary: "Booked for Ana" } })
      expect(exchange.json.latency_ms).toEqual(expect.any(Number))
      // the caller's endpoint got plain JSON from our endpoint (with our flow id), signed with the flow's endpoint secret
      const forwarded = received.at(-1)!
      expectForwardedExchange(forwarded, put.json.endpoint_secret, token, flow.id, { version: "3.0" })
      const back = await h.request("POST", route, a.test_key, { phone: customer, action: "BACK", screen: "SUMMARY", flow_token: token })
      expect(back.json).toMatchObject({ status: 200, response: { screen: "START" } })

      // a token no send carried: our endpoint answers 427, and the client sees it
      const forwardedBefore = received.length
      const stale = await h.request("POST", route, a.test_key, {
        phone: customer,
        action: "data_exchange",
        screen: "START",
        data: {},
        flow_token: "never-sent"
      })
      expect(stale.status).toBe(200)
      expect(stale.json).toMatchObject({
        status: 427,
        response: null,
        error: { error_msg: expect.any(String), error: { code: "flow_token_invalid" } }
      })
      expect(received.length).toBe(forwardedBefore)

      // bad requests: 400 without a token (but ping), for another customer's token, a bad phone or action; 403 with a live key; 404 elsewhere
      expect((await h.request("POST", route, a.test_key, { phone: customer, action: "INIT" })).json.error).toMatchObject({
        code: "validation_failed"
      })
      expect((await h.request("POST", route, a.test_key, { phone: "+15551239499", action: "INIT", flow_token: token })).status).toBe(400)
      expect((await h.request("POST", route, a.test_key, { phone: "nope", action: "ping" })).status).toBe(400)
      expect((await h.request("POST", route, a.test_key, { phone: customer, action: "complete" })).status).toBe(400)
      expect((await h.request("POST", route, a.live_key, { phone: customer, action: "ping" })).status).toBe(403)
      const elsewhere = await h.request("POST", route, b.test_key, { phone: customer, action: "ping" })
      expect(elsewhere.status).toBe(404)
      expect(elsewhere.json.error.code).toBe("resource_not_found")
      expect((await h.request("POST", "/chat/sandbox/flows/flw_nope/data-exchange", a.test_key, { phone: customer, action: "ping" })).status).toBe(
        404
      )

      // every call of the emulator reached our endpoint and is counted: ping, INIT, data_exchange, BACK answered, 1 refused
      const stats = (await h.request("GET", `/chat/flows/${flow.id}/stats`, a.test_key)).json
      expect(stats.endpoint).toMatchObject({ requests: 5, errors: 1, error_rate: 0.2 })

      // a deprecated flow is not opened
      expect((await h.request("POST", `/chat/flows/${flow.id}/deprecate`, a.test_key)).status).toBe(200)
      expect((await h.request("POST", route, a.test_key, { phone: customer, action: "ping" })).status).toBe(409)
    })
  })
