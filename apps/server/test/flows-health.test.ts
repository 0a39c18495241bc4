/**
 * The operator's `flows` webhooks end to end (GRAPH_API.md §2.9, A.10), on SQLite and
 * PostgreSQL over real HTTP: the emulator sends FLOW_STATUS_CHANGE (signed, to our operator
 * webhook) when a flow is created, published, deprecated, throttled or blocked by health
 * monitoring; our service takes THROTTLED and BLOCKED (and the way back to PUBLISHED) into the
 * flow's status, and sends `flow.status_changed` and the health alerts as `flow.alert` to the
 * caller's webhook. A blocked flow is then refused when sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, freePort, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"
import { signUpFlow as json } from "./fixtures/flows.js"

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`flows webhooks: status changes and alerts (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let emulator = ""
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const customer = "+15551239501"

    const control = async (path: string, body: unknown) => {
      const res = await fetch(`${emulator}/_emulator${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      return { status: res.status, json: (await res.json()) as any }
    }
    const events = (type: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type)
    const statusOf = async (id: string) => (await h.request("GET", `/chat/flows/${id}`, a.test_key)).json.status

    beforeAll(async () => {
      const port = await freePort()
      emulator = `http://127.0.0.1:${port}`
      h = await startServer({ SWITCHBOARD_EMULATOR_PORT: String(port), SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" }, { dialect })
      a = h.createStore("Shop A")
      receiver = await startReceiver()
      const hook = await h.request("POST", "/chat/webhooks", a.test_key, { url: receiver.url, events: ["flow.status_changed", "flow.alert"] })
      expect(hook.status, JSON.stringify(hook.json)).toBe(201)
      expect((await h.request("POST", "/chat/sandbox/inbound-messages", a.test_key, { from: customer, text: "hello" })).status).toBe(202)
    })
    afterAll(async () => {
      receiver?.server.close()
      await h?.stop()
    })

    it("takes THROTTLED and BLOCKED from the operator into the flow's status and tells the caller; alerts go to the caller too", async () => {
      const flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Sign up", categories: ["SIGN_UP"] })).json
      expect((await h.request("PUT", `/chat/flows/${flow.id}/json`, a.test_key, { json })).status).toBe(200)
      expect((await h.request("POST", `/chat/flows/${flow.id}/publish`, a.test_key)).json.status).toBe("PUBLISHED")
      const operatorId = flow.operator_flow_id

      // health monitoring throttles it: the webhook moves our flow to THROTTLED (still sendable)
      expect((await control("/flows/status", { flow_id: operatorId, status: "THROTTLED" })).status).toBe(200)
      await eventually(async () => ((await statusOf(flow.id)) === "THROTTLED" ? true : undefined), "the flow is THROTTLED", 10_000)
      const throttled = await eventually(async () => events("flow.status_changed")[0], "flow.status_changed arrives", 10_000)
      expect(throttled.data).toMatchObject({ flow_id: flow.id, previous_status: "PUBLISHED", status: "THROTTLED" })
      const send = () =>
        h.request("POST", "/chat/messages", a.test_key, { type: "flow", to: customer, flow: { id: flow.id, cta: "Join", body: "Join" } })
      expect((await send()).status).toBe(201)

      // an error-rate alert reaches the caller with its figures
      const alert = await control("/flows/alert", { flow_id: operatorId, event: "ENDPOINT_ERROR_RATE", error_rate: 12.5, threshold: 10 })
      expect(alert.status).toBe(200)
      const alerted = await eventually(async () => events("flow.alert")[0], "flow.alert arrives", 10_000)
      expect(alerted.data).toMatchObject({
        flow_id: flow.id,
        event: "ENDPOINT_ERROR_RATE",
        alert_state: "ACTIVATED",
        details: { error_rate: 12.5, threshold: 10, errors: [expect.objectContaining({ error_rate: 12.5 })] }
      })

      // then blocked: not sendable; the operator's restore brings it back to PUBLISHED
      expect((await control("/flows/status", { flow_id: operatorId, status: "BLOCKED" })).status).toBe(200)
      await eventually(async () => ((await statusOf(flow.id)) === "BLOCKED" ? true : undefined), "the flow is BLOCKED", 10_000)
      const blocked = await send()
      expect(blocked.status).toBe(409)
      expect(blocked.json.error.code).toBe("invalid_state")
      expect((await control("/flows/status", { flow_id: operatorId, status: "PUBLISHED" })).status).toBe(200)
      await eventually(async () => ((await statusOf(flow.id)) === "PUBLISHED" ? true : undefined), "the flow is PUBLISHED again", 10_000)
      await eventually(async () => (events("flow.status_changed").length >= 3 ? true : undefined), "three status changes arrive", 10_000)
      expect(events("flow.status_changed").map((e) => e.data.status)).toEqual(["THROTTLED", "BLOCKED", "PUBLISHED"])

      // our own changes (created, published, deprecated) come back as webhooks too, and change nothing more
      expect((await h.request("POST", `/chat/flows/${flow.id}/deprecate`, a.test_key)).json.status).toBe("DEPRECATED")
      const other = (await h.request("POST", "/chat/flows", a.test_key, { name: "Other", categories: ["OTHER"] })).json
      const processed = async (like: string) =>
        Number((await h.query<{ n: number }>(`SELECT COUNT(*) AS n FROM inbox WHERE processed_at IS NOT NULL AND body LIKE '${like}'`))[0]?.n)
      await eventually(
        async () =>
          (await processed(`%"flow_id":"${operatorId}"%"new_status":"DEPRECATED"%`)) === 1 &&
          (await processed(`%"flow_id":"${other.operator_flow_id}"%"new_status":"DRAFT"%`)) === 1
            ? true
            : undefined,
        "the deprecation and the creation webhooks are processed",
        10_000
      )
      expect(await statusOf(flow.id)).toBe("DEPRECATED")
      expect(await statusOf(other.id)).toBe("DRAFT")
      expect(events("flow.status_changed")).toHaveLength(3)
    })
  })
