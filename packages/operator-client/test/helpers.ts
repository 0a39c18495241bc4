/**
 * What the client's tests against the real emulator share: the emulator's secrets, a client
 * layer on it, its control routes, a temporary configuration, and the typed failure of an exit.
 * The emulator is started in each file's `beforeAll`, so these read it through a getter.
 */
import type { Emulator } from "@switchboard/operator-emulator"
import { Cause, Effect, Exit, Layer, Option, Redacted } from "effect"
import { GraphTransport, OperatorClient } from "../src/index.js"

export const APP_SECRET = "emulator-app-secret"
export const ACCESS_TOKEN = "sandbox-access-token"
export const VERIFY_TOKEN = "verify-me"

/** The emulator's settings every test leaves behind it (`configured` puts them back). */
const DEFAULTS: Parameters<Emulator["configure"]>[0] = {
  messagesPerSecond: 80,
  pairBurst: 5,
  rate429: 0,
  rate5xx: 0,
  rateAcceptedButLost: 0,
  latencyMs: 0
}

export const onEmulator = (emulator: () => Emulator) => {
  const config = (overrides: Partial<OperatorClient.OperatorClientConfig> = {}): OperatorClient.OperatorClientConfig => ({
    sandbox: { baseUrl: emulator().url, accessToken: Redacted.make(ACCESS_TOKEN), appSecret: Redacted.make(APP_SECRET) },
    verifyToken: Redacted.make(VERIFY_TOKEN),
    ...overrides
  })

  const clientLayer = (overrides: Partial<OperatorClient.OperatorClientConfig> = {}) =>
    OperatorClient.layer(config(overrides)).pipe(Layer.provide(GraphTransport.layer()))

  /** Runs `effect` with a fresh client on the shared emulator. */
  const withClient = <A, E>(
    effect: Effect.Effect<A, E, OperatorClient.Services>,
    overrides: Partial<OperatorClient.OperatorClientConfig> = {}
  ): Effect.Effect<A, E> => Effect.provide(effect, clientLayer(overrides))

  /** A request to the emulator's control routes (`/_emulator…`): its status and JSON body. */
  const control = (method: "GET" | "POST", path: string, body?: unknown) =>
    Effect.promise(async () => {
      const response = await fetch(`${emulator().url}/_emulator${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { status: response.status, body: (await response.json()) as any }
    })

  /** Changes the emulator's configuration for the duration of `effect`. */
  const configured = <A, E, R>(patch: Parameters<Emulator["configure"]>[0], effect: Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => emulator().configure(patch)),
      () => effect,
      () => Effect.sync(() => emulator().configure(DEFAULTS))
    )

  return { config, clientLayer, withClient, control, configured }
}

/** The typed failure of `exit`; throws on a success or a defect. */
export const expectFailure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}
