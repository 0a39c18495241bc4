/**
 * The webhook tools (issue 31, item 4), on SQLite and PostgreSQL over real HTTP: "send test
 * event" (`POST /chat/webhooks/{id}/test`) delivers a signed `webhook.test` event through the
 * normal delivery path; a failed delivery is listed (`GET /chat/webhook-deliveries`, filtered)
 * with its answer, and `POST /chat/webhook-deliveries/{id}/redeliver` sends the same event
 * again (the same `webhook-id`) once the receiver works. Another store's ids answer 404.
 */
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`webhook tools: test event and redeliver (${dialect.name})`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let endpoint: { id: string; secret: string }

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver(500)
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events: ["message.status"] })
      expect(hook.status, hook.text).toBe(201)
      endpoint = hook.json
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
      receiver?.server.close()
    })

    const attempt = (key: string, id: string) =>
      eventually(
        async () => {
          const r = await h.request("GET", `/chat/webhook-deliveries/${id}`, key)
          return r.status === 200 ? r.json : undefined
        },
        `delivery ${id} recorded`,
        15_000
      )

    it("sends a signed test event to a failing receiver, lists the failure, and redelivers it to the receiver once it works", async () => {
      const test = await h.request("POST", `/chat/webhooks/${endpoint.id}/test`, a.test_key)
      expect(test.status, test.text).toBe(202)
      expect(test.json).toMatchObject({
        id: expect.stringMatching(/^dlv_/),
        event_id: expect.stringMatching(/^evt_/),
        endpoint_id: endpoint.id,
        status: "queued"
      })

      const failed = await attempt(a.test_key, test.json.id)
      expect(failed).toMatchObject({
        id: test.json.id,
        endpoint_id: endpoint.id,
        event_id: test.json.event_id,
        event_type: "webhook.test",
        attempt: 1
      })
      expect(failed.status_code).toBe(500)
      expect(failed.error).toBe("HTTP 500")

      // the body is signed under the endpoint's secret, with the event id as webhook-id
      const first = receiver.received[0]
      const verified = new Webhook(endpoint.secret).verify(first.body, first.headers as Record<string, string>) as any
      expect(verified).toMatchObject({ id: test.json.event_id, type: "webhook.test", data: { endpoint_id: endpoint.id } })
      expect(first.headers["webhook-id"]).toBe(test.json.event_id)

      const failures = await h.request("GET", `/chat/webhook-deliveries?outcome=failed&endpoint_id=${endpoint.id}`, a.test_key)
      expect(failures.status, failures.text).toBe(200)
      expect(failures.json.data.map((d: any) => d.id)).toContain(test.json.id)
      const successes = await h.request("GET", "/chat/webhook-deliveries?outcome=succeeded", a.test_key)
      expect(successes.json.data).toEqual([])

      receiver.setStatus(204)
      const again = await h.request("POST", `/chat/webhook-deliveries/${test.json.id}/redeliver`, a.test_key)
      expect(again.status, again.text).toBe(202)
      expect(again.json).toMatchObject({ event_id: test.json.event_id, endpoint_id: endpoint.id, status: "queued" })
      expect(again.json.id).not.toBe(test.json.id)
      const delivered = await attempt(a.test_key, again.json.id)
      expect(delivered).toMatchObject({ event_id: test.json.event_id, status_code: 204, error: null })
      // the same event, the same webhook-id, signed again
      const sameEvent = receiver.received.filter((r) => r.headers["webhook-id"] === test.json.event_id)
      expect(sameEvent.length).toBeGreaterThanOrEqual(2)
      for (const r of sameEvent) expect(() => new Webhook(endpoint.secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow()

      const byEvent = await h.request("GET", `/chat/webhook-deliveries?event_id=${test.json.event_id}&outcome=succeeded`, a.test_key)
      expect(byEvent.json.data.map((d: any) => d.id)).toContain(again.json.id)
    }, 60_000)

    it("answers 404 for another store's (or mode's) endpoint and delivery, and for malformed ids", async () => {
      const mine = await h.request("GET", `/chat/webhook-deliveries?endpoint_id=${endpoint.id}`, a.test_key)
      const deliveryId = mine.json.data[0].id
      for (const key of [b.test_key, b.live_key, a.live_key]) {
        expect((await h.request("POST", `/chat/webhooks/${endpoint.id}/test`, key)).status).toBe(404)
        const redeliver = await h.request("POST", `/chat/webhook-deliveries/${deliveryId}/redeliver`, key)
        expect(redeliver.status).toBe(404)
        expect(redeliver.json.error.code).toBe("resource_not_found")
        expect((await h.request("GET", `/chat/webhook-deliveries/${deliveryId}`, key)).status).toBe(404)
        expect((await h.request("GET", "/chat/webhook-deliveries", key)).json.data).toEqual([])
      }
      expect((await h.request("POST", "/chat/webhooks/whe_nope/test", a.test_key)).status).toBe(404)
      expect((await h.request("POST", "/chat/webhook-deliveries/nope/redeliver", a.test_key)).status).toBe(404)
      expect((await h.request("POST", `/chat/webhooks/${endpoint.id}/test`)).status).toBe(401)
    })

    it("refuses a bad filter with 400 naming it, and a disabled endpoint's test with 409", async () => {
      const bad = await h.request("GET", "/chat/webhook-deliveries?outcome=maybe", a.test_key)
      expect(bad.status).toBe(400)
      expect(bad.json.error.code).toBe("validation_failed")
      expect(bad.text).toContain("outcome")
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events: ["message.status"] })
      expect((await h.request("PATCH", `/chat/webhooks/${hook.json.id}`, a.test_key, { status: "disabled" })).status).toBe(200)
      const refused = await h.request("POST", `/chat/webhooks/${hook.json.id}/test`, a.test_key)
      expect(refused.status).toBe(409)
      expect(refused.json.error.code).toBe("invalid_state")
    })
  })
