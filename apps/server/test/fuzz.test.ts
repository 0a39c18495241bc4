/**
 * Fuzzing every operation of our own OpenAPI document (issue 11, "Done when"): requests are
 * generated with fast-check from the document's schemas (path, query and body), valid and
 * broken in the ways clients and attackers break them (wrong types, missing and unknown
 * fields, junk JSON, malformed JSON, deep nesting, long strings, other content types, odd
 * percent-encodings in paths, bad and odd `Authorization` headers, `Idempotency-Key`s), with
 * a fixed seed, and sent to the real server over HTTP on SQLite.
 *
 * Every answer must be below 500, and every error answer must be the error envelope
 * `{"error": {"code", "message"}}`.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signOperatorPayload } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"

const SEED = 20_261_123
/** Cases per operation (issue 26: at least 200 each, over every operation of the document). */
const PER_OPERATION = 100
const CONCURRENCY = 12

type JsonSchema = Record<string, any>

interface Operation {
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean; readonly schema?: JsonSchema }>
  readonly body: JsonSchema | undefined
  /** Whether the operation takes `multipart/form-data` (a file). */
  readonly multipart: boolean
}

interface Generated {
  readonly op: string
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

// ---------------------------------------------------------------------------------------
// values from schemas

/** Addresses a webhook URL may name in this test: refused as private, or not URLs. Never a public host (no network beyond loopback). */
const SAFE_URLS = ["http://127.0.0.1:1/hook", "https://10.0.0.1/x", "http://[::1]/", "http://169.254.169.254/", "ftp://127.0.0.1/", "not a url", ""]
const PHONES = ["+15551230001", "+15551230002", "+15551230000", "+15557654321", "+1555", "15551230001", "+", "+1 555 123 0001"]
const junkString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom("", " ", "null", "0", "-1", "1e309", "%", "%25", "../..", "\u0000", "'; drop table stores; --", "𝒳", "\ud800")
)
const junkValue: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 2 }), junkString, fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 53, [], {}))

const stringFor = (name: string, schema: JsonSchema): fc.Arbitrary<string> => {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Array<string>))
  const key = name.toLowerCase()
  if (key === "url") return fc.constantFrom(...SAFE_URLS)
  if (/phone|^to$|^from$/.test(key)) return fc.oneof(fc.constantFrom(...PHONES), fc.stringMatching(/^\+1555\d{7}$/))
  if (key === "language") return fc.constantFrom("en_US", "pt_BR", "xx", "")
  if (key === "name") return fc.oneof(fc.stringMatching(/^[a-z_]{1,16}$/), junkString)
  if (/_at$/.test(key) || schema.$ref === "#/components/schemas/DateTime")
    return fc.constantFrom("2030-01-31T09:00:00Z", "2001-01-01T00:00:00Z", "tomorrow")
  return fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 24 }) }, { weight: 1, arbitrary: junkString })
}

const makeValues = (components: Record<string, JsonSchema>) => {
  const arbitraryFor = (schema: JsonSchema | undefined, name: string, depth: number): fc.Arbitrary<unknown> => {
    if (schema === undefined || depth > 6) return junkValue
    if (typeof schema.$ref === "string") {
      const target = components[schema.$ref.split("/").pop()!]
      return target?.type === "string" && target.enum === undefined ? stringFor(name, schema) : arbitraryFor(target, name, depth + 1)
    }
    const union = schema.anyOf ?? schema.oneOf
    if (Array.isArray(union)) return fc.oneof(...union.map((s: JsonSchema) => arbitraryFor(s, name, depth + 1)))
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
    switch (schema.type) {
      case "string":
        return stringFor(name, schema)
      case "integer":
        return fc.oneof(fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 2000 }), fc.constantFrom(0, 1, 25, 100, 101))
      case "number":
        return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
      case "boolean":
        return fc.boolean()
      case "null":
        return fc.constant(null)
      case "array":
        return fc.array(arbitraryFor(schema.items, name, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) })
      case "object": {
        const properties: Record<string, JsonSchema> = schema.properties ?? {}
        const required = new Set<string>(schema.required ?? [])
        const record = fc.record(Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, arbitraryFor(s, k, depth + 1)])), {
          requiredKeys: [...required].filter((k) => k in properties)
        })
        return schema.additionalProperties && typeof schema.additionalProperties === "object" && Object.keys(properties).length === 0
          ? fc.dictionary(fc.string({ maxLength: 8 }), arbitraryFor(schema.additionalProperties, name, depth + 1), { maxKeys: 3 })
          : record
      }
      default:
        return junkValue
    }
  }
  return arbitraryFor
}

/** One property of a valid object changed, dropped, or joined by an unknown one. */
const mutated = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.tuple(valid, fc.nat(), junkValue, fc.constantFrom("replace", "drop", "extra", "wrap")).map(([value, at, junk, how]) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return junk
    const keys = Object.keys(value)
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
    const key = keys.length > 0 ? keys[at % keys.length] : "field"
    if (how === "replace") copy[key] = junk
    else if (how === "drop") delete copy[key]
    else if (how === "extra") copy[`x_${at % 7}`] = junk
    else copy[key] = [[[[junk]]]]
    return copy
  })

const deep = (levels: number, inner: string) => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`

/** Body text: mostly JSON of the schema (valid or mutated), sometimes hostile text. */
const bodyText = (schema: fc.Arbitrary<unknown>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 10, arbitrary: schema.map((v) => JSON.stringify(v)) },
    { weight: 6, arbitrary: mutated(schema).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: junkValue.map((v) => JSON.stringify(v) ?? "null") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "{",
        "",
        "null",
        '{"a":1,}',
        "\uFEFF{}",
        '{"__proto__":{"x":1}}',
        `{"name":${deep(3000, "")}}`,
        `{"to":"${"9".repeat(300_000)}","type":"text","text":{"body":"x"}}`,
        `{"templateData":{"name":"x","category":"UTILITY","language":"en_US","components":${deep(200, "1")}}}`
      )
    }
  )

/** A multipart body with the boundary `fz`: well formed, unclosed, wrong field, or junk parts. */
const multipartText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom("file", "url", "files", ""), fc.constantFrom("closed", "unclosed", "truncated", "no-parts"), fc.string({ maxLength: 40 }))
  .map(([field, shape, junk]) => {
    const csv = `id,title,description,availability,condition,price,link,image_link,brand\nsku-1,A${junk.replace(/[\r\n,]/g, "")},d,in stock,new,10.00 USD,https://shop.example.com/1,https://shop.example.com/1.png,B\n`
    const part = `--fz\r\ncontent-disposition: form-data; name="${field}"; filename="f.csv"\r\ncontent-type: text/csv\r\n\r\n${csv}`
    if (shape === "no-parts") return "--fz--\r\n"
    if (shape === "truncated") return part.slice(0, 30)
    return shape === "closed" ? `${part}\r\n--fz--\r\n` : part
  })

// ---------------------------------------------------------------------------------------
// requests

const enc = (s: string): string => {
  try {
    return encodeURIComponent(s)
  } catch {
    return "%ED%A0%80" // a lone surrogate, as its UTF-8 bytes
  }
}

/** Stands for the id of a resource created earlier in the run, chosen when the request is sent. */
const ID = (n: number) => `__ID_${n}__`

const PATH_JUNK = [
  "%25",
  "%252B15551230001",
  "%2B15551230001",
  "%",
  "%E0%A4%A",
  "..",
  "%2F",
  "%00",
  "%C0%AF",
  "a%20b",
  "cmp_00000000000000000000000000",
  "tpl_ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
  "x".repeat(3000)
]

const requestsFor = (
  op: Operation,
  arbitraryFor: ReturnType<typeof makeValues>,
  keys: { readonly live: string; readonly test: string }
): fc.Arbitrary<Generated> => {
  const pathParams = op.parameters.filter((p) => p.in === "path")
  const queryParams = op.parameters.filter((p) => p.in === "query")
  const pathValue = fc.oneof(
    { weight: 4, arbitrary: fc.nat().map(ID) },
    { weight: 3, arbitrary: fc.string({ maxLength: 30 }).map(enc) },
    { weight: 2, arbitrary: fc.constantFrom(...PATH_JUNK) },
    { weight: 2, arbitrary: fc.constantFrom(...PHONES).map(enc) }
  )
  const path = fc
    .tuple(...pathParams.map(() => pathValue))
    .map((values) => pathParams.reduce((p, param, i) => p.replace(`{${param.name}}`, values[i]), op.path))
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(fc.oneof(arbitraryFor(p.schema, p.name, 0).map(String), junkString), { nil: undefined }))),
      // an unknown parameter (refused with 400 before the handler) in about one request of ten
      fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(junkString, junkString) })
    )
    .map(([values, extra]) => {
      const pairs = queryParams.flatMap((p, i) => (values[i] === undefined ? [] : [[p.name, values[i]!] as const]))
      if (extra) pairs.push(extra)
      return pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")}`
    })
  const authorization = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(`Bearer ${keys.live}`, `Bearer ${keys.test}`) },
    { weight: 1, arbitrary: fc.constantFrom(`bearer ${keys.live}`, `Bearer\t${keys.test}`, `Basic ${keys.live}`, `Bearer ${keys.live}x`) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer sk_live_${"Z".repeat(32)}`, "Bearer ", "", "Bearer sk_test_", "Bearer \u00e9\u00ff") }
  )
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "multipart/form-data",
        "application/xml",
        "application/octet-stream",
        "APPLICATION/JSON",
        "application/jsonx",
        ";;;"
      )
    },
    { weight: 1, arbitrary: fc.constant(undefined) }
  )
  const hasBody = op.method === "POST" || op.method === "PATCH"
  const json = bodyText(op.body === undefined ? junkValue : arbitraryFor(op.body, "body", 0)).map((text) => ({ text, multipart: false }))
  const form = multipartText.map((text) => ({ text, multipart: true }))
  const body = hasBody
    ? fc.oneof(
        { weight: op.multipart ? 4 : 9, arbitrary: json },
        { weight: op.multipart ? 5 : 0, arbitrary: form },
        { weight: 1, arbitrary: fc.constant(undefined) }
      )
    : fc.constant(undefined)
  const idempotencyKey = fc.option(fc.oneof(fc.constantFrom("k1", "k2"), fc.string({ maxLength: 300 })), { nil: undefined, freq: 8 })
  const signed = fc.boolean()
  return fc
    .record({ path, query, authorization, contentType, body, idempotencyKey, signed })
    .map(({ path, query, authorization, contentType, body: generated, idempotencyKey, signed }) => {
      const headers: Record<string, string> = {}
      const body = generated?.text
      if (authorization !== "") headers.authorization = authorization
      if (generated?.multipart) headers["content-type"] = "multipart/form-data; boundary=fz"
      else if (body !== undefined && contentType !== undefined) headers["content-type"] = contentType
      if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey
      if (op.path === "/chat/operator/webhook" && body !== undefined && signed)
        headers["x-hub-signature-256"] = signOperatorPayload(body, "e2e-app-secret")
      return { op: `${op.method} ${op.path}`, method: op.method, url: `${path}${query}`, headers, body }
    })
}

const isEnvelope = (json: any): boolean =>
  typeof json === "object" &&
  json !== null &&
  typeof json.error === "object" &&
  typeof json.error?.code === "string" &&
  typeof json.error?.message === "string"

describe("fuzzing every operation of the OpenAPI document (SQLite, real HTTP)", () => {
  let h: Harness
  let store: CreatedStore
  beforeAll(async () => {
    h = await startServer()
    store = h.createStore("Fuzz")
  })
  afterAll(async () => {
    await h?.stop()
  })

  it(`${PER_OPERATION} generated requests for each operation: no 5xx, every error in the envelope`, { timeout: 600_000 }, async () => {
    const doc = (await h.request("GET", "/chat/openapi.json")).json
    const operations: Array<Operation> = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.["application/json"]?.schema,
        multipart: op.requestBody?.content?.["multipart/form-data"] !== undefined
      }))
    )
    expect(operations.length).toBeGreaterThan(20)
    const arbitraryFor = makeValues(doc.components?.schemas ?? {})

    // ids of what the run creates, so path parameters also name real resources
    const ids: Array<string> = ["order_ready", "+15551230001"]
    const perOperation = PER_OPERATION
    const batches = operations.map((op, i) =>
      fc.sample(requestsFor(op, arbitraryFor, { live: store.live_key, test: store.test_key }), { seed: SEED + i, numRuns: perOperation })
    )
    // interleave the operations, so creates feed ids to the reads that follow
    const all: Array<Generated> = []
    for (let i = 0; i < perOperation; i++) for (const batch of batches) all.push(batch[i])

    const failures: Array<string> = []
    const byStatus = new Map<number, number>()
    const touched = new Map<string, number>()
    const spent = new Map<string, number>()
    let next = 0
    let fiveHundreds = 0
    const worker = async () => {
      while (next < all.length) {
        const g = all[next++]
        const url = g.url.replace(/__ID_(\d+)__/g, (_, n) => enc(ids[Number(n) % ids.length]))
        let res: Response
        let text: string
        const t0 = Date.now()
        try {
          res = await fetch(`${h.base}${url}`, { method: g.method, headers: g.headers, body: g.body, signal: AbortSignal.timeout(15_000) })
          text = await res.text()
        } catch (e) {
          failures.push(`no answer: ${g.method} ${url.slice(0, 120)}: ${String(e)} (${String((e as { cause?: unknown }).cause)})`)
          continue
        }
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1)
        spent.set(g.op, (spent.get(g.op) ?? 0) + Date.now() - t0)
        touched.set(g.op, (touched.get(g.op) ?? 0) + 1)
        let json: any
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        if (res.status >= 500) fiveHundreds++
        if (res.status >= 500 && fiveHundreds <= 3)
          console.log(`5xx: ${res.status} ${g.method} ${url.slice(0, 100)} ${JSON.stringify(g.headers)} body=${g.body?.slice(0, 100)}`)
        if (res.status >= 500 || (res.status >= 400 && !isEnvelope(json))) {
          failures.push(
            `${res.status} ${g.method} ${url.slice(0, 120)} ${JSON.stringify(g.headers).slice(0, 160)} body=${(g.body ?? "").slice(0, 160)} -> ${text.slice(0, 200)}`
          )
        }
        if (res.status < 300 && ids.length < 200) for (const k of ["id", "name"]) if (typeof json?.[k] === "string") ids.push(json[k])
      }
    }
    const started = Date.now()
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    console.log(
      `fuzz: ${all.length} requests over ${touched.size} operations in ${Date.now() - started} ms; ${fiveHundreds} 5xx; by status ${JSON.stringify(Object.fromEntries([...byStatus].sort(([a], [b]) => a - b)))}`
    )
    console.log(`slowest operations (ms in total): ${JSON.stringify([...spent].sort(([, a], [, b]) => b - a).slice(0, 6))}`)
    // every operation answered every one of its cases (a request without an answer is a failure above)
    if (fiveHundreds > 0) console.log(`server log:\n${h.stderr().slice(-6000)}`)
    expect(failures.slice(0, 15)).toEqual([])
    expect(touched.size).toBe(operations.length)
    expect([...touched].filter(([, n]) => n < PER_OPERATION)).toEqual([])
    expect(all.length).toBe(PER_OPERATION * operations.length)
  })
})
