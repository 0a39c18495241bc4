/**
 * Calls end to end (issue 14), on SQLite and PostgreSQL over real HTTP with the emulator:
 * permissions (the budget, the reply webhook, the refusals), the call lifecycle of both
 * directions driven by the operator's webhooks, checked SDP, and another store's ids, as a
 * new user tries them with a test key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Sdp } from "@switchboard/domain"
import { DIALECTS } from "@switchboard/testing"
import { eventually, type startReceiver, type CreatedStore, type Harness, withStores } from "./harness.js"
import { subscribedReceiver } from "./steps.js"

const HOUR = 3_600_000

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`calls end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness, a: CreatedStore, b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>

    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect, { SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }))
      receiver = await subscribedReceiver(h, a.test_key, ["call.permission_updated", "call.ringing", "call.accepted", "call.rejected", "call.ended"])
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

    it("outside the window the request rides on a template with a CALL_PERMISSION_REQUEST button; a template without one is refused, naming it", async () => {
      const template = (name: string, buttons: ReadonlyArray<Record<string, string>>) => ({
        templateData: {
          name,
          category: "UTILITY",
          language: "en_US",
          components: [
            { type: "BODY", text: "We would like to call you about your order." },
            ...(buttons.length > 0 ? [{ type: "BUTTONS", buttons }] : [])
          ]
        }
      })
      expect(
        (await h.request("POST", "/chat/templates", a.live_key, template("call_me", [{ type: "CALL_PERMISSION_REQUEST", text: "Allow calls" }])))
          .status
      ).toBe(201)
      expect((await h.request("POST", "/chat/templates", a.live_key, template("plain_note", []))).status).toBe(201)
      await eventually(
        async () => {
          const approved = (await h.request("GET", "/chat/templates?status=APPROVED", a.live_key)).json.data.map((t: any) => t.name)
          return approved.includes("call_me") && approved.includes("plain_note")
        },
        "both templates approved",
        20_000
      )
      const phone = "+15551239109"
      const plain = await h.request("POST", "/chat/calls/permissions", a.test_key, { phone, template: { name: "plain_note", language: "en_US" } })
      expect(plain.status).toBe(400)
      expect(plain.json.error.code).toBe("validation_failed")
      expect(JSON.stringify(plain.json.error.details)).toContain("template.name")
      // nothing was sent, so the budget is untouched
      expect(
        (await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.test_key)).json.limits.map((l: any) => l.used)
      ).toEqual([0, 0])
      // another store's template of the same name is not this store's
      const foreign = await h.request("POST", "/chat/calls/permissions", b.test_key, { phone, template: { name: "call_me", language: "en_US" } })
      expect(foreign.status).toBe(400)
      const sent = await h.request("POST", "/chat/calls/permissions", a.test_key, { phone, template: { name: "call_me", language: "en_US" } })
      expect(sent.status).toBe(202)
      expect(sent.json).toMatchObject({ phone, sent_via: "template" })
      expect(sent.json.permission.limits.map((l: any) => l.used)).toEqual([1, 1])
    })

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

    /** A customer who wrote, was asked, and accepted: a business-initiated call may start. */
    const permitted = async (phone: string) => {
      await writes(a.test_key, phone)
      expect((await h.request("POST", "/chat/calls/permissions", a.test_key, { phone })).status).toBe(202)
      const reply = await h.request("POST", "/chat/sandbox/call-permission-replies", a.test_key, { phone, response: "accept" })
      expect(reply.json.permission.can_start_call).toBe(true)
    }
    const call = (id: string, key = a.test_key) => h.request("GET", `/chat/calls/${id}`, key)
    const statusOf = async (id: string) => (await call(id)).json.status

    it("a business-initiated call: 409 without permission; with it, calling, ringing, accepted, terminated, ended with a duration", async () => {
      const phone = "+15551239201"
      const refused = await h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
      expect(refused.status).toBe(409)
      expect(refused.json.error.code).toBe("call_permission_required")
      await permitted(phone)
      const connected = await h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
      expect(connected.status).toBe(201)
      expect(connected.json).toMatchObject({ phone, direction: "business_initiated", status: "calling" })
      const id = connected.json.id as string
      expect(id).toMatch(/^call_/)
      await eventually(async () => (await statusOf(id)) === "accepted", "accepted", 10_000)
      expect((await call(id)).json.started_at).toEqual(expect.any(String))
      const busy = await h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
      expect(busy.status).toBe(409)
      expect(busy.json.error.code).toBe("call_in_progress")
      const media = await eventually(
        async () => {
          const m = await h.request("GET", `/chat/calls/${id}/media`, a.test_key)
          return m.json.answer === null ? undefined : m
        },
        "the customer's answer (connect webhook)",
        10_000
      )
      expect(media.json.negotiated_codecs).toContain("opus")
      expect(media.json.answer).toMatchObject({ fingerprint_algorithm: "sha-256", direction: "sendrecv" })
      const ended = await h.request("POST", `/chat/calls/${id}/terminate`, a.test_key)
      expect(ended.status).toBe(200)
      expect(ended.json.status).toBe("ended")
      expect(ended.json.duration_seconds).toEqual(expect.any(Number))
      await eventually(async () => (await call(id)).json.end_status === "COMPLETED", "the operator's terminate webhook", 10_000)
      const again = await h.request("POST", `/chat/calls/${id}/terminate`, a.test_key)
      expect(again.status).toBe(409)
      expect(again.json.error).toMatchObject({ code: "invalid_state", details: { status: "ended" } })
      for (const type of ["call.ringing", "call.accepted", "call.ended"]) {
        await eventually(async () => events(type).some((e) => e.data.id === id), type, 5000)
      }
      expect(events("call.ended").find((e) => e.data.id === id).data.duration_seconds).toEqual(expect.any(Number))
      // a connected call resets the request budget, as the operator does
      const permission = await h.request("GET", `/chat/calls/permissions/${encodeURIComponent(phone)}`, a.test_key)
      expect(permission.json.limits.map((l: any) => l.used)).toEqual([0, 0])
    })

    it("the sandbox outcomes: a number ending in 0000 rejects, one ending in 0001 fails with no answer", async () => {
      const ids: Array<string> = []
      for (const phone of ["+15551230000", "+15551230001"]) {
        await permitted(phone)
        const res = await h.request("POST", "/chat/calls/connect", a.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
        expect(res.status).toBe(201)
        ids.push(res.json.id)
      }
      await eventually(async () => (await statusOf(ids[0])) === "rejected", "rejected", 10_000)
      await eventually(async () => (await statusOf(ids[1])) === "failed", "failed with no answer", 10_000)
      expect((await call(ids[1])).json.end_status).toBe("FAILED")
    })

    it("a bad SDP is a 400 that names what is missing", async () => {
      const noFingerprint = Sdp.EXAMPLE_OFFER.split("\r\n")
        .filter((l) => !l.startsWith("a=fingerprint"))
        .join("\r\n")
      const res = await h.request("POST", "/chat/calls/connect", a.test_key, { phone: "+15551239202", sdp: { type: "offer", sdp: noFingerprint } })
      expect(res.status).toBe(400)
      expect(res.json.error.code).toBe("validation_failed")
      expect(res.json.error.details).toEqual([{ path: "sdp.sdp", message: "has no DTLS fingerprint (a=fingerprint)" }])
      const answerAsOffer = await h.request("POST", "/chat/calls/connect", a.test_key, {
        phone: "+15551239202",
        sdp: { type: "answer", sdp: Sdp.EXAMPLE_OFFER }
      })
      expect(answerAsOffer.status).toBe(400)
    })

    it("a sandbox customer's call is pre-accepted, accepted and ended; another is rejected", async () => {
      const phone = "+15551239203"
      const placed = await h.request("POST", "/chat/sandbox/calls", a.test_key, { phone })
      expect(placed.status).toBe(202)
      const id = placed.json.call_id as string
      expect((await call(id)).json).toMatchObject({ direction: "user_initiated", status: "ringing", phone })
      const customers = await h.request("GET", "/chat/customers", a.test_key)
      expect(customers.json.data.find((c: any) => c.phone === phone)).toMatchObject({ window_open: true })
      const answer = { sdp: { type: "answer", sdp: Sdp.EXAMPLE_ANSWER } }
      const early = await h.request("POST", `/chat/calls/${id}/pre-accept`, a.test_key, answer)
      expect(early.status).toBe(200)
      expect(early.json.status).toBe("pre_accepted")
      const accepted = await h.request("POST", `/chat/calls/${id}/accept`, a.test_key, answer)
      expect(accepted.json.status).toBe("accepted")
      expect((await h.request("POST", `/chat/calls/${id}/pre-accept`, a.test_key, answer)).json.error).toMatchObject({
        code: "invalid_state",
        details: { status: "accepted" }
      })
      const ended = await h.request("POST", `/chat/calls/${id}/terminate`, a.test_key)
      expect(ended.json.status).toBe("ended")
      await eventually(async () => (await call(id)).json.end_status === "COMPLETED", "terminate webhook", 10_000)

      const second = await h.request("POST", "/chat/sandbox/calls", a.test_key, { phone: "+15551239204" })
      const rejected = await h.request("POST", `/chat/calls/${second.json.call_id}/reject`, a.test_key)
      expect(rejected.json.status).toBe("rejected")

      const list = await h.request("GET", "/chat/calls?direction=user_initiated&limit=100", a.test_key)
      expect(list.json.data.map((c: any) => c.id)).toEqual(expect.arrayContaining([id, second.json.call_id]))
      expect(list.json.data.every((c: any) => c.direction === "user_initiated")).toBe(true)
      const byStatus = await h.request("GET", "/chat/calls?status=rejected", a.test_key)
      expect(byStatus.json.data.map((c: any) => c.id)).toContain(second.json.call_id)
      const byPhone = await h.request("GET", `/chat/calls?phone=${encodeURIComponent(phone)}`, a.test_key)
      expect(byPhone.json.data.map((c: any) => c.id)).toEqual([id])
      expect((await h.request("GET", "/chat/calls?phone=nope", a.test_key)).status).toBe(400)
    })

    it("another store's call id, the other mode's, and a malformed id answer 404 resource_not_found on every call route", async () => {
      const placed = await h.request("POST", "/chat/sandbox/calls", a.test_key, { phone: "+15551239205" })
      const id = placed.json.call_id as string
      const answer = { sdp: { type: "answer", sdp: Sdp.EXAMPLE_ANSWER } }
      for (const [key, target] of [
        [b.test_key, id],
        [a.live_key, id],
        [a.test_key, "call_nope"]
      ] as const) {
        for (const [method, path, body] of [
          ["GET", `/chat/calls/${target}`, undefined],
          ["GET", `/chat/calls/${target}/media`, undefined],
          ["POST", `/chat/calls/${target}/pre-accept`, answer],
          ["POST", `/chat/calls/${target}/accept`, answer],
          ["POST", `/chat/calls/${target}/reject`, undefined],
          ["POST", `/chat/calls/${target}/terminate`, undefined]
        ] as const) {
          const res = await h.request(method, path, key, body)
          expect(res.status, `${method} ${path}`).toBe(404)
          expect(res.json.error.code).toBe("resource_not_found")
        }
      }
      expect(await statusOf(id)).toBe("ringing")
    })

    it("the call button goes inside the window only; the deep link names the store's number; a call from the button echoes its payload", async () => {
      const phone = "+15551239301"
      const outside = await h.request("POST", "/chat/calls/button", a.test_key, { phone })
      expect(outside.status).toBe(409)
      expect(outside.json.error.code).toBe("outside_customer_window")
      await writes(a.test_key, phone)
      const sent = await h.request("POST", "/chat/calls/button", a.test_key, { phone, display_text: "Call us", ttl_minutes: 60, payload: "order-42" })
      expect(sent.status).toBe(201)
      expect(sent.json).toMatchObject({ phone, status: "accepted" })
      const rows = await h.query<{ content: string }>(`SELECT content FROM messages WHERE id = '${sent.json.message_id}'`)
      expect(JSON.parse(rows[0].content)).toMatchObject({
        type: "voice_call",
        action: { name: "voice_call", parameters: { display_text: "Call us", ttl_minutes: 60, payload: "order-42" } }
      })
      for (const [body, field] of [
        [{ phone, display_text: "x".repeat(21) }, "display_text"],
        [{ phone, ttl_minutes: 0 }, "ttl_minutes"],
        [{ phone, payload: "x".repeat(513) }, "payload"]
      ] as const) {
        const res = await h.request("POST", "/chat/calls/button", a.test_key, body)
        expect(res.status, field).toBe(400)
        expect(JSON.stringify(res.json.error.details)).toContain(field)
      }
      const link = await h.request("POST", "/chat/calls/deeplink", a.test_key, { payload: "invoice 1001" })
      expect(link.status).toBe(200)
      expect(link.json.url).toBe(`https://wa.me/call/${link.json.phone_number.slice(1)}?biz_payload=invoice+1001`)
      expect((await h.request("POST", "/chat/calls/deeplink", a.test_key, {})).json.url).toMatch(/^https:\/\/wa\.me\/call\/\d+$/)
      const placed = await h.request("POST", "/chat/sandbox/calls", a.test_key, { phone, payload: "order-42" })
      expect((await call(placed.json.call_id)).json.payload).toBe("order-42")
    })

    it("settings: the operator's calling fields at the top level, either casing, answered in upper case; mirrored to the operator", async () => {
      const fresh = await h.request("GET", "/chat/calls/settings", b.test_key)
      expect(fresh.status).toBe(200)
      expect(fresh.json).toMatchObject({ status: "ENABLED", srtp_key_exchange_protocol: "DTLS", updated_at: null })
      const changed = await h.request("PATCH", "/chat/calls/settings", b.test_key, {
        status: "enabled",
        call_icon_visibility: "default",
        call_hours: {
          status: "enabled",
          timezone_id: "Europe/Lisbon",
          weekly_operating_hours: [
            { day_of_week: "monday", open_time: "0900", close_time: "1200" },
            { day_of_week: "MONDAY", open_time: "1300", close_time: "1700" }
          ],
          holiday_schedule: [{ date: "2026-12-25" }]
        },
        callback_permission_status: "ENABLED",
        sip: { status: "disabled", servers: [{ hostname: "sip.example.com", port: 5061, password: "s3cret-sip" }] }
      })
      expect(changed.status).toBe(200)
      expect(changed.json).toMatchObject({
        status: "ENABLED",
        call_icon_visibility: "DEFAULT",
        callback_permission_status: "ENABLED",
        call_hours: { status: "ENABLED", timezone_id: "Europe/Lisbon" },
        sip: { status: "DISABLED", servers: [{ hostname: "sip.example.com", port: 5061, app_id: null, password_set: true }] }
      })
      expect(changed.json.call_hours.weekly_operating_hours.map((r: any) => r.day_of_week)).toEqual(["MONDAY", "MONDAY"])
      const again = await h.request("GET", "/chat/calls/settings", b.test_key)
      expect(again.json).toEqual(changed.json)
      for (const text of [changed.text, again.text]) expect(text).not.toContain("s3cret-sip")
      const stored = await h.query<{ settings: string }>("SELECT settings FROM call_settings")
      expect(stored.map((r) => r.settings).join()).not.toContain("s3cret-sip")
      // another store is untouched
      expect((await h.request("GET", "/chat/calls/settings", a.test_key)).json.call_hours.timezone_id).toBe(null)
    })

    it("settings: overlapping call hours, a bad time zone, too many ranges or holidays are 400s naming the field", async () => {
      const hours = (weekly: Array<object>, extra: object = {}) => ({
        call_hours: { timezone_id: "America/New_York", weekly_operating_hours: weekly, ...extra }
      })
      for (const [body, field] of [
        [
          hours([
            { day_of_week: "TUESDAY", open_time: "0900", close_time: "1300" },
            { day_of_week: "TUESDAY", open_time: "1200", close_time: "1700" }
          ]),
          "open_time"
        ],
        [hours([{ day_of_week: "TUESDAY", open_time: "1700", close_time: "0900" }]), "close_time"],
        [hours([1, 2, 3].map((i) => ({ day_of_week: "FRIDAY", open_time: `0${i}00`, close_time: `0${i}30` }))), "day_of_week"],
        [{ call_hours: { timezone_id: "Mars/Olympus" } }, "timezone_id"],
        [hours([{ day_of_week: "TUESDAY", open_time: "9am", close_time: "1700" }]), "open_time"],
        [
          hours([], { holiday_schedule: Array.from({ length: 21 }, (_, i) => ({ date: `2027-01-${String(i + 1).padStart(2, "0")}` })) }),
          "holiday_schedule"
        ],
        [hours([], { holiday_schedule: [{ date: "2027-02-30" }] }), "date"],
        [{ status: "sometimes" }, "status"],
        [{ sip: { servers: [{ hostname: "sip.example.com", port: 70000 }] } }, "port"],
        [{ colour: "red" }, "colour"]
      ] as const) {
        const res = await h.request("PATCH", "/chat/calls/settings", b.test_key, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.json.error.code).toBe("validation_failed")
        expect(JSON.stringify(res.json.error.details), JSON.stringify(body)).toContain(field)
      }
      expect((await h.request("GET", "/chat/calls/settings", b.test_key)).json.call_hours.timezone_id).toBe("Europe/Lisbon")
    })

    it("settings reach the operator: calling disabled refuses a call (calling_not_enabled); SDES asks offers for a=crypto", async () => {
      const phone = "+15551239401"
      await writes(b.test_key, phone)
      expect((await h.request("POST", "/chat/calls/permissions", b.test_key, { phone })).status).toBe(202)
      await h.request("POST", "/chat/sandbox/call-permission-replies", b.test_key, { phone, response: "accept" })
      expect((await h.request("PATCH", "/chat/calls/settings", b.test_key, { status: "DISABLED" })).json.status).toBe("DISABLED")
      const refused = await h.request("POST", "/chat/calls/connect", b.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
      expect(refused.status).toBe(409)
      expect(refused.json.error.code).toBe("calling_not_enabled")
      const health = await h.request("GET", "/chat/calls/health", b.test_key)
      expect(health.json).toMatchObject({ can_call: false, calling_enabled: false })
      expect(health.json.reasons).toContain("calling is disabled in the settings")
      expect(health.json.recent_failures).toEqual([expect.objectContaining({ operator_code: 138000, count: 1 })])
      await h.request("PATCH", "/chat/calls/settings", b.test_key, { status: "enabled", srtp_key_exchange_protocol: "sdes" })
      const sdes = await h.request("POST", "/chat/calls/connect", b.test_key, { phone, sdp: { type: "offer", sdp: Sdp.EXAMPLE_OFFER } })
      expect(sdes.status).toBe(400)
      expect(sdes.json.error.details).toEqual([{ path: "sdp.sdp", message: "has no SDES key (a=crypto)" }])
    })

    it("health and analytics show what happened", async () => {
      const health = await h.request("GET", "/chat/calls/health", a.test_key)
      expect(health.status).toBe(200)
      expect(health.json).toMatchObject({
        can_call: true,
        reasons: [],
        operator: { health_status: "AVAILABLE" },
        calling_enabled: true,
        webhooks: { call_events_seen: true },
        call_hours: { enabled: false, open_now: true }
      })
      expect(health.json.recent_failures.map((f: any) => f.operator_code)).toContain(138003)
      const stats = await h.request("GET", "/chat/calls/analytics", a.test_key)
      expect(stats.status).toBe(200)
      const { totals } = stats.json
      const all = (await h.request("GET", "/chat/calls?limit=100", a.test_key)).json.data
      expect(totals.total).toBe(all.length)
      expect(totals.business_initiated + totals.user_initiated).toBe(totals.total)
      expect(totals.connected).toBeGreaterThanOrEqual(2)
      expect(totals.rejected).toBeGreaterThanOrEqual(2)
      expect(totals.connected_rate).toBeGreaterThan(0)
      expect(totals.duration_seconds.p50).toEqual(expect.any(Number))
      expect(stats.json.buckets.reduce((n: number, b: any) => n + b.total, 0)).toBe(totals.total)
      const since = new Date(Date.now() - 3 * HOUR).toISOString()
      const hourly = await h.request("GET", `/chat/calls/analytics?granularity=hour&since=${since}`, a.test_key)
      expect(hourly.json.buckets.length).toBeGreaterThanOrEqual(3)
      expect(hourly.json.totals.total).toBe(totals.total)
      const backwards = await h.request("GET", `/chat/calls/analytics?since=${new Date().toISOString()}&until=${since}`, a.test_key)
      expect(backwards.status).toBe(400)
      expect(JSON.stringify(backwards.json.error.details)).toContain("since")
    })
  })
