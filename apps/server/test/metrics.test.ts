/**
 * Metrics and logs (README, "Metrics and traces" and "Logs"), on SQLite and PostgreSQL.
 *
 * - `GET /metrics` answers 401 without the admin token (and with a wrong one), and with it the
 *   Prometheus text of every instrument the contract names.
 * - Scraped before and after a sandbox campaign of N recipients: the campaign's accepted sends
 *   move by N, the operator's `messages` edge by at least N `ok` answers, the caller webhook
 *   deliveries by what the receiver got, the launch route by one; the jobs gauge and the
 *   table rows show what the database holds.
 * - Requests served by the fast lane (a hot list) are counted exactly like the others.
 * - One access line per request (method, route template, status, duration, store, request id;
 *   the caller's `X-Request-Id` kept), and one line per campaign launch and completion.
 */
import { DIALECTS, eventually } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startReceiver, startServer } from "./harness.js"
import { approvedTemplate } from "./steps.js"

const TOKEN = "metrics-admin-token"

const counted = {
  name: "counted",
  category: "UTILITY",
  language: "en_US",
  components: [{ type: "BODY", text: "Hello {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } }]
}

/** The samples of a Prometheus text answer: `name{labels}` -> value. */
const parse = (text: string): Map<string, number> => {
  const samples = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const at = line.lastIndexOf(" ")
    samples.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return samples
}

/** The sample `name` with exactly `labels` (in any order), or 0 when absent. */
const sample = (samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number => {
  for (const [key, value] of samples) {
    const brace = key.indexOf("{")
    if ((brace === -1 ? key : key.slice(0, brace)) !== name) continue
    const found = brace === -1 ? {} : Object.fromEntries([...key.slice(brace + 1, -1).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const wanted = Object.entries(labels)
    if (wanted.length === Object.keys(found).length && wanted.every(([k, v]) => found[k] === v)) return value
  }
  return 0
}

/** The sum of every sample of `name` whose labels include `labels`. */
const total = (samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number => {
  let sum = 0
  for (const [key, value] of samples) {
    const brace = key.indexOf("{")
    if ((brace === -1 ? key : key.slice(0, brace)) !== name) continue
    if (Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))) sum += value
  }
  return sum
}

/** The JSON log lines the server wrote to stderr. */
const logLines = (h: Harness): Array<Record<string, any>> =>
  h
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l))

/** The annotations of a JSON log line. */
const fieldsOf = (line: Record<string, any>): Record<string, any> => line.annotations ?? {}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`metrics and logs (${dialect.name})`, () => {
    let h: Harness
    let shop: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const scrape = async () => {
      const res = await h.request("GET", "/metrics", TOKEN)
      expect(res.status, res.text).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/plain")
      return parse(res.text)
    }

    beforeAll(async () => {
      receiver = await startReceiver()
      h = await startServer(
        { SWITCHBOARD_ADMIN_TOKEN: TOKEN, SWITCHBOARD_ALLOW_PRIVATE_URLS: "true", LOG_LEVEL: "INFO", LOG_FORMAT: "json" },
        { dialect }
      )
      shop = h.createStore("Measured")
    }, 120_000)
    afterAll(async () => {
      await h?.stop()
      receiver?.server.close()
    })

    it("answers 401 without the admin token, or with another one", async () => {
      const none = await h.request("GET", "/metrics")
      expect(none.status).toBe(401)
      expect(none.json.error.code).toBe("unauthorized")
      expect((await h.request("GET", "/metrics", "not-the-token")).status).toBe(401)
      // a store's key is not the admin token
      expect((await h.request("GET", "/metrics", shop.test_key)).status).toBe(401)
    })

    it("counts requests served by the fast lane and by the pipeline alike, by route template", async () => {
      const before = await scrape()
      const labels = { route: "/chat/templates", method: "GET", status: "200" }
      for (let i = 0; i < 5; i++) expect((await h.request("GET", "/chat/templates", shop.test_key)).status).toBe(200)
      // a route with a path parameter goes through the pipeline: counted under its template
      expect((await h.request("GET", "/chat/campaigns/cmp_00000000000000000000000000", shop.test_key)).status).toBe(404)
      const after = await scrape()
      expect(sample(after, "switchboard_http_requests_total", labels) - sample(before, "switchboard_http_requests_total", labels)).toBe(5)
      const template = { route: "/chat/campaigns/:id", method: "GET", status: "404" }
      expect(sample(after, "switchboard_http_requests_total", template) - sample(before, "switchboard_http_requests_total", template)).toBe(1)
      expect(sample(after, "switchboard_http_request_duration_seconds_count", labels)).toBeGreaterThanOrEqual(5)
      expect(sample(after, "switchboard_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(
        sample(after, "switchboard_http_request_duration_seconds_count", labels)
      )
    })

    it("counts a hot route with a path parameter under its template, answered by the lane or, for a 404, by the pipeline", async () => {
      expect((await h.request("POST", "/chat/templates", shop.test_key, { templateData: counted })).status).toBe(201)
      const before = await scrape()
      for (let i = 0; i < 3; i++) expect((await h.request("GET", "/chat/templates/counted", shop.test_key)).status).toBe(200)
      expect((await h.request("GET", "/chat/templates/not_there", shop.test_key)).status).toBe(404)
      const after = await scrape()
      const moved = (status: string) => {
        const labels = { route: "/chat/templates/:name", method: "GET", status }
        return sample(after, "switchboard_http_requests_total", labels) - sample(before, "switchboard_http_requests_total", labels)
      }
      expect(moved("200")).toBe(3)
      expect(moved("404")).toBe(1)
    })

    it("moves the campaign, operator and delivery counters by the campaign's size; logs each request and the campaign's launch and completion", async () => {
      const key = shop.test_key
      const hook = await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events: ["campaign.launched", "campaign.completed"] })
      expect(hook.status, hook.text).toBe(201)
      await approvedTemplate(h.request, key, "measured")
      const before = await scrape()
      const campaign = (
        await h.request("POST", "/chat/campaigns", key, { name: "Measured", template: { name: "measured", language: "en_US", parameters: ["x"] } })
      ).json
      const phones = ["+15557020011", "+15557020012", "+15557020013", "+15557020014", "+15557020015", "+15557020016"]
      expect((await h.request("POST", `/chat/campaigns/${campaign.id}/recipients`, key, { phones })).status).toBe(201)
      const launch = await h.request("POST", `/chat/campaigns/${campaign.id}/launch`, key, {}, { "x-request-id": "launch-request-1" })
      expect(launch.status, launch.text).toBe(200)
      await eventually(
        async () => (await h.request("GET", `/chat/campaigns/${campaign.id}`, key)).json.status === "completed",
        "campaign completed",
        30_000
      )
      await eventually(async () => receiver.received.length >= 2, "the launched and completed webhooks delivered", 20_000)
      const after = await eventually(
        async () => {
          const s = await scrape()
          const delivered =
            total(s, "switchboard_webhook_deliveries_total", { outcome: "delivered" }) -
            total(before, "switchboard_webhook_deliveries_total", { outcome: "delivered" })
          // a delivery job completes just after its attempt is written
          return delivered >= 2 && total(s, "switchboard_jobs", { kind: "webhook.deliver", state: "done" }) >= 2 ? s : undefined
        },
        "deliveries counted",
        10_000
      )
      const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels)
      expect(moved("switchboard_campaign_sends_total", { outcome: "accepted" })).toBe(phones.length)
      expect(moved("switchboard_campaign_sends_total", { outcome: "failed" })).toBe(0)
      expect(moved("switchboard_operator_requests_total", { edge: "messages", outcome: "ok" })).toBeGreaterThanOrEqual(phones.length)
      expect(moved("switchboard_operator_request_duration_seconds_count", { edge: "messages" })).toBeGreaterThanOrEqual(phones.length)
      expect(moved("switchboard_webhook_deliveries_total", { outcome: "delivered" })).toBe(receiver.received.length)
      expect(moved("switchboard_http_requests_total", { route: "/chat/campaigns/:id/launch", method: "POST", status: "200" })).toBe(1)
      // read from the database at scrape time
      expect(total(after, "switchboard_jobs", { kind: "webhook.deliver", state: "done" })).toBeGreaterThanOrEqual(2)
      expect(sample(after, "switchboard_table_rows", { table: "webhook_deliveries" })).toBeGreaterThanOrEqual(2)
      expect(sample(after, "switchboard_table_rows", { table: "inbox" })).toBeGreaterThan(0)
      for (const table of ["jobs", "idempotency_keys"]) expect(after.has(`switchboard_table_rows{table="${table}"}`)).toBe(true)
      expect(after.has("switchboard_inbox_lag_seconds")).toBe(true)

      // the access lines, with the route template, the store and the caller's request id
      const lines = await eventually(
        async () => {
          const all = logLines(h)
          return all.some((l) => fieldsOf(l).request_id === "launch-request-1") ? all : undefined
        },
        "the launch's access line",
        5000
      )
      const launchLine = lines.find((l) => fieldsOf(l).request_id === "launch-request-1")!
      expect(launchLine.logLevel).toBe("INFO")
      expect(fieldsOf(launchLine)).toMatchObject({ method: "POST", route: "/chat/campaigns/:id/launch", status: 200, store: shop.id })
      expect(typeof fieldsOf(launchLine).duration_ms).toBe("number")
      const hot = lines.filter((l) => fieldsOf(l).route === "/chat/templates" && fieldsOf(l).method === "GET")
      expect(hot.length).toBeGreaterThanOrEqual(5)
      expect(fieldsOf(hot[0]).store).toBe(shop.id)
      expect(new Set(hot.map((l) => fieldsOf(l).request_id)).size).toBe(hot.length)
      // the campaign's lifecycle
      const about = lines.filter((l) => fieldsOf(l).campaign === campaign.id).map((l) => l.message)
      expect(about).toContain("campaign launched")
      expect(about).toContain("campaign completed")
    }, 120_000)
  })
