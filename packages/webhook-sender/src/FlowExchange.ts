/**
 * The domain's `CallerEndpoint`: a flow's data exchange, forwarded to the caller's endpoint as
 * plain JSON signed as caller webhooks are (Standard Webhooks), under the same guard as
 * webhook deliveries and feed URLs:
 *
 * - the URL's form is checked again (http(s), no credentials, no private IP literal or
 *   metadata host name);
 * - the socket's `lookup` resolves the host name itself and refuses the connection when any
 *   address is not public, then connects to the very addresses it checked: a name that
 *   re-binds to an internal address after `checkUrl` (DNS rebinding) is refused at connect;
 * - no redirects are followed, an answer is cut at 1 MiB, and the call has a 10 s deadline.
 *
 * With `allowPrivateUrls` (local development and tests) only the form checks apply. A refused
 * address is reported as `ADDRESS_NOT_ALLOWED`; what was found goes to our logs only.
 */
import { FlowCrypto } from "@switchboard/domain"
import { Clock, Effect, Either, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import * as https from "node:https"
import { Webhook } from "standardwebhooks"
import { AddressRefusedError, errorMessage, guardedLookup, ResolutionFailedError, type Resolver, systemResolver } from "./internal/resolve.js"
import { ADDRESS_NOT_ALLOWED, type Target, parseTarget } from "./internal/target.js"

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

interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

/** One signed POST to the checked target, answered with its status and body, or failed with a reason a caller may see. */
const exchangeOnce = (
  target: Target,
  body: string,
  headers: Record<string, string>,
  options: { readonly timeoutMs: number; readonly agents: Agents; readonly resolver: Resolver; readonly allowPrivateUrls: boolean }
): Effect.Effect<FlowCrypto.CallerAnswer, string> =>
  Effect.async((resume) => {
    let settled = false
    let refusal: string | undefined
    let request: http.ClientRequest | undefined
    const settle = (effect: Effect.Effect<FlowCrypto.CallerAnswer, string>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const fail = (reason: string) => {
      settle(Effect.fail(reason))
      request?.destroy()
    }
    const timer = setTimeout(() => fail(`the endpoint did not answer within ${options.timeoutMs / 1000} s`), options.timeoutMs)
    const secure = target.protocol === "https:"
    try {
      request = (secure ? https : http).request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: "POST",
        agent: secure ? options.agents.https : options.agents.http,
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.resolver, options.allowPrivateUrls, (detail) => {
          refusal = detail
        })
      })
    } catch (error) {
      fail(errorMessage(error))
      return
    }
    request.on("response", (res) => {
      const chunks: Array<Buffer> = []
      let size = 0
      res.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_ANSWER_BYTES) fail(`the endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes`)
        else chunks.push(chunk)
      })
      res.on("end", () => settle(Effect.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })))
      res.on("error", (error) => fail(errorMessage(error)))
    })
    request.on("error", (error) => {
      const detail = error instanceof AddressRefusedError ? error.detail : refusal
      if (detail !== undefined) {
        // what was found stays in our logs: a caller learns nothing of our network
        settle(
          Effect.zipRight(
            Effect.logInfo("flow endpoint URL refused at connect", { host: target.hostname, detail }),
            Effect.fail(`the endpoint URL is refused: ${ADDRESS_NOT_ALLOWED}`)
          )
        )
      } else if (error instanceof ResolutionFailedError) fail(error.message)
      else fail(errorMessage(error))
    })
    request.end(body)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      request?.destroy()
    })
  })

/** The capability and the keep-alive agents it owns (a flow's exchanges come one after another). */
const build = (options: FlowExchangeOptions) => {
  const agents: Agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64 })
  }
  const settings = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    agents,
    resolver: options.resolver ?? systemResolver,
    allowPrivateUrls: options.allowPrivateUrls
  }
  const service = FlowCrypto.CallerEndpoint.of({
    exchange: (url, secret, payload) =>
      Effect.gen(function* () {
        const parsed = parseTarget(url, options.allowPrivateUrls)
        if (Either.isLeft(parsed)) return yield* Effect.fail(`the endpoint URL is refused: ${parsed.left.reason}`)
        const body = JSON.stringify(payload)
        const id = `msg_${randomBytes(12).toString("hex")}`
        const now = yield* Clock.currentTimeMillis
        let signature: string
        try {
          signature = new Webhook(secret).sign(id, new Date(now), body)
        } catch (error) {
          return yield* Effect.fail(`cannot sign: ${errorMessage(error)}`)
        }
        const headers = { "webhook-id": id, "webhook-timestamp": String(Math.floor(now / 1000)), "webhook-signature": signature }
        return yield* exchangeOnce(parsed.right, body, headers, settings)
      })
  })
  const close = () => {
    agents.http.destroy()
    agents.https.destroy()
  }
  return { service, close }
}

/** The capability; its keep-alive agents live as long as the process. */
export const make = (options: FlowExchangeOptions): FlowCrypto.CallerEndpoint["Type"] => build(options).service

/** The capability as a layer; releasing it closes its pooled connections. */
export const layer = (options: FlowExchangeOptions): Layer.Layer<FlowCrypto.CallerEndpoint> =>
  Layer.scoped(
    FlowCrypto.CallerEndpoint,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => build(options)),
        ({ close }) => Effect.sync(close)
      ),
      ({ service }) => service
    )
  )
