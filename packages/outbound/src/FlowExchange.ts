/**
 * The domain's `CallerEndpoint`: a flow's data exchange, forwarded to the caller's endpoint as
 * plain JSON signed as caller webhooks are (Standard Webhooks), under the same guard as
 * webhook deliveries and feed URLs:
 *
 * - the URL's form is checked again (http(s), no credentials, no private IP literal or
 *   metadata host name);
 * - through the guarded client (`internal/client.ts`): the socket's `lookup` resolves the host
 *   name itself and refuses the connection when any address is not public, then connects to
 *   the very addresses it checked: a name that re-binds to an internal address after
 *   `checkUrl` (DNS rebinding) is refused at connect;
 * - no redirects are followed, an answer is cut at 1 MiB, and the call has a 10 s deadline.
 *
 * The signature is made with node:crypto from each secret's key decoded once (`signer`, the
 * same headers as `standardwebhooks` makes) and the message id drawn from a pool of random
 * bytes: per exchange, only the HMAC of the body.
 *
 * With `allowPrivateUrls` (local development and tests) only the form checks apply. A refused
 * address is reported as `ADDRESS_NOT_ALLOWED`; what was found goes to our logs only.
 */
import { FlowCrypto } from "@switchboard/domain"
import { Clock, Effect, Either, type Layer } from "effect"
import { createHmac, createSecretKey, type KeyObject, randomFillSync } from "node:crypto"
import { call, type CallError, makeAgents, pooledLayer, readBody, signedHeaders } from "./internal/client.js"
import { errorMessage, type Resolver, systemResolver } from "./internal/resolve.js"
import { ADDRESS_NOT_ALLOWED, parseTarget, type Target } from "./internal/target.js"

export interface FlowExchangeOptions {
  /** Lets the endpoint be a loopback or private address (local development, tests). */
  readonly allowPrivateUrls: boolean
  /** Deadline of one exchange, from connecting to the whole answer; default 10000. */
  readonly timeoutMs?: number | undefined
  /** Answers every address of a host name; default `dns.promises.lookup(hostname, { all: true })`. */
  readonly resolver?: Resolver | undefined
}

export const DEFAULT_TIMEOUT_MS = 10_000
/** The largest answer of a caller's endpoint we read (a screen's data). */
export const MAX_ANSWER_BYTES = 1024 * 1024

/** Flow secrets' signing keys kept (a flow's forwards all sign with its one secret), the oldest dropped first. */
const SIGNING_KEYS = 1000

/**
 * Standard Webhooks signatures as `signedHeaders` makes them (`standardwebhooks`), with
 * node:crypto's HMAC and each secret's key decoded once: the same headers, at a fraction of
 * the cost. A secret that is not canonical base64 after `whsec_` is signed by `signedHeaders`
 * itself (which decodes it its own way, or refuses it).
 */
export const signer = () => {
  const keys = new Map<string, KeyObject | null>()
  const keyOf = (secret: string): KeyObject | null => {
    let key = keys.get(secret)
    if (key === undefined) {
      const b64 = secret.startsWith("whsec_") ? secret.slice(6) : secret
      const bytes = Buffer.from(b64, "base64")
      key = bytes.length > 0 && bytes.toString("base64") === b64 ? createSecretKey(bytes) : null
      if (keys.size >= SIGNING_KEYS) keys.delete(keys.keys().next().value!)
      keys.set(secret, key)
    }
    return key
  }
  return (secret: string, id: string, timestampMs: number, body: string): ReturnType<typeof signedHeaders> => {
    const key = keyOf(secret)
    if (key === null) return signedHeaders(secret, id, timestampMs, body)
    const seconds = Math.floor(timestampMs / 1000)
    const signature = createHmac("sha256", key).update(`${id}.${seconds}.${body}`).digest("base64")
    return { headers: { "webhook-id": id, "webhook-timestamp": String(seconds), "webhook-signature": `v1,${signature}` } }
  }
}

/** Random bytes drawn a block at a time (one call into the system's generator per 4 KiB, not per message). */
const randomPool = () => {
  const pool = Buffer.alloc(4096)
  let at = pool.length
  return (n: number): string => {
    if (at + n > pool.length) {
      randomFillSync(pool)
      at = 0
    }
    at += n
    return pool.toString("hex", at - n, at)
  }
}

/** What a caller is told when no answer came; what was found about a refused address goes to our logs only. */
const reasonOf = (target: Target, error: CallError, timeoutMs: number): Effect.Effect<never, string> => {
  switch (error._tag) {
    case "AddressRefused":
      return Effect.zipRight(
        Effect.logInfo("flow endpoint URL refused at connect", { host: target.hostname, detail: error.detail }),
        Effect.fail(`the endpoint URL is refused: ${ADDRESS_NOT_ALLOWED}`)
      )
    case "Unresolved":
      return Effect.fail(error.message)
    case "TimedOut":
      return Effect.fail(`the endpoint did not answer within ${timeoutMs / 1000} s`)
    case "Failed":
      return Effect.fail(errorMessage(error.error))
  }
}

/**
 * The capability and the keep-alive agents it owns (a flow's exchanges come one after another).
 * An idle timeout on the agents makes Node honour the endpoint's `Keep-Alive: timeout=` hint
 * (it drops an idle connection a second before the endpoint would); a connection the endpoint
 * closed as we reused it anyway is retried once on another (`retryStaleConnection`).
 */
const build = (options: FlowExchangeOptions) => {
  const agents = makeAgents({ keepAlive: true, maxSockets: 64, timeout: 30_000 })
  const guard = { resolver: options.resolver ?? systemResolver, allowPrivateUrls: options.allowPrivateUrls }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const sign = signer()
  const random = randomPool()

  /** One signed POST to the checked target, answered with its status and body within the deadline. */
  const post = (target: Target, body: string, headers: Record<string, string>): Effect.Effect<FlowCrypto.CallerAnswer, string> => {
    const started = Date.now()
    return call({
      target,
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: Buffer.from(body),
      agents,
      guard,
      timeoutMs,
      retryStaleConnection: true
    }).pipe(
      Effect.catchAll((error) => reasonOf(target, error, timeoutMs)),
      Effect.flatMap((response) =>
        readBody(response, MAX_ANSWER_BYTES, timeoutMs - (Date.now() - started)).pipe(
          Effect.mapError((error) =>
            error._tag === "TooLarge"
              ? `the endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes`
              : error._tag === "TimedOut"
                ? `the endpoint did not answer within ${timeoutMs / 1000} s`
                : errorMessage(error.error)
          ),
          Effect.map((answer) => ({ status: response.statusCode ?? 0, body: answer.toString("utf8") }))
        )
      )
    )
  }

  const service = FlowCrypto.CallerEndpoint.of({
    exchange: (url, secret, payload) =>
      Effect.gen(function* () {
        const parsed = parseTarget(url, options.allowPrivateUrls)
        if (Either.isLeft(parsed)) return yield* Effect.fail(`the endpoint URL is refused: ${parsed.left.reason}`)
        const body = JSON.stringify(payload)
        const signed = sign(secret, `msg_${random(12)}`, yield* Clock.currentTimeMillis, body)
        if ("cannot" in signed) return yield* Effect.fail(signed.cannot)
        return yield* post(parsed.right, body, signed.headers)
      })
  })
  return { service, agents }
}

/** The capability; its keep-alive agents live as long as the process. */
export const make = (options: FlowExchangeOptions): FlowCrypto.CallerEndpoint["Type"] => build(options).service

/** The capability as a layer; releasing it closes its pooled connections. */
export const layer = (options: FlowExchangeOptions): Layer.Layer<FlowCrypto.CallerEndpoint> =>
  pooledLayer(FlowCrypto.CallerEndpoint, () => build(options))
