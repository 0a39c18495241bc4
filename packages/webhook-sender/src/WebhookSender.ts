/**
 * The domain's `WebhookTransport` port over node:http / node:https: deliveries signed as
 * Standard Webhooks say, and every connection guarded against SSRF.
 *
 * - `checkUrl` (at registration): the URL parses, its scheme is http or https, it carries no
 *   credentials, and every address its host resolves to is public.
 * - `deliver` (each attempt): the same format checks, then a POST whose socket `lookup`
 *   resolves the host again and refuses a non-public address, so a host that re-binds to an
 *   internal address after registration is still refused. Redirects are never followed.
 *
 * With `allowPrivateUrls` (local development) only the scheme and format checks apply.
 *
 * A refused address is reported to the caller only as `ADDRESS_NOT_ALLOWED`, and a host that
 * does not resolve as "host name … could not be resolved" (at registration) or "the host name
 * could not be resolved" (at delivery): never the resolved address or the resolver's error.
 */
import { type FeedReader, type FlowCrypto, WebhookTransport } from "@switchboard/domain"
import * as FeedFiles from "./FeedFiles.js"
import * as FlowExchange from "./FlowExchange.js"
import { Effect, Either, Layer } from "effect"
import { Webhook } from "standardwebhooks"
import { isPublicAddress as isPublic } from "./internal/address.js"
import { makeAgents, MAX_RESPONSE_BYTES as MAX_BYTES, post } from "./internal/request.js"
import type { ResolvedAddress, Resolver } from "./internal/resolve.js"
import { callResolver, errorMessage, guardedLookup, refusalOf, systemResolver } from "./internal/resolve.js"
import { ADDRESS_NOT_ALLOWED as NOT_ALLOWED, addressRefused, parseTarget } from "./internal/target.js"

export type { ResolvedAddress, Resolver }

/**
 * The `reason` of every refusal of an address (private, loopback, metadata, unresolvable...):
 * callers are told only that the address is not allowed. What was found is the refusal's
 * `detail`, logged at INFO level, never shown.
 */
export const ADDRESS_NOT_ALLOWED = NOT_ALLOWED

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_USER_AGENT = "Switchboard-Webhooks/1.0"
/** At most this much of an answer's body is read and discarded. */
export const MAX_RESPONSE_BYTES = MAX_BYTES

export interface WebhookSenderOptions {
  /** Skip the address checks (local development): only the scheme and format checks apply. */
  readonly allowPrivateUrls: boolean
  /** Deadline of one attempt, from connecting to the answer's status (and of a resolution in `checkUrl`); default 10000. */
  readonly timeoutMs?: number | undefined
  /** Sent as `user-agent`; default `Switchboard-Webhooks/1.0`. */
  readonly userAgent?: string | undefined
  /** Answers every address of a host name; default `dns.promises.lookup(hostname, { all: true })`. */
  readonly resolver?: Resolver | undefined
}

export type WebhookSender = WebhookTransport.WebhookTransport["Type"]

/**
 * True only for a valid, globally routable unicast IP address (ipaddr.js range `unicast`;
 * IPv4-mapped IPv6 is judged as its IPv4 address). Loopback, private, link-local (with
 * 169.254.169.254), unique-local, unspecified, broadcast, multicast, CGNAT, reserved and
 * transition ranges (6to4, Teredo, NAT64...) are not public.
 */
export const isPublicAddress = (ip: string): boolean => isPublic(ip)

const resolveWithin = (resolver: Resolver, hostname: string, timeoutMs: number): Effect.Effect<ReadonlyArray<ResolvedAddress>, string> =>
  Effect.async((resume) => {
    let done = false
    const timer = setTimeout(() => {
      done = true
      resume(Effect.fail(`could not be resolved within ${timeoutMs} ms`))
    }, timeoutMs)
    callResolver(resolver, hostname).then(
      (addresses) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(Effect.succeed(addresses))
      },
      (error: unknown) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(Effect.fail(`could not be resolved (${errorMessage(error)})`))
      }
    )
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
    })
  })

/** What was found about a refused address goes to our logs (host only: a URL may carry secrets). */
const logRefusal = (error: WebhookTransport.UrlRefused | WebhookTransport.DeliveryFailed) =>
  error._tag === "UrlRefused" && error.detail !== undefined
    ? Effect.logInfo("webhook URL refused", { host: hostOf(error.url), detail: error.detail })
    : Effect.void

const hostOf = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return ""
  }
}

/** The service and the keep-alive agents it owns. */
const build = (options: WebhookSenderOptions) => {
  const allowPrivateUrls = options.allowPrivateUrls
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT
  const resolver = options.resolver ?? systemResolver
  const agents = makeAgents()

  const checkUrl = (url: string): Effect.Effect<void, WebhookTransport.UrlRefused> =>
    Effect.suspend(() => {
      const parsed = parseTarget(url, allowPrivateUrls)
      if (Either.isLeft(parsed)) return Effect.fail(parsed.left)
      const target = parsed.right
      if (allowPrivateUrls || target.ipLiteral) return Effect.void
      return resolveWithin(resolver, target.hostname, timeoutMs).pipe(
        // the caller is told the name did not resolve (their own input), never the resolver's error
        Effect.mapError(
          (reason) =>
            new WebhookTransport.UrlRefused({
              url,
              reason: `host name ${target.hostname} could not be resolved`,
              detail: `host ${target.hostname} ${reason}`
            })
        ),
        Effect.flatMap((addresses) => {
          const detail = refusalOf(addresses)
          return detail === undefined ? Effect.void : Effect.fail(addressRefused(url, detail))
        })
      )
    }).pipe(Effect.tapError(logRefusal))

  const deliver = (
    delivery: WebhookTransport.SignedDelivery
  ): Effect.Effect<{ readonly status: number }, WebhookTransport.UrlRefused | WebhookTransport.DeliveryFailed> =>
    Effect.suspend(() => {
      const parsed = parseTarget(delivery.url, allowPrivateUrls)
      if (Either.isLeft(parsed)) return Effect.fail(parsed.left)
      const target = parsed.right
      let signature: string
      try {
        signature = new Webhook(delivery.secret).sign(delivery.messageId, new Date(delivery.timestamp), delivery.payload)
      } catch (error) {
        return Effect.fail(new WebhookTransport.DeliveryFailed({ reason: `cannot sign: ${errorMessage(error)}` }))
      }
      return post({
        target,
        headers: {
          "content-type": "application/json",
          "user-agent": userAgent,
          "webhook-id": delivery.messageId,
          "webhook-timestamp": String(Math.floor(delivery.timestamp / 1000)),
          "webhook-signature": signature
        },
        body: Buffer.from(delivery.payload, "utf8"),
        timeoutMs,
        agents,
        lookup: (onRefused) => guardedLookup(resolver, allowPrivateUrls, onRefused)
      })
    }).pipe(Effect.tapError(logRefusal))

  const service: WebhookSender = { checkUrl, deliver }
  const close = () => {
    agents.http.destroy()
    agents.https.destroy()
  }
  return { service, close }
}

/** The transport; its keep-alive agents live as long as the process (idle sockets do not keep it alive). */
export const make = (options: WebhookSenderOptions): WebhookSender => build(options).service

/**
 * The transport as the domain's `WebhookTransport`, with the domain's `FeedReader` (feed
 * files and URLs, `FeedFiles`) and `CallerEndpoint` (a flow's data exchange, `FlowExchange`)
 * under the same address rules: everything that reaches a caller's URL. Releasing the layer
 * closes its pooled connections.
 */
export const layer = (
  options: WebhookSenderOptions
): Layer.Layer<WebhookTransport.WebhookTransport | FeedReader.FeedReader | FlowCrypto.CallerEndpoint> =>
  Layer.mergeAll(
    Layer.scoped(
      WebhookTransport.WebhookTransport,
      Effect.acquireRelease(
        Effect.sync(() => build(options)),
        ({ close }) => Effect.sync(close)
      ).pipe(Effect.map(({ service }) => service))
    ),
    FeedFiles.layer({ allowPrivateUrls: options.allowPrivateUrls, resolver: options.resolver }),
    FlowExchange.layer({ allowPrivateUrls: options.allowPrivateUrls, resolver: options.resolver })
  )
