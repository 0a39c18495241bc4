/**
 * A flow sent outside the customer-service window (issue 15 item 5), on SQLite and PostgreSQL
 * over real HTTP with the emulator: a flow message to a customer who never wrote is 409
 * `outside_customer_window`, but an approved template with a FLOW button (naming the flow's
 * `operator_flow_id`) goes; the send answers a `flow_token`, the button carries it to the
 * operator as its action parameter, and the customer's submission is listed under the flow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startServer, type CreatedStore, type Harness } from "./harness.js"
import { submittedSignUp } from "./steps.js"
import { signUpFlow as json } from "./fixtures/flows.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`a flow through a template's FLOW button, outside the window (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let emulator = ""

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port), SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
    })
    afterAll(async () => {
      await h?.stop()
    })

    it("goes as the template, its button carrying the flow_token; the response is tied to the flow", async () => {
      const flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Sign up", categories: ["SIGN_UP"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.test_key, { json })).status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
      const template = await h.request("POST", "/chat/templates", a.test_key, {
        templateData: {
          name: "join_list",
          category: "MARKETING",
          language: "en_US",
          components: [
            { type: "BODY", text: "Join our list in one minute." },
            {
              type: "BUTTONS",
              buttons: [{ type: "FLOW", text: "Join", flow_id: flow.operator_flow_id, flow_action: "navigate", navigate_screen: "SIGN_UP" }]
            }
          ]
        }
      })
      expect(template.status, JSON.stringify(template.json)).toBe(201)
      // a FLOW button needs its flow
      const noFlow = await h.request("POST", "/chat/templates", a.test_key, {
        templateData: {
          name: "join_list_bad",
          category: "MARKETING",
          language: "en_US",
          components: [
            { type: "BODY", text: "Join" },
            { type: "BUTTONS", buttons: [{ type: "FLOW", text: "Join" }] }
          ]
        }
      })
      expect(noFlow.status).toBe(400)
      expect(noFlow.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining("flow_id") })]))
      await eventually(
        async () => {
          const sync = await h.request("POST", "/chat/templates/sync", a.test_key)
          return sync.json.data?.find((t: any) => t.name === "join_list" && t.status === "APPROVED")
        },
        "the template is APPROVED",
        10_000
      )

      const customer = "+15551239601"
      // the customer never wrote: a flow message is refused
      const direct = await h.request("POST", "/chat/messages", a.test_key, {
        type: "flow",
        to: customer,
        flow: { id: flow.id, cta: "Join", body: "Join our list" }
      })
      expect(direct.status).toBe(409)
      expect(direct.json.error.code).toBe("outside_customer_window")
      // the template goes, with a generated token on its button
      const sent = await h.request("POST", "/chat/messages", a.test_key, {
        type: "template",
        to: customer,
        template: { name: "join_list", language: "en_US" }
      })
      expect(sent.status, JSON.stringify(sent.json)).toBe(201)
      const token: string = sent.json.flow_token
      expect(token).toMatch(/^flt_/)
      const atOperator = (await (await fetch(`${emulator}/_emulator/messages?to=${customer.slice(1)}`)).json()) as any
      expect(atOperator.data.at(-1).template.button_parameters).toEqual([{ index: 0, sub_type: "flow", parameter: token }])
      // a token of the caller's own rides the button as given
      const own = await h.request("POST", "/chat/messages", a.test_key, {
        type: "template",
        to: customer,
        template: { name: "join_list", language: "en_US", buttons: [{ index: 0, sub_type: "flow", parameter: "my-token-1" }] }
      })
      expect(own.json.flow_token).toBe("my-token-1")

      // the customer submits: the response is tied to the flow by the token
      await submittedSignUp(h, a.test_key, customer, token)
      const listed = await eventually(
        async () => (await h.request("GET", `/chat/flows/${flow.id}/responses?flow_token=${token}`, a.test_key)).json.data?.[0],
        "the response is listed under the flow",
        10_000
      )
      expect(listed).toMatchObject({ flow_id: flow.id, flow_token: token, response: { email: "ana@example.com" } })

      // a deprecated flow's template button is refused before the operator sees it
      expect((await h.request("POST", `/chat/flows/${flow.id}/deprecate`, a.test_key)).status).toBe(200)
      const refused = await h.request("POST", "/chat/messages", a.test_key, {
        type: "template",
        to: customer,
        template: { name: "join_list", language: "en_US" }
      })
      expect(refused.status).toBe(409)
      expect(refused.json.error.code).toBe("invalid_state")
    })
  })
