/**
 * Sending flows and receiving their responses end to end (issue 15 items 5 and 6), on SQLite
 * and PostgreSQL over real HTTP with the emulator: `POST /chat/messages` of type `flow` names
 * our flow id, answers a generated `flow_token`, and reaches the emulator with the operator's
 * flow id; drafts go in draft mode only, deprecated flows never; outside the window it is 409
 * `outside_customer_window`; a sandbox customer's submission (a real signed `nfm_reply`
 * webhook) is listed under its flow and token and arrives on the caller webhook as
 * `flow.response`; a token that matches nothing is kept and listed as unmatched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"
import { submittedSignUp } from "./steps.js"
import { signUpFlow as json } from "./fixtures/flows.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`flow sends and responses (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const customer = "+15551239101"

    beforeAll(async () => {
      h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events: ["flow.response"] })
      expect(hook.status, JSON.stringify(hook.json)).toBe(201)
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: customer, text: "hello" })).status).toBe(202)
    })
    afterAll(async () => {
      receiver?.server.close()
      await h?.stop()
    })

    const flowIn = async (key: string, publish: boolean) => {
      const flow = (await h.request("POST", "/chat/flows", key, { name: "Sign up", categories: ["SIGN_UP"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, key, { json })).status).toBe(200)
      if (publish) expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, key)).status).toBe(200)
      return (await h.request("GET", `/chat/flows/${flow.id}`, key)).json
    }
    const send = (key: string, flow: Record<string, unknown>, to = customer) =>
      h.request("POST", "/chat/messages", key, { type: "flow", to, flow: { cta: "Sign up", body: "Join our list", ...flow } })

    it("a send answers a generated flow_token; the customer's submission is listed under it and arrives as flow.response", async () => {
      const flow = await flowIn(a.test_key, true)
      const sent = await send(a.test_key, { id: flow.id })
      expect(sent.status).toBeLessThan(300)
      expect(sent.json).toMatchObject({ type: "flow", status: "accepted", flow_token: expect.stringMatching(/^flt_/) })
      const token = sent.json.flow_token
      const given = await send(a.test_key, { id: flow.id, flow_token: "my-token-1" })
      expect(given.json.flow_token).toBe("my-token-1")

      await submittedSignUp(h, a.test_key, customer, token)
      const listed = await eventually(
        async () => {
          const page = (await h.request("GET", `/chat/flows/${flow.id}/responses`, a.test_key)).json
          return page.data.length === 1 ? page : undefined
        },
        "the response is listed",
        10_000
      )
      expect(listed.data[0]).toMatchObject({
        flow_id: flow.id,
        flow_token: token,
        from: customer,
        response: { email: "ana@example.com", flow_token: token }
      })
      const event = await eventually(
        async () => receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === "flow.response"),
        "the flow.response event",
        10_000
      )
      expect(event.data).toMatchObject({
        flow_id: flow.id,
        flow_token: token,
        from: customer,
        response: { email: "ana@example.com" },
        message_id: sent.json.id
      })

      const stats = (await h.request("GET", `/chat/flows/${flow.id}/stats`, a.test_key)).json
      expect(stats).toMatchObject({ flow_id: flow.id, sent: 2, responses: 1, completion_rate: 0.5, endpoint: { requests: 0, error_rate: null } })
      expect(stats.by_day).toEqual([expect.objectContaining({ sent: 2, responses: 1 })])
      expect((await h.request("GET", `/chat/flows/${flow.id}/stats?since=2100-01-01T00:00:00Z`, a.test_key)).json).toMatchObject({
        sent: 0,
        responses: 0
      })
      expect((await h.request("GET", `/chat/flows/${flow.id}/stats`, b.test_key)).status).toBe(404)

      // filters: flow_token and time
      expect((await h.request("GET", `/chat/flows/${flow.id}/responses?flow_token=my-token-1`, a.test_key)).json.data).toEqual([])
      expect((await h.request("GET", `/chat/flows/${flow.id}/responses?flow_token=${token}`, a.test_key)).json.data).toHaveLength(1)
      expect((await h.request("GET", `/chat/flows/${flow.id}/responses?since=2100-01-01T00:00:00Z`, a.test_key)).json.data).toEqual([])
      expect((await h.request("GET", `/chat/flows/${flow.id}/responses?until=2000-01-01T00:00:00Z`, a.test_key)).json.data).toEqual([])
      expect((await h.request("GET", `/chat/flows/${flow.id}/responses?since=nope`, a.test_key)).status).toBe(400)
    })

    it("a token that matches no send is kept and listed as unmatched", async () => {
      const submitted = await h.request("POST", "/chat/sandbox/flow-responses", a.test_key, {
        phone: customer,
        flow_token: "nobody-sent-this",
        response: { x: 1 }
      })
      expect(submitted.status).toBe(202)
      const found = await eventually(
        async () =>
          (await h.request("GET", "/chat/flow-responses?unmatched=true", a.test_key)).json.data.find((r: any) => r.flow_token === "nobody-sent-this"),
        "the unmatched response",
        10_000
      )
      expect(found).toMatchObject({ flow_id: null, response: { x: 1 } })
      expect((await h.request("GET", "/chat/flow-responses?unmatched=true", b.test_key)).json.data).toEqual([])
    })

    it("a draft goes only in draft mode, a deprecated flow never, another store's flow id is 404, outside the window is 409", async () => {
      const draft = await flowIn(a.test_key, false)
      expect((await send(a.test_key, { id: draft.id })).json).toMatchObject({ status: "accepted" })
      const published = await send(a.test_key, { id: draft.id, mode: "published" })
      expect(published.status).toBe(409)
      expect(published.json.error.code).toBe("invalid_state")
      const live = await flowIn(a.test_key, true)
      expect((await send(a.test_key, { id: live.id, mode: "draft" })).status).toBe(409)
      await h.request("POST", `/chat/flows/${live.id}/deprecate`, a.test_key)
      const deprecated = await send(a.test_key, { id: live.id })
      expect(deprecated.status).toBe(409)
      expect(deprecated.json.error).toMatchObject({ code: "invalid_state", details: { status: "DEPRECATED" } })
      const foreign = await send(b.test_key, { id: draft.id })
      expect(foreign.status).toBe(404)
      expect(foreign.json.error.code).toBe("resource_not_found")
      expect((await send(a.test_key, { id: "flw_nope" })).status).toBe(404)
      const outside = await send(a.test_key, { id: draft.id }, "+15551239199")
      expect(outside.status).toBe(409)
      expect(outside.json.error.code).toBe("outside_customer_window")
      expect((await h.request("POST", "/chat/sandbox/flow-responses", a.live_key, { phone: customer, flow_token: "x", response: {} })).status).toBe(
        403
      )
      expect((await h.request("POST", "/chat/sandbox/flow-responses", a.test_key, { phone: "nope", flow_token: "x", response: {} })).status).toBe(400)
    })
  })
