/**
 * The Graph API as one service that every capability of the client runs on: which endpoint
 * and credentials serve an account (live: the real operator; sandbox: the emulator), the
 * sandbox registration, and the retry rules. A capability (`TemplateClient`, `MessageClient`,
 * `SandboxClient`, later commerce, calls, flows) builds its requests with `internal/graph.ts`
 * and runs them here with one of three retry modes; it never retries by itself.
 *
 * Requires a `GraphTransport`; never provides one.
 */
import type { Errors, Store } from "@switchboard/domain"
import { Config, type ConfigError, Context, Effect, type Either, Layer, type Redacted } from "effect"
import { GraphTransport } from "./GraphTransport.js"
import type * as Transport from "./GraphTransport.js"
import * as Graph from "./internal/graph.js"
import * as Telemetry from "./internal/telemetry.js"

/** One Graph API endpoint with its credentials. */
export interface OperatorEndpoint extends Graph.Endpoint {
  /** Origin (and optional path prefix) of the API, e.g. `https://graph.facebook.com` or the emulator's URL. */
  readonly baseUrl: string
  /** Graph version segment of every path; default `v23.0`. */
  readonly apiVersion?: string | undefined
  /** Sent as `Authorization: Bearer …`; never logged. */
  readonly accessToken: Redacted.Redacted<string>
  /** Key of the webhook signatures (`X-Hub-Signature-256`) this endpoint sends (see `WebhookVerifier`). */
  readonly appSecret: Redacted.Redacted<string>
}

export interface GraphApiConfig {
  /** The real operator; required only when a live account is used. */
  readonly live?: OperatorEndpoint | undefined
  /** The emulator serving sandbox accounts. */
  readonly sandbox: OperatorEndpoint
  /** Retries of one request in all (rate limits and, for idempotent requests, network errors); default 3. */
  readonly maxRetries?: number | undefined
  /** Time (ms) from the first attempt within which a retry may still start; default 2000. */
  readonly retryBudgetMs?: number | undefined
  /** Timeout of one HTTP attempt (ms); default 10000. */
  readonly requestTimeoutMs?: number | undefined
}

export const DEFAULT_API_VERSION = Graph.DEFAULT_API_VERSION
export const DEFAULT_MAX_RETRIES = 3
export const DEFAULT_RETRY_BUDGET_MS = 2000
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000
const BASE_DELAY_MS = 200
/** Retries of idempotent requests (reads, deletes, registration) after a network error or 5xx. */
const READ_TRANSPORT_RETRIES = 2

/**
 * How a request is retried:
 * - `write`: creations and sends. A lost answer may hide an accepted request, so only rate
 *   limits are retried (with back-off, within the budget), never a network error or a 5xx.
 * - `paced`: a send of a caller that paces and retries by itself (a campaign lane): no retry
 *   at all, the rate limit surfaces at once.
 * - `idempotent`: reads, deletes and registration: rate limits, and up to two network
 *   errors or 5xx answers, are retried.
 */
export type RetryMode = "write" | "paced" | "idempotent"

export class GraphApi extends Context.Tag("@switchboard/operator-client/GraphApi")<
  GraphApi,
  {
    /**
     * The endpoint serving `account`, after registering a sandbox account with the emulator
     * (once per process per phone number id). A live account while no live endpoint is
     * configured is a defect: the server must not hand out live accounts it has no
     * credentials for.
     */
    readonly endpointFor: (account: Store.OperatorAccount) => Effect.Effect<OperatorEndpoint, Errors.OperatorUnavailable>
    /** The emulator's endpoint (its control API serves the sandbox customer). */
    readonly sandbox: OperatorEndpoint
    /**
     * Registers a sandbox account's phone number with the emulator (`POST /_emulator/accounts`),
     * once per process per phone number id; later calls answer at once. Live accounts: nothing to do.
     */
    readonly registerSandboxAccount: (account: Store.OperatorAccount) => Effect.Effect<void, Errors.OperatorUnavailable>
    /**
     * Runs one request with the retry rules of `mode` (exponential back-off with jitter, the
     * operator's wait when it says one, never past the budget). The first attempt is the whole
     * cost of a request that succeeds (the hot path of a campaign).
     */
    readonly run: (request: Transport.Request, mode: RetryMode) => Effect.Effect<Graph.GraphSuccess, Graph.GraphFailure>
    /**
     * `run` in `paced` mode (one attempt), with no fiber: its outcome goes to `done`. The hot
     * path of a campaign lane.
     */
    readonly runPaced: (request: Transport.Request, done: (outcome: Either.Either<Graph.GraphSuccess, Graph.GraphFailure>) => void) => void
    /**
     * The endpoint serving `account` when no request is needed to know it (a live account
     * with a live endpoint, a sandbox account already registered by this process); else
     * undefined, and `endpointFor` does what is needed.
     */
    readonly readyEndpoint: (account: Store.OperatorAccount) => OperatorEndpoint | undefined
  }
>() {}

/** Builds the service. Requires a `GraphTransport`. */
export const make = (config: GraphApiConfig): Effect.Effect<GraphApi["Type"], never, GraphTransport> =>
  Effect.map(GraphTransport, (bare) => {
    const transport = Telemetry.instrument(bare)
    const maxRetries = Math.max(0, config.maxRetries ?? DEFAULT_MAX_RETRIES)
    const base = {
      maxRetries,
      budgetMs: Math.max(0, config.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS),
      attemptTimeoutMs: Math.max(1, config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      baseDelayMs: BASE_DELAY_MS
    }
    const write: Graph.RetryPolicy = { ...base, transportRetries: 0 }
    const policies: Record<RetryMode, Graph.RetryPolicy> = {
      write,
      paced: { ...write, maxRetries: 0 },
      idempotent: { ...base, transportRetries: Math.min(READ_TRANSPORT_RETRIES, maxRetries) }
    }
    const run = (request: Transport.Request, mode: RetryMode) => Graph.run(transport, request, policies[mode])
    const runPaced = (request: Transport.Request, done: (outcome: Either.Either<Graph.GraphSuccess, Graph.GraphFailure>) => void) =>
      transport.send(request, base.attemptTimeoutMs, (result) => done(Graph.outcomeOf(result)))

    const registered = new Set<string>()
    const registerSandboxAccount = (account: Store.OperatorAccount): Effect.Effect<void, Errors.OperatorUnavailable> =>
      Effect.suspend(() => {
        if (account.kind !== "sandbox" || registered.has(account.phoneNumberId)) return Effect.void
        const registration = Graph.request(config.sandbox, "POST", Graph.controlUrl(config.sandbox, "accounts"), {
          json: { waba_id: account.wabaId, phone_number_id: account.phoneNumberId, display_phone_number: account.displayPhoneNumber }
        })
        return run(registration, "idempotent").pipe(
          Effect.mapError((failure) => {
            const error = Graph.toUnavailable(failure)
            return Graph.unavailable({ ...error, reason: `sandbox account registration failed: ${error.reason}` })
          }),
          Effect.tap(() => Effect.sync(() => registered.add(account.phoneNumberId))),
          Effect.asVoid
        )
      })

    const endpointOf = (account: Store.OperatorAccount): Effect.Effect<OperatorEndpoint> => {
      if (account.kind === "sandbox") return Effect.succeed(config.sandbox)
      if (config.live !== undefined) return Effect.succeed(config.live)
      return Effect.dieMessage(
        `OperatorClient: account ${account.wabaId} is a live account but no live operator endpoint is configured (config.live)`
      )
    }
    const endpointFor = (account: Store.OperatorAccount) => Effect.zipLeft(endpointOf(account), registerSandboxAccount(account))
    const readyEndpoint = (account: Store.OperatorAccount): OperatorEndpoint | undefined =>
      account.kind === "sandbox" ? (registered.has(account.phoneNumberId) ? config.sandbox : undefined) : config.live

    return { endpointFor, sandbox: config.sandbox, registerSandboxAccount, run, runPaced, readyEndpoint }
  })

/** The service over a `GraphTransport`. */
export const layer = (config: GraphApiConfig): Layer.Layer<GraphApi, never, GraphTransport> => Layer.effect(GraphApi, make(config))

/** `layer` with its configuration read from `Config` (e.g. environment variables). */
export const layerConfig = (config: Config.Config.Wrap<GraphApiConfig>): Layer.Layer<GraphApi, ConfigError.ConfigError, GraphTransport> =>
  Layer.unwrapEffect(Effect.map(Config.unwrap(config), layer))

/**
 * Registers a sandbox account with the emulator through the `GraphApi` in context (the server
 * does this for every store at start, so the emulator knows their numbers after a restart).
 * Every capability also registers a sandbox account itself before its first Graph call.
 */
export const registerSandboxAccount = (account: Store.OperatorAccount): Effect.Effect<void, Errors.OperatorUnavailable, GraphApi> =>
  Effect.flatMap(GraphApi, (api) => api.registerSandboxAccount(account))
