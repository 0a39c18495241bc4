/**
 * The OpenAPI document as tools use it: ajv loads it (no duplicate `$id`), Redocly's
 * recommended rules give 0 errors, every operation has a summary and examples that match
 * its schemas, idempotent writes declare `Idempotency-Key` with its 409 and 422, each error
 * status constrains `error.code` to the codes it answers, and REAL answers of the running
 * server validate against the response schemas of their operations.
 */
import { execFile } from "node:child_process"
import { createHmac } from "node:crypto"
import { promisify } from "node:util"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CreatedStore, type Harness, root, startServer } from "./harness.js"

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

let h: Harness
let store: CreatedStore
let doc: any
let ajv: Ajv2020

const DOC_ID = "switchboard-openapi.json"
const pointer = (...parts: ReadonlyArray<string>) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")

/** The JSON schema of an operation's answer for `status` (or its request body). */
const responseSchema = (path: string, method: string, status: number) => {
  const response = doc.paths[path]?.[method]?.responses?.[String(status)]
  if (response === undefined) throw new Error(`${method.toUpperCase()} ${path} declares no ${status}`)
  return { $ref: `${DOC_ID}#/${pointer("paths", path, method, "responses", String(status), "content", "application/json", "schema")}` }
}

const validate = (schema: object, value: unknown) => {
  const check = ajv.compile(schema)
  const ok = check(value)
  return ok ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
}

/** Asserts that a real answer matches the schema its operation declares for its status. */
const expectConforms = (path: string, method: string, answer: { status: number; json: unknown }) => {
  expect(validate(responseSchema(path, method, answer.status), answer.json), JSON.stringify(answer.json)).toEqual([])
}

const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, methods]) => Object.entries<any>(methods).map(([method, op]) => ({ path, method, op })))

beforeAll(async () => {
  h = await startServer()
  store = h.createStore("OpenAPI")
  const res = await h.request("GET", "/chat/openapi.json")
  expect(res.status).toBe(200)
  doc = res.json
  ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema(doc, DOC_ID)
}, 60_000)

afterAll(async () => {
  await h?.stop()
})

describe("the OpenAPI document", () => {
  it("loads in ajv: no schema carries a $id, so none is declared twice", () => {
    expect(JSON.stringify(doc)).not.toContain('"$id"')
    expect(ajv.getSchema(DOC_ID)).toBeDefined()
    // every component compiles on its own
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${pointer(name)}` }), name).not.toThrow()
    }
  })

  it("gives 0 errors under Redocly's recommended rules", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-openapi-"))
    try {
      const file = join(dir, "openapi.json")
      writeFileSync(file, JSON.stringify(doc))
      let out: string
      try {
        // (not execFileSync: blocking this process for seconds would stall its HTTP client)
        out = (
          await promisify(execFile)(join(root, "node_modules/.bin/redocly"), ["lint", "--extends=recommended", "--format=json", file], {
            encoding: "utf8",
            env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
          })
        ).stdout
      } catch (e: any) {
        out = String(e.stdout)
      }
      const report = JSON.parse(out.slice(out.indexOf("{")))
      const errors = report.problems
        .filter((p: any) => p.severity === "error")
        .map((p: any) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)
      expect(errors).toEqual([])
      expect(report.totals.errors).toBe(0)
      // examples that do not match their schema are a warning there; here they fail
      expect(report.problems.filter((p: any) => p.ruleId === "no-invalid-media-type-examples")).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("sets servers, and `limit` is an integer", () => {
    expect(doc.servers.length).toBeGreaterThan(0)
    const limits = operations().flatMap(({ op }) => (op.parameters ?? []).filter((p: any) => p.name === "limit"))
    expect(limits.length).toBeGreaterThan(5)
    for (const limit of limits) expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 25 })
  })

  it("gives every operation a summary and examples of the request and the answer, which match their schemas", () => {
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`
      expect(op.summary, where).toBeTruthy()
      const body = op.requestBody?.content?.["application/json"]
      if (body !== undefined) {
        expect(body.example, `${where} request example`).toBeDefined()
        const ref = `${DOC_ID}#/${pointer("paths", path, method, "requestBody", "content", "application/json", "schema")}`
        expect(validate({ $ref: ref }, body.example), `${where} request example`).toEqual([])
      }
      for (const parameter of (op.parameters ?? []).filter((p: any) => p.in === "path")) {
        expect(parameter.example, `${where} ${parameter.name}`).toBeDefined()
      }
      const success = Object.keys(op.responses).find((s) => s.startsWith("2"))!
      if (success === "204") {
        expect(op.responses[success].content, `${where} 204 has no body`).toBeUndefined()
        continue
      }
      const [contentType, media] = Object.entries<any>(op.responses[success].content)[0]
      expect(media.example, `${where} answer example`).toBeDefined()
      if (contentType === "application/json")
        expect(validate(responseSchema(path, method, Number(success)), media.example), `${where} answer example`).toEqual([])
    }
  })

  it("declares Idempotency-Key on every authenticated POST and PATCH, with 409 idempotency_key_in_use and 422 idempotency_key_reused", () => {
    const writes = operations().filter(({ method, op }) => (method === "post" || method === "patch") && (op.security ?? []).length > 0)
    expect(writes.length).toBeGreaterThan(15)
    for (const { path, method, op } of writes) {
      const where = `${method.toUpperCase()} ${path}`
      expect(
        op.parameters.find((p: any) => p.in === "header" && p.name === "Idempotency-Key"),
        where
      ).toBeDefined()
      const inUse = { error: { code: "idempotency_key_in_use", message: "busy" } }
      const reused = { error: { code: "idempotency_key_reused", message: "other body" } }
      expect(validate(responseSchema(path, method, 409), inUse), where).toEqual([])
      expect(validate(responseSchema(path, method, 422), reused), where).toEqual([])
    }
    // reads take no idempotency key
    for (const { path, method, op } of operations().filter(({ method }) => method === "get")) {
      expect(
        op.parameters.find((p: any) => p.name === "Idempotency-Key"),
        `${method} ${path}`
      ).toBeUndefined()
    }
  })

  it("constrains each status's error code to the codes that status answers", () => {
    const codesByStatus: Record<string, Set<string>> = {}
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || (path === "/readyz" && status === "503")) continue // /readyz answers its own body
        const schema = response.content["application/json"].schema
        const refs: Array<string> = schema.$ref ? [schema.$ref] : (schema.anyOf ?? []).map((s: any) => s.$ref)
        expect(refs.length, `${method} ${path} ${status}`).toBeGreaterThan(0)
        for (const ref of refs) {
          const component = doc.components.schemas[ref.split("/").pop()!]
          const codes: Array<string> = component.properties.error.properties.code.enum
          expect(codes, `${method} ${path} ${status} ${ref}`).toHaveLength(1)
          codesByStatus[status] = (codesByStatus[status] ?? new Set()).add(codes[0])
        }
        // a code that another status answers does not validate here
        if (status === "404")
          expect(validate(responseSchema(path, method, 404), { error: { code: "validation_failed", message: "x" } })).not.toEqual([])
      }
    }
    expect([...codesByStatus["400"]]).toEqual(["validation_failed"])
    expect([...codesByStatus["401"]]).toEqual(["unauthorized"])
    expect([...codesByStatus["404"]]).toEqual(["resource_not_found"])
    expect([...codesByStatus["409"]].sort()).toEqual(
      [
        "flow_published",
        "idempotency_key_in_use",
        "invalid_state",
        "outside_customer_window",
        "payments_not_configured",
        "recipient_opted_out",
        "resource_already_exists",
        "call_permission_request_limited",
        "call_permission_required",
        "call_in_progress",
        "call_limit_reached",
        "calling_not_enabled"
      ].sort()
    )
    expect([...codesByStatus["422"]].sort()).toEqual([
      "customer_not_callable",
      "idempotency_key_reused",
      "operator_rejected",
      "refund_exceeds_refundable"
    ])
  })
})

/** The path templates of the document that `url` matches (a parameter matches a non-empty segment its pattern accepts). */
const templatesMatching = (url: string) => Object.keys(doc.paths).filter((path) => segmentsMatch(path, url.split("/")))

const parameterOf = (path: string, name: string) =>
  Object.values<any>(doc.paths[path])
    .flatMap((op) => op.parameters ?? [])
    .find((p: any) => p.in === "path" && p.name === name)

const segmentsMatch = (path: string, parts: ReadonlyArray<string>) => {
  const template = path.split("/")
  if (template.length !== parts.length) return false
  return template.every((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1]
    if (name === undefined) return segment === parts[i]
    const pattern = parameterOf(path, name)?.schema?.pattern
    return parts[i].length > 0 && (pattern === undefined || new RegExp(pattern).test(parts[i]))
  })
}

describe("the document declares what the service answers, and only that", () => {
  it("the flow data endpoint declares 421 cannot_decrypt, 427 flow_token_invalid, 432 signature_invalid and 500 endpoint_failed", () => {
    const op = doc.paths["/chat/flow-endpoint/{id}"].post
    const expected: Record<string, object> = {
      "421": { error: { code: "cannot_decrypt", message: "the request could not be decrypted" } },
      "427": {
        error_msg: "This flow token is no longer valid.",
        error: { code: "flow_token_invalid", message: "This flow token is no longer valid." }
      },
      "432": { error: { code: "signature_invalid", message: "the request signature (X-Hub-Signature-256) is missing or wrong" } },
      "500": { error: { code: "endpoint_failed", message: "the flow has no endpoint URL" } }
    }
    for (const [status, body] of Object.entries(expected)) {
      expect(op.responses[status], status).toBeDefined()
      expect(validate(responseSchema("/chat/flow-endpoint/{id}", "post", Number(status)), body), status).toEqual([])
    }
  })

  it("declares 401 only on operations that need an API key, and on the signed webhook that answers it for a bad signature", () => {
    const publicOps = operations().filter(({ op }) => (op.security ?? []).length === 0)
    expect(publicOps.map(({ op }) => op.operationId).sort()).toEqual([
      "flowsPublic.dataEndpoint",
      "flowsPublic.previewPage",
      "health.healthz",
      "health.readyz",
      "operatorWebhook.handshake",
      "operatorWebhook.receive"
    ])
    for (const { op } of publicOps) {
      if (op.operationId === "operatorWebhook.receive") expect(op.responses["401"], op.operationId).toBeDefined()
      else expect(op.responses["401"], op.operationId).toBeUndefined()
    }
    for (const { op } of operations().filter(({ op }) => (op.security ?? []).length > 0)) expect(op.responses["401"], op.operationId).toBeDefined()
  })

  it("every GET that answers a list takes `limit` and `cursor` and answers `next_cursor`", () => {
    const resolve = (schema: any): any => (schema?.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()]) : schema)
    const lists = operations().filter(({ method, op }) => {
      const schema = resolve(op.responses["200"]?.content?.["application/json"]?.schema)
      return method === "get" && (schema?.properties?.data?.type === "array" || schema?.type === "array")
    })
    expect(lists.length).toBeGreaterThan(20)
    const missing = lists.flatMap(({ path, op }) => {
      const schema = resolve(op.responses["200"].content["application/json"].schema)
      const names = (op.parameters ?? []).map((p: any) => p.name)
      return names.includes("limit") && names.includes("cursor") && schema.required?.includes("next_cursor") ? [] : [`GET ${path}`]
    })
    expect(missing).toEqual([])
  })

  it("no URL matches two path templates: an id path parameter carries its kind's pattern", () => {
    expect(templatesMatching("/chat/calls/permissions/media")).toEqual(["/chat/calls/permissions/{phone}"])
    expect(templatesMatching("/chat/calls/call_01M85GK8TB3E8BH2R1WY18AD8X/media")).toEqual(["/chat/calls/{id}/media"])
    expect(templatesMatching("/chat/orders/")).toEqual([])
    // any two templated paths: a URL that both match would need each segment to fit both
    const templated = Object.keys(doc.paths).filter((p) => p.includes("{"))
    const patternOf = (path: string, segment: string) => parameterOf(path, segment.slice(1, -1))?.schema?.pattern as string | undefined
    const overlapping: Array<string> = []
    for (const [i, a] of templated.entries()) {
      for (const b of templated.slice(i + 1)) {
        const x = a.split("/")
        const y = b.split("/")
        if (x.length !== y.length) continue
        const fits = x.every((s, k) => {
          const t = y[k]
          const sp = s.startsWith("{")
          const tp = t.startsWith("{")
          if (!sp && !tp) return s === t
          if (sp && tp) {
            const [p, q] = [patternOf(a, s), patternOf(b, t)]
            return p === undefined || q === undefined || p === q
          }
          const [literal, pattern] = sp ? [t, patternOf(a, s)] : [s, patternOf(b, t)]
          return pattern === undefined || new RegExp(pattern).test(literal)
        })
        if (fits) overlapping.push(`${a} ~ ${b}`)
      }
    }
    expect(overlapping).toEqual([])
  })
})

describe("real answers validate against the document", () => {
  const createTemplate = (name: string) => ({
    templateData: {
      name,
      category: "UTILITY",
      language: "en_US",
      components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped.", example: { body_text: [["Ana", "A-1"]] } }]
    }
  })

  it("a created template (201) and a list page (200)", async () => {
    const created = await h.request("POST", "/chat/templates", store.live_key, createTemplate("openapi_shipped"))
    expect(created.status).toBe(201)
    expectConforms("/chat/templates", "post", created)
    const page = await h.request("GET", "/chat/templates?limit=10", store.live_key)
    expect(page.status).toBe(200)
    expect(page.json.data.length).toBe(1)
    expectConforms("/chat/templates", "get", page)
    const campaign = await h.request("POST", "/chat/campaigns", store.test_key, {
      name: "OpenAPI",
      template: { name: "openapi_shipped", language: "en_US", parameters: ["Ana", "A-1"] }
    })
    expect(campaign.status).toBe(201)
    expectConforms("/chat/campaigns", "post", campaign)
    const campaigns = await h.request("GET", "/chat/campaigns", store.test_key)
    expectConforms("/chat/campaigns", "get", campaigns)
    const read = await h.request("GET", `/chat/campaigns/${campaign.json.id}`, store.test_key)
    expectConforms("/chat/campaigns/{id}", "get", read)
    // a control the state machine refuses: 409 invalid_state
    const refused = await h.request("POST", `/chat/campaigns/${campaign.json.id}/resume`, store.test_key)
    expect(refused.status).toBe(409)
    expectConforms("/chat/campaigns/{id}/resume", "post", refused)
  })

  it("a 404, a 400 validation error and a 401", async () => {
    const missing = await h.request("GET", "/chat/campaigns/cmp_01M859WYCJRKH5XFVVK5FNE2QJ", store.test_key)
    expect(missing.status).toBe(404)
    expectConforms("/chat/campaigns/{id}", "get", missing)
    const invalid = await h.request("POST", "/chat/templates", store.live_key, createTemplate("Bad-Name"))
    expect(invalid.status).toBe(400)
    expectConforms("/chat/templates", "post", invalid)
    const badLimit = await h.request("GET", "/chat/templates?limit=1000", store.live_key)
    expect(badLimit.status).toBe(400)
    expectConforms("/chat/templates", "get", badLimit)
    const anonymous = await h.request("GET", "/chat/messages")
    expect(anonymous.status).toBe(401)
    expectConforms("/chat/messages", "get", anonymous)
  })

  it("the flow data endpoint's 432 and 421, a public route's answer without a key, and /chat/calls/permissions/media", async () => {
    const flowBody = doc.paths["/chat/flows"].post.requestBody.content["application/json"].example
    const flow = await h.request("POST", "/chat/flows", store.test_key, flowBody)
    expect(flow.status).toBe(201)
    const encrypted = JSON.stringify({ encrypted_flow_data: "AAAA", encrypted_aes_key: "AAAA", initial_vector: "AAAA" })
    const unsigned = await h.request("POST", `/chat/flow-endpoint/${flow.json.id}`, undefined, encrypted)
    expect(unsigned.status).toBe(432)
    expectConforms("/chat/flow-endpoint/{id}", "post", unsigned)
    const signature = `sha256=${createHmac("sha256", h.env.SWITCHBOARD_EMULATOR_APP_SECRET).update(encrypted).digest("hex")}`
    const garbage = await h.request("POST", `/chat/flow-endpoint/${flow.json.id}`, undefined, encrypted, { "x-hub-signature-256": signature })
    expect(garbage.status).toBe(421)
    expectConforms("/chat/flow-endpoint/{id}", "post", garbage)
    // a public route answers without a key, never 401
    expect((await h.request("GET", "/healthz")).status).toBe(200)
    // the one template it matches declares what it answers
    const media = await h.request("GET", "/chat/calls/permissions/media", store.test_key)
    const [template] = templatesMatching("/chat/calls/permissions/media")
    expect(doc.paths[template].get.responses[String(media.status)], `${media.status} ${media.text}`).toBeDefined()
    expectConforms(template, "get", media)
  })

  it("a replayed Idempotency-Key with another body: 422 idempotency_key_reused as declared", async () => {
    const headers = { "idempotency-key": "openapi-test-1" }
    const first = await h.request("POST", "/chat/opt-outs", store.test_key, { phone: "+15551239901" }, headers)
    expect(first.status).toBe(201)
    expectConforms("/chat/opt-outs", "post", first)
    const other = await h.request("POST", "/chat/opt-outs", store.test_key, { phone: "+15551239902" }, headers)
    expect(other.status).toBe(422)
    expect(other.json.error.code).toBe("idempotency_key_reused")
    expectConforms("/chat/opt-outs", "post", other)
  })
})
