/**
 * Traces (README, "Metrics and traces"): with OTEL_EXPORTER_OTLP_ENDPOINT set, the server posts
 * its spans over OTLP/HTTP to `<endpoint>/v1/traces`: one per request (hot list routes
 * included), one per job and one per operator call. The receiver is a node:http server in this
 * test that keeps each POST's JSON body. Storage plays no part here: SQLite only.
 */
import { createServer, type Server } from "node:http"
import { eventually } from "@switchboard/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, startServer } from "./harness.js"

interface Span {
  readonly name: string
  readonly traceId: string
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

describe("OTLP traces", () => {
  const posts: Array<{ readonly path: string; readonly contentType: string | undefined; readonly body: string }> = []
  let receiver: Server
  let h: Harness
  let shop: CreatedStore

  /** Every span received so far, with its service name. */
  const spans = (): Array<Span & { readonly service: string | undefined }> =>
    posts.flatMap((post) => {
      const body = JSON.parse(post.body)
      return (body.resourceSpans ?? []).flatMap((rs: any) => {
        const service = rs.resource?.attributes?.find((a: any) => a.key === "service.name")?.value?.stringValue
        return (rs.scopeSpans ?? []).flatMap((ss: any) => (ss.spans ?? []).map((span: Span) => ({ ...span, service })))
      })
    })

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = ""
      req.on("data", (c) => (body += c))
      req.on("end", () => {
        posts.push({ path: req.url ?? "", contentType: req.headers["content-type"], body })
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()))
    const address = receiver.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    h = await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: "switchboard-traced" })
    shop = h.createStore("Traced")
  }, 120_000)
  afterAll(async () => {
    await h?.stop()
    receiver?.close()
  })

  it("sends a span per request, per job and per operator call to <endpoint>/v1/traces", async () => {
    // a hot list route (the fast lane's, which a tracing server leaves to the pipeline)
    expect((await h.request("GET", "/chat/templates", shop.test_key)).status).toBe(200)
    // a template: an operator call in the request
    const created = await h.request("POST", "/chat/templates", shop.test_key, {
      templateData: {
        name: "traced",
        category: "MARKETING",
        language: "en_US",
        components: [{ type: "BODY", text: "Hello {{1}}, welcome.", example: { body_text: [["Ann"]] } }]
      }
    })
    expect(created.status, created.text).toBe(201)
    const all = await eventually(
      async () => {
        const now = spans()
        const names = now.map((s) => s.name)
        return names.some((n) => n.startsWith("job ")) &&
          names.some((n) => n.startsWith("operator POST message_templates")) &&
          names.filter((n) => n.startsWith("http.server")).length >= 2
          ? now
          : undefined
      },
      "request, job and operator spans exported",
      30_000
    )
    expect(posts.every((p) => p.path === "/v1/traces")).toBe(true)
    expect(new Set(all.map((s) => s.service))).toEqual(new Set(["switchboard-traced"]))
    const operator = all.find((s) => s.name.startsWith("operator POST message_templates"))!
    const request = all.find((s) => s.name.startsWith("http.server POST"))
    // the operator call is a child of the request that made it: one trace
    expect(request).toBeDefined()
    expect(operator.traceId).toBe(request!.traceId)
  }, 60_000)
})
