import { describe, expect, it } from "@effect/vitest"
import { OperatorWebhookVerifier } from "@switchboard/domain"
import { Effect, Layer, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { GraphTransport, OperatorClient, WebhookSignature, WebhookVerifier } from "../src/index.js"

const LIVE_SECRET = "live-app-secret"
const SANDBOX_SECRET = "sandbox-app-secret"
const body = new TextEncoder().encode(JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "1", changes: [] }] }))

const endpoint = (secret: string) => ({
  baseUrl: "http://127.0.0.1:9",
  accessToken: Redacted.make("token"),
  appSecret: Redacted.make(secret)
})

/** The verifier alone: it needs no transport. */
const withLive = WebhookVerifier.layer({
  live: endpoint(LIVE_SECRET),
  sandbox: endpoint(SANDBOX_SECRET),
  verifyToken: Redacted.make("our-verify-token")
})

/** The verifier as the all-capabilities layer provides it, from the endpoints' secrets. */
const sandboxOnly = OperatorClient.layer({
  sandbox: endpoint(SANDBOX_SECRET),
  verifyToken: Redacted.make("our-verify-token")
}).pipe(Layer.provide(GraphTransport.layer()))

describe("signPayload", () => {
  it("is sha256= and the lower-case hex HMAC-SHA256 of the raw bytes", () => {
    const expected = createHmac("sha256", LIVE_SECRET).update(body).digest("hex")
    expect(WebhookSignature.signPayload(body, LIVE_SECRET)).toBe(`sha256=${expected}`)
    expect(WebhookSignature.signPayload(body, Redacted.make(LIVE_SECRET))).toBe(`sha256=${expected}`)
    expect(WebhookSignature.signPayload(new TextDecoder().decode(body), LIVE_SECRET)).toBe(`sha256=${expected}`)
  })
})

describe("verifySignature", () => {
  it("accepts the right signature, also in upper-case hex", () => {
    const header = WebhookSignature.signPayload(body, SANDBOX_SECRET)
    expect(WebhookSignature.verifySignature(body, header, SANDBOX_SECRET)).toBe(true)
    expect(WebhookSignature.verifySignature(body, `sha256=${header.slice(7).toUpperCase()}`, SANDBOX_SECRET)).toBe(true)
  })

  it("rejects a changed byte, a wrong secret, a missing or malformed header", () => {
    const header = WebhookSignature.signPayload(body, SANDBOX_SECRET)
    const changed = Uint8Array.from(body)
    changed[10] ^= 1
    expect(WebhookSignature.verifySignature(changed, header, SANDBOX_SECRET)).toBe(false)
    expect(WebhookSignature.verifySignature(body, header, "another-secret")).toBe(false)
    expect(WebhookSignature.verifySignature(body, undefined, SANDBOX_SECRET)).toBe(false)
    for (const malformed of [
      "",
      "sha256=",
      header.slice(7),
      `sha1=${header.slice(7)}`,
      `${header}00`,
      header.slice(0, -2),
      `sha256=${"zz".repeat(32)}`
    ]) {
      expect(WebhookSignature.verifySignature(body, malformed, SANDBOX_SECRET)).toBe(false)
      expect(WebhookSignature.parseSignatureHeader(malformed)).toBeUndefined()
    }
  })
})

describe("OperatorWebhookVerifier.verifySignature", () => {
  it.effect("names the account kind whose secret signed the body", () =>
    Effect.gen(function* () {
      const verifier = yield* OperatorWebhookVerifier.OperatorWebhookVerifier
      expect(yield* verifier.verifySignature(body, WebhookSignature.signPayload(body, LIVE_SECRET))).toBe("live")
      expect(yield* verifier.verifySignature(body, WebhookSignature.signPayload(body, SANDBOX_SECRET))).toBe("sandbox")
    }).pipe(Effect.provide(withLive))
  )

  it.effect("answers undefined for a changed byte, a wrong secret, a missing or malformed header", () =>
    Effect.gen(function* () {
      const verifier = yield* OperatorWebhookVerifier.OperatorWebhookVerifier
      const header = WebhookSignature.signPayload(body, LIVE_SECRET)
      const changed = Uint8Array.from(body)
      changed[0] ^= 0x20
      expect(yield* verifier.verifySignature(changed, header)).toBeUndefined()
      expect(yield* verifier.verifySignature(body, WebhookSignature.signPayload(body, "wrong"))).toBeUndefined()
      expect(yield* verifier.verifySignature(body, undefined)).toBeUndefined()
      expect(yield* verifier.verifySignature(body, "sha256=abc")).toBeUndefined()
      expect(yield* verifier.verifySignature(body, header.replace("sha256=", "sha1="))).toBeUndefined()
    }).pipe(Effect.provide(withLive))
  )

  it.effect("without a live endpoint only the sandbox secret counts", () =>
    Effect.gen(function* () {
      const verifier = yield* OperatorWebhookVerifier.OperatorWebhookVerifier
      expect(yield* verifier.verifySignature(body, WebhookSignature.signPayload(body, SANDBOX_SECRET))).toBe("sandbox")
      expect(yield* verifier.verifySignature(body, WebhookSignature.signPayload(body, LIVE_SECRET))).toBeUndefined()
    }).pipe(Effect.provide(sandboxOnly))
  )
})

describe("OperatorWebhookVerifier.matchSignature", () => {
  it.effect("answers what verifySignature answers, at once, with or without a live endpoint", () =>
    Effect.gen(function* () {
      const header = WebhookSignature.signPayload(body, LIVE_SECRET)
      const changed = Uint8Array.from(body)
      changed[0] ^= 0x20
      const cases: ReadonlyArray<readonly [Uint8Array, string | undefined]> = [
        [body, header],
        [body, WebhookSignature.signPayload(body, SANDBOX_SECRET)],
        [changed, header],
        [body, WebhookSignature.signPayload(body, "wrong")],
        [body, undefined],
        [body, "sha256=abc"],
        [body, header.replace("sha256=", "sha1=")]
      ]
      for (const layer of [withLive, sandboxOnly]) {
        const verifier = yield* Effect.provide(OperatorWebhookVerifier.OperatorWebhookVerifier, layer)
        for (const [raw, signature] of cases) expect(verifier.matchSignature(raw, signature)).toBe(yield* verifier.verifySignature(raw, signature))
      }
      expect((yield* Effect.provide(OperatorWebhookVerifier.OperatorWebhookVerifier, withLive)).matchSignature(body, header)).toBe("live")
    })
  )
})

describe("OperatorWebhookVerifier.verifyHandshake", () => {
  it.effect("accepts mode subscribe with our token only", () =>
    Effect.gen(function* () {
      const verifier = yield* OperatorWebhookVerifier.OperatorWebhookVerifier
      expect(verifier.verifyHandshake("subscribe", "our-verify-token")).toBe(true)
      expect(verifier.verifyHandshake("subscribe", "our-verify-token ")).toBe(false)
      expect(verifier.verifyHandshake("subscribe", "our-verify-toke")).toBe(false)
      expect(verifier.verifyHandshake("subscribe", "")).toBe(false)
      expect(verifier.verifyHandshake("subscribe", undefined)).toBe(false)
      expect(verifier.verifyHandshake("unsubscribe", "our-verify-token")).toBe(false)
      expect(verifier.verifyHandshake(undefined, "our-verify-token")).toBe(false)
    }).pipe(Effect.provide(withLive))
  )
})
