import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness, withStores } from "./harness.js"
import { subscribedReceiver } from "./steps.js"

const template = (name: string, category: string, text: string, examples: Array<string>) => ({
  templateData: { name, category, language: "en_US", components: [{ type: "BODY", text, example: { body_text: [examples] } }] }
})

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`messaging backbone end to end (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let secret: string
    const customer = "+15551230007"

    beforeAll(async () => {
      ;({ h, a, b } = await withStores(dialect, { SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }))
      const subscribed = await subscribedReceiver(h, a.test_key, ["message.status", "message.received", "customer.opted_out", "customer.opted_in"])
      expect(subscribed.secret).toMatch(/^whsec_/)
      receiver = subscribed
      secret = subscribed.secret
      for (const body of [
        template("order_ready", "UTILITY", "Hi {{1}}, your order is ready.", ["Ana"]),
        template("weekly_news", "MARKETING", "Hi {{1}}, here is what is new this week.", ["Ana"])
      ]) {
        expect((await h.request("POST", "/chat/templates", a.live_key, body)).status).toBe(201)
      }
      await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.live_key)
          return sync.json.data.filter((t: any) => t.status === "APPROVED").length === 2
        },
        "templates approved",
        10_000
      )
    })
    afterAll(async () => {
      await h?.stop()
      receiver?.server.close()
    })

    const events = (type: string) => receiver.received.map((r) => ({ r, body: JSON.parse(r.body) })).filter(({ body }) => body.type === type)

    it("a text outside the window is refused before the customer writes", async () => {
      const res = await h.request("POST", "/chat/messages", a.test_key, { to: customer, type: "text", text: { body: "hi" } })
      expect(res.status).toBe(409)
      expect(res.json.error.code).toBe("outside_customer_window")
    })

    it("a sandbox customer writes: the customer appears with an open window, a text is accepted and read", async () => {
      const inbound = await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: customer, text: "hello", profile_name: "Ana" })
      expect(inbound.status).toBe(202)
      const found = await eventually(
        async () => {
          const list = await h.request("GET", "/chat/customers", a.test_key)
          return list.json.data.find((c: any) => c.phone === customer)
        },
        "customer recorded",
        5000
      )
      expect(found).toMatchObject({ profile_name: "Ana", window_open: true, opted_out: false })
      const one = await h.request("GET", `/chat/customers/${found.id}`, a.test_key)
      expect(one.json.id).toBe(found.id)

      const sent = await h.request("POST", "/chat/messages", a.test_key, { to: customer, type: "text", text: { body: "hello back" } })
      expect(sent.status).toBe(201)
      expect(sent.json.status).toBe("accepted")
      const read = await eventually(
        async () => {
          const m = await h.request("GET", `/chat/messages/${sent.json.id}`, a.test_key)
          return m.json.status === "read" ? m.json : undefined
        },
        "message read",
        5000
      )
      expect(read.operator_message_id).toMatch(/^wamid\./)

      // the caller webhook saw sent, delivered, read for it, each verifying with standardwebhooks
      const statuses = await eventually(
        async () => {
          const mine = events("message.status").filter(({ body }) => body.data.message_id === sent.json.id)
          return mine.length >= 3 ? mine : undefined
        },
        "status events",
        10_000
      )
      expect(statuses.map(({ body }) => body.data.status).sort()).toEqual(["delivered", "read", "sent"])
      const wh = new Webhook(secret)
      for (const { r } of statuses) {
        expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow()
      }
      expect(() =>
        new Webhook(secret).verify(statuses[0].r.body.replace("message.status", "message.statux"), statuses[0].r.headers as Record<string, string>)
      ).toThrow()
    })

    it("after STOP a marketing template is refused with a clear error; UTILITY still goes; START opts back in", async () => {
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: customer, text: " Stop! " })).status).toBe(202)
      await eventually(
        async () => {
          const list = await h.request("GET", "/chat/opt-outs", a.test_key)
          return list.json.data.some((o: any) => o.phone === customer && o.source === "keyword")
        },
        "opt-out recorded",
        5000
      )
      const marketing = await h.request("POST", "/chat/messages", a.test_key, {
        to: customer,
        type: "template",
        template: { name: "weekly_news", language: "en_US", parameters: ["Ana"] }
      })
      expect(marketing.status).toBe(409)
      expect(marketing.json.error.code).toBe("recipient_opted_out")
      expect(marketing.json.error.message).toContain(customer)
      const utility = await h.request("POST", "/chat/messages", a.test_key, {
        to: customer,
        type: "template",
        template: { name: "order_ready", language: "en_US", parameters: ["Ana"] }
      })
      expect(utility.status).toBe(201)
      expect(events("customer.opted_out").some(({ body }) => body.data.phone === customer)).toBe(true)

      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: customer, text: "START" })).status).toBe(202)
      await eventually(
        async () => {
          const list = await h.request("GET", "/chat/opt-outs", a.test_key)
          return !list.json.data.some((o: any) => o.phone === customer)
        },
        "opt-out removed",
        5000
      )
      const again = await h.request("POST", "/chat/messages", a.test_key, {
        to: customer,
        type: "template",
        template: { name: "weekly_news", language: "en_US", parameters: ["Ana"] }
      })
      expect(again.status).toBe(201)
    })

    it("a template send checks the name, the approval and the parameter count", async () => {
      const unknown = await h.request("POST", "/chat/messages", a.test_key, {
        to: customer,
        type: "template",
        template: { name: "nope", language: "en_US" }
      })
      expect(unknown.status).toBe(404)
      const count = await h.request("POST", "/chat/messages", a.test_key, {
        to: customer,
        type: "template",
        template: { name: "order_ready", language: "en_US", parameters: [] }
      })
      expect(count.status).toBe(400)
      expect(count.json.error.details[0].path).toBe("template.parameters")
      const badPhone = await h.request("POST", "/chat/messages", a.test_key, { to: "12345", type: "text", text: { body: "x" } })
      expect(badPhone.status).toBe(400)
    })

    it("operator error 131050 puts the contact on the opt-out list", async () => {
      const stopped = "+15551230002"
      const res = await h.request("POST", "/chat/messages", a.test_key, {
        to: stopped,
        type: "template",
        template: { name: "weekly_news", language: "en_US", parameters: ["Bo"] }
      })
      expect(res.status).toBe(201)
      const failed = await eventually(
        async () => {
          const m = await h.request("GET", `/chat/messages/${res.json.id}`, a.test_key)
          return m.json.status === "failed" ? m.json : undefined
        },
        "message failed",
        5000
      )
      expect(failed.error.code).toBe(131050)
      const list = await h.request("GET", "/chat/opt-outs", a.test_key)
      expect(list.json.data).toEqual(expect.arrayContaining([expect.objectContaining({ phone: stopped, source: "operator_error" })]))
    })

    it("opt-outs API: add, list, remove; bad phone is 400", async () => {
      const add = await h.request("POST", "/chat/opt-outs", a.test_key, { phone: "+4915112345678" })
      expect(add.status).toBe(201)
      expect(add.json).toEqual({ phone: "+4915112345678", opted_out: true, created: true })
      expect((await h.request("POST", "/chat/opt-outs", a.test_key, { phone: "+4915112345678" })).json.created).toBe(false)
      expect((await h.request("POST", "/chat/opt-outs", a.test_key, { phone: "nope" })).status).toBe(400)
      const del = await h.request("DELETE", `/chat/opt-outs/${encodeURIComponent("+4915112345678")}`, a.test_key)
      expect(del.status).toBe(200)
      expect((await h.request("DELETE", `/chat/opt-outs/${encodeURIComponent("+4915112345678")}`, a.test_key)).status).toBe(404)
    })

    it("another store's messages, customers and webhooks are 404, identical to unknown ids", async () => {
      const mine = await h.request("GET", "/chat/customers", a.test_key)
      const id = mine.json.data[0].id
      const foreign = await h.request("GET", `/chat/customers/${id}`, b.test_key)
      expect(foreign.status).toBe(404)
      const unknown = await h.request("GET", `/chat/customers/cus_00000000000000000000000000`, b.test_key)
      expect(unknown.text.replace("cus_00000000000000000000000000", id)).toBe(foreign.text)
      expect((await h.request("GET", "/chat/customers", b.test_key)).json.data).toEqual([])
      const hooks = await h.request("GET", "/chat/webhooks", a.test_key)
      expect((await h.request("GET", `/chat/webhooks/${hooks.json.data[0].id}`, b.test_key)).status).toBe(404)
      expect((await h.request("DELETE", `/chat/webhooks/${hooks.json.data[0].id}`, b.test_key)).status).toBe(404)
      // modes are separate too: the live key does not see the test key's endpoint
      expect((await h.request("GET", `/chat/webhooks/${hooks.json.data[0].id}`, a.live_key)).status).toBe(404)
    })

    it("Idempotency-Key: a retried or concurrent send goes out once; the same key with another body is 422", async () => {
      const body = { to: customer, type: "text", text: { body: "exactly once" } }
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => h.request("POST", "/chat/messages", a.test_key, body, { "idempotency-key": "send-once-1" }))
      )
      const created = answers.filter((r) => r.status === 201)
      expect(created.length).toBeGreaterThan(0)
      expect(answers.every((r) => r.status === 201 || (r.status === 409 && r.json.error.code === "idempotency_key_in_use"))).toBe(true)
      expect(new Set(created.map((r) => r.json.id)).size).toBe(1)
      const replay = await h.request("POST", "/chat/messages", a.test_key, body, { "idempotency-key": "send-once-1" })
      expect(replay.status).toBe(201)
      expect(replay.json.id).toBe(created[0].json.id)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      const rows = await h.query<{ n: number }>("SELECT count(*) AS n FROM messages WHERE content LIKE '%exactly once%'")
      expect(Number(rows[0].n)).toBe(1)
      const other = await h.request(
        "POST",
        "/chat/messages",
        a.test_key,
        { ...body, text: { body: "another" } },
        { "idempotency-key": "send-once-1" }
      )
      expect(other.status).toBe(422)
      expect(other.json.error.code).toBe("idempotency_key_reused")
    })

    it("a failed delivery is retried under the same webhook-id", async () => {
      const flaky = await startReceiver(500)
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: flaky.url, events: ["message.received"] })
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: "+15551230066", text: "retry me" })).status).toBe(202)
      await eventually(async () => flaky.received.length >= 1, "first attempt", 5000)
      flaky.setStatus(200)
      await eventually(async () => flaky.received.length >= 2, "retry", 15_000)
      expect(flaky.received[1].headers["webhook-id"]).toBe(flaky.received[0].headers["webhook-id"])
      expect(flaky.received[1].body).toBe(flaky.received[0].body)
      const deliveries = await eventually(
        async () => {
          const d = await h.request("GET", `/chat/webhooks/${hook.json.id}/deliveries`, a.test_key)
          return d.json.data.length >= 2 ? d.json.data : undefined
        },
        "two attempts listed",
        5000
      )
      expect(deliveries.map((d: any) => [d.attempt, d.status_code])).toEqual([
        [2, 200],
        [1, 500]
      ])
      flaky.server.close()
      await h.request("DELETE", `/chat/webhooks/${hook.json.id}`, a.test_key)
    }, 30_000)

    it("the sandbox needs a test key", async () => {
      const res = await h.request("POST", "/chat/sandbox/inbound-messages", a.live_key, { from: customer, text: "hi" })
      expect(res.status).toBe(403)
    })

    it("deliveries are listed; a 410 disables the endpoint; PATCH and DELETE work", async () => {
      const hooks = await h.request("GET", "/chat/webhooks", a.test_key)
      const id = hooks.json.data[0].id
      const deliveries = await h.request("GET", `/chat/webhooks/${id}/deliveries`, a.test_key)
      expect(deliveries.status).toBe(200)
      expect(deliveries.json.data.length).toBeGreaterThan(0)
      expect(deliveries.json.data[0]).toMatchObject({ status_code: 200, error: null, attempt: 1 })

      const gone = await startReceiver(410)
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: gone.url, events: ["message.received"] })
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: "+15551230055", text: "hey" })).status).toBe(202)
      const disabled = await eventually(
        async () => {
          const e = await h.request("GET", `/chat/webhooks/${hook.json.id}`, a.test_key)
          return e.json.status === "disabled" ? e.json : undefined
        },
        "endpoint disabled by 410",
        10_000
      )
      expect(disabled.disabled_reason).toMatch(/410/)
      gone.server.close()

      const patched = await h.request("PATCH", `/chat/webhooks/${hook.json.id}`, a.test_key, { events: ["message.status"], status: "enabled" })
      expect(patched.status).toBe(200)
      expect(patched.json).toMatchObject({ events: ["message.status"], status: "enabled" })
      expect((await h.request("DELETE", `/chat/webhooks/${hook.json.id}`, a.test_key)).status).toBe(200)
      expect((await h.request("GET", `/chat/webhooks/${hook.json.id}`, a.test_key)).status).toBe(404)
    })
  })

describe("caller webhook URLs are refused when they point inside (no SWITCHBOARD_ALLOW_PRIVATE_URLS)", () => {
  let h: Harness
  let a: CreatedStore
  beforeAll(async () => {
    h = await startServer()
    a = h.createStore("Shop")
  })
  afterAll(() => h?.stop())

  it.each([
    "http://169.254.169.254/",
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://localhost:8080/hook",
    "http://10.1.2.3/x",
    "ftp://example.com/"
  ])("refuses %s", async (url) => {
    const res = await h.request("POST", "/chat/webhooks", a.test_key, { url, events: ["message.status"] })
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe("validation_failed")
    expect(res.json.error.details[0].path).toBe("url")
  })
})
