/**
 * Calls end to end (issue 14), on SQLite and PostgreSQL over real HTTP with the emulator:
 * permissions (the budget, the reply webhook, the refusals), as a new user tries them with a
 * test key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

const HOUR = 3_600_000

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`calls end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, {
        url: receiver.url,
        events: ["call.permission_updated", "call.ringing", "call.accepted", "call.rejected", "call.ended"]
      })
      expect(hook.status).toBe(201)
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
      receiver?.server.close()
    })

    const events = (type: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type)
    const writes = async (key: string, phone: string) => {
      const res = await h.request("POST", "/chat/sandbox/inbound-messages", key, { from: phone, text: "hi" })
      expect(res.status).toBe(202)
    }

    it("permissions: check, request, accept, refused again within 24 h with next_allowed_at", async () => {
      const phone = "+15551239101"
      const first = await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.test_key)
      expect(first.status).toBe(200)
      expect(first.json).toMatchObject({ phone, status: "no_permission", expires_at: null, can_start_call: false, can_request_permission: true })
      expect(first.json.limits).toEqual([
        { period: "PT24H", max: 1, used: 0, frees_at: null },
        { period: "P7D", max: 2, used: 0, frees_at: null }
      ])

      const outside = await h.request("POST", "/chat/calls/permissions", a.test_key, { phone })
      expect(outside.status).toBe(409)
      expect(outside.json.error.code).toBe("outside_customer_window")

      await writes(a.test_key, phone)
      const sent = await h.request("POST", "/chat/calls/permissions", a.test_key, { phone, body: "May we call you about order 42?" })
      expect(sent.status).toBe(202)
      expect(sent.json).toMatchObject({ phone, sent_via: "interactive" })
      expect(sent.json.message_id).toMatch(/^wamid\./)
      expect(sent.json.permission.limits.map((l: any) => l.used)).toEqual([1, 1])

      const again = await h.request("POST", "/chat/calls/permissions", a.test_key, { phone })
      expect(again.status).toBe(409)
      expect(again.json.error.code).toBe("call_permission_request_limited")
      const next = Date.parse(again.json.error.details.next_allowed_at)
      expect(next - Date.parse(sent.json.sent_at)).toBe(24 * HOUR)

      const reply = await h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone, response: "accept" })
      expect(reply.status).toBe(202)
      expect(reply.json.permission).toMatchObject({ status: "temporary", can_start_call: true })
      const now = await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.test_key)
      expect(now.json.status).toBe("temporary")
      const expiresIn = Date.parse(now.json.expires_at) - Date.now()
      expect(expiresIn).toBeGreaterThan(7 * 24 * HOUR - 60_000)
      expect(expiresIn).toBeLessThanOrEqual(7 * 24 * HOUR)
      expect(now.json.limits.find((l: any) => l.period === "PT24H")).toMatchObject({ used: 1, max: 1 })
      await eventually(
        async () => events("call.permission_updated").some((e) => e.data.phone === phone && e.data.status === "temporary"),
        "event",
        5000
      )

      // another store, and the live side of this one, know nothing of it
      expect((await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, b.test_key)).json.status).toBe("no_permission")
      expect((await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.live_key)).json.limits[0].used).toBe(0)

      const reject = await h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone, response: "reject" })
      expect(reject.status).toBe(202)
      expect(reject.json.permission.status).toBe("no_permission")
    })

    it("100 concurrent permission requests for one customer send exactly one message", async () => {
      const phone = "+15551239102"
      await writes(a.test_key, phone)
      const answers = await Promise.all(Array.from({ length: 100 }, () => h.request("POST", "/chat/calls/permissions", a.test_key, { phone })))
      const statuses = answers.map((r) => r.status)
      expect(statuses.filter((s) => s === 202)).toHaveLength(1)
      expect(statuses.filter((s) => s === 409)).toHaveLength(99)
      expect(answers.filter((r) => r.status === 409).every((r) => r.json.error.code === "call_permission_request_limited")).toBe(true)
      const sentTo = await h.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM messages WHERE to_phone = '${phone}' AND type = 'interactive'`)
      expect(Number(sentTo[0].n)).toBe(1)
    })

    it("bad input is a 400 naming the field; sandbox replies need a test key", async () => {
      const bad = await h.request("GET", "/chat/calls/permissions/not-a-phone", a.test_key)
      expect(bad.status).toBe(400)
      expect(bad.json.error.details[0].path).toBe("phone")
      for (const [body, field] of [
        [{}, "phone"],
        [{ phone: "12" }, "phone"],
        [{ phone: "+15551239103", colour: "red" }, "colour"],
        [{ phone: "+15551239103", body: "" }, "body"]
      ] as const) {
        const res = await h.request("POST", "/chat/calls/permissions", a.test_key, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        expect(JSON.stringify(res.json.error.details)).toContain(field)
      }
      const live = await h.request("POST", "/chat/sandbox/call-permission-replies", a.live_key, { phone: "+15551239103", response: "accept" })
      expect(live.status).toBe(403)
      const wrong = await h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone: "+15551239103", response: "maybe" })
      expect(wrong.status).toBe(400)
    })
  })
