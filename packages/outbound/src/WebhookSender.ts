/**
 * The domain's `WebhookTransport` port over node:http / node:https: deliveries signed as
 * Standard Webhooks say, and every connection guarded against SSRF.
 *
 * - `checkUrl` (at registration): the URL parses, its scheme is http or https, it carries no
 *   credentials, and every address its host resolves to is public.
 * - `deliver` (each attempt): the same format checks, then a POST through the guarded client
 *   (`internal/client.ts`), whose socket `lookup` resolves the host again and refuses a
 *   non-public address, so a host that re-binds to an internal address after registration
 *   is still refused. Redirects are never followed.
 *
 * With `allowPrivateUrls` (local development) only the scheme and format checks apply.
 *
 * A refused address is reported to the caller only as `ADDRESS_NOT_ALLOWED`, and a host that
 * does not resolve as "host name … could not be resolved" (at registration) or "the host name
 * could not be resolved" (at delivery): never the resolved address or the resolver's error.
 */
import { WebhookTransport } from "@switchboard/domain"
import { Effect, Either, type Layer } from "effect"
import { type Agents, call, type CallError, makeAgents, pooledLayer, readBody, signedHeaders } from "./internal/client.js"
import type { ResolvedAddress, Resolver } from "./internal/resolve.js"
import { callResolver, errorMessage, refusalOf, systemResolver } from "./internal/resolve.js"
import { addressRefused, parseTarget, type Target } from "./internal/target.js"

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_USER_AGENT = "Switchboard-Webhooks/1.0"
/** At most this much of an answer's body is read and discarded. */
export const MAX_RESPONSE_BYTES = 64 * 1024

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
  const agents: Agents = makeAgents({ keepAlive: true, timeout: 30_000 })
  const guard = { resolver, allowPrivateUrls }

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
      const signed = signedHeaders(delivery.secret, delivery.messageId, delivery.timestamp, delivery.payload)
      if ("cannot" in signed) return Effect.fail(new WebhookTransport.DeliveryFailed({ reason: signed.cannot }))
      return post(parsed.right, { "content-type": "application/json", "user-agent": userAgent, ...signed.headers }, delivery.payload)
    }).pipe(Effect.tapError(logRefusal))

  /** The POST; its answer's body (at most `MAX_RESPONSE_BYTES`) is read and dropped within the same deadline. */
  const post = (target: Target, headers: Record<string, string>, payload: string) => {
    const started = Date.now()
    return call({ target, method: "POST", headers, body: Buffer.from(payload, "utf8"), agents, guard, timeoutMs }).pipe(
      Effect.catchAll((error) => refusedOrFailed(target, error)),
      Effect.flatMap((response) =>
        readBody(response, MAX_RESPONSE_BYTES, timeoutMs - (Date.now() - started)).pipe(
          Effect.ignore,
          Effect.as({ status: response.statusCode ?? 0 })
        )
      )
    )
  }

  const refusedOrFailed = (target: Target, error: CallError): Effect.Effect<never, WebhookTransport.UrlRefused | WebhookTransport.DeliveryFailed> => {
    switch (error._tag) {
      case "AddressRefused":
        return Effect.fail(addressRefused(target.url.href, error.detail))
      case "Unresolved":
        // what the resolver answered stays in our logs: a caller learns nothing of our DNS
        return Effect.zipRight(
          Effect.logInfo("webhook host could not be resolved", { host: target.hostname, detail: error.detail }),
          Effect.fail(new WebhookTransport.DeliveryFailed({ reason: error.message }))
        )
      case "TimedOut":
        return Effect.fail(new WebhookTransport.DeliveryFailed({ reason: `timed out after ${timeoutMs} ms` }))
      case "Failed":
        return Effect.fail(new WebhookTransport.DeliveryFailed({ reason: describeNetworkError(error.error) }))
    }
  }

  const service: WebhookSender = { checkUrl, deliver }
  return { service, agents }
}

/** The transport; its keep-alive agents live as long as the process (idle sockets do not keep it alive). */
export const make = (options: WebhookSenderOptions): WebhookSender => build(options).service

/** The transport as the domain's `WebhookTransport`; releasing the layer closes its pooled connections. */
export const layer = (options: WebhookSenderOptions): Layer.Layer<WebhookTransport.WebhookTransport> =>
  pooledLayer(WebhookTransport.WebhookTransport, () => build(options))

const describeNetworkError = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  const message = errorMessage(error)
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message
}
