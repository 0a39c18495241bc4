/**
 * The operator webhook's direct path on the fast lane (`operator-webhook/Http.ts`, `direct`)
 * answers every outcome as the route's `handle` does: the success (the first one rendered,
 * the later ones the same bytes), a bad signature, a body nested too deep, and a store that
 * failed (500, as a defect of `handle`).
 */
import { InboxIntake, OperatorWebhookVerifier } from "@switchboard/domain"
import { Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ApiKeys } from "../src/Authentication.js"
import * as FastLane from "../src/FastLane.js"
import { OperatorWebhookRaw } from "../src/operator-webhook/Http.js"

const decoder = new TextDecoder()

/** A verifier that takes the signature "good", and an intake that fails a body `"fail"`; what they were asked is counted. */
const services = () => {
  const offered: Array<string> = []
  const verifier = OperatorWebhookVerifier.OperatorWebhookVerifier.of({
    verifySignature: (_, signature) => Effect.sync(() => (signature === "good" ? "sandbox" : undefined)),
    matchSignature: (_, signature) => (signature === "good" ? "sandbox" : undefined),
    verifyHandshake: () => false
  })
  const intake = InboxIntake.Intake.of({
    store: () => Effect.void,
    offer: (_, body, done) => {
      const text = decoder.decode(body)
      offered.push(text)
      setImmediate(() => done(text === '"fail"' ? Exit.die(new Error("disk full")) : Exit.succeed(`ibx_${offered.length}` as never)))
    }
  })
  const layer = Layer.mergeAll(
    Layer.succeed(OperatorWebhookVerifier.OperatorWebhookVerifier, verifier),
    Layer.succeed(InboxIntake.Intake, intake),
    Layer.succeed(ApiKeys, ApiKeys.of({ lookup: () => Effect.die("no keys"), cached: () => undefined }))
  )
  return { offered, layer }
}

const route = OperatorWebhookRaw[0]
const bytes = (text: string) => new TextEncoder().encode(text)
const asText = (answer: FastLane.Answer) => ({ status: answer.status, contentType: answer.contentType, body: decoder.decode(answer.body) })

describe("the operator webhook on the fast lane", () => {
  it("answers every outcome as the route's handle does", async () => {
    const { offered, layer } = services()
    const lane = await Effect.runPromise(
      Effect.provide(FastLane.FastLane, FastLane.layer([], OperatorWebhookRaw, { pageCache: false }).pipe(Layer.provide(layer)))
    )
    const raw = lane.rawRoute(route.path)!
    const direct = (body: string, signature: string | undefined) =>
      new Promise<FastLane.Answer>((resolve) =>
        lane.serveRaw(raw, bytes(body), "application/json", (name) => (name === "x-hub-signature-256" ? signature : undefined), resolve)
      )
    const usual = (body: string, signature: string | undefined) =>
      Effect.runPromise(
        Effect.provide(
          route.handle(bytes(body), "application/json", (name) => (name === "x-hub-signature-256" ? signature : undefined)),
          layer
        )
      )
    const deep = `${"[".repeat(200)}${"]".repeat(200)}`
    const cases: ReadonlyArray<readonly [string, string | undefined, number]> = [
      ['{"a":1}', "good", 200],
      ['{"b":2}', "good", 200],
      ['{"c":3}', "bad", 401],
      ['{"d":4}', undefined, 401],
      [deep, "good", 400],
      ['"fail"', "good", 500],
      ['{"e":5}', "good", 200]
    ]
    for (const [body, signature, status] of cases) {
      const before = offered.length
      const byLane = asText(await direct(body, signature))
      // offered once by the lane when the signature holds and the body is not too deep, never twice
      expect(offered.slice(before)).toEqual(status === 200 || status === 500 ? [body] : [])
      const byHandle = asText(await usual(body, signature))
      expect(byLane.status).toBe(status)
      expect(byLane).toEqual(byHandle)
    }
    // the successes answered concurrently: each its own offer, the same bytes
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => direct(`{"n":${i}}`, "good")))
    expect(answers.map(asText)).toEqual(
      Array.from({ length: 5 }, () => ({ status: 200, contentType: "application/json", body: '{"received":true}' }))
    )
  })
})
