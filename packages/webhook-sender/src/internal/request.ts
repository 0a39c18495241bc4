/** One POST over node:http / node:https: no redirects, a hard deadline, the answer's body read and discarded. */
import { WebhookTransport } from "@switchboard/domain"
import { Effect } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { AddressRefusedError, errorMessage, ResolutionFailedError } from "./resolve.js"
import { addressRefused, type Target } from "./target.js"

/** At most this much of an answer's body is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024

export interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

export const makeAgents = (): Agents => ({
  http: new http.Agent({ keepAlive: true, timeout: 30_000 }),
  https: new https.Agent({ keepAlive: true, timeout: 30_000 })
})

export interface Post {
  readonly target: Target
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  readonly timeoutMs: number
  readonly agents: Agents
  /** Built per request; it reports a refused address (what was found, for logs) through `onRefused`. */
  readonly lookup: (onRefused: (detail: string) => void) => LookupFunction
}

const describeNetworkError = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  const message = errorMessage(error)
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message
}

export const post = (options: Post): Effect.Effect<{ readonly status: number }, WebhookTransport.UrlRefused | WebhookTransport.DeliveryFailed> =>
  Effect.async((resume) => {
    const { target } = options
    let settled = false
    let refusal: string | undefined
    let status: number | undefined
    let request: http.ClientRequest | undefined
    let response: http.IncomingMessage | undefined

    const settle = (effect: Effect.Effect<{ readonly status: number }, WebhookTransport.UrlRefused | WebhookTransport.DeliveryFailed>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const answered = () => {
      if (status !== undefined) settle(Effect.succeed({ status }))
    }

    const timer = setTimeout(() => {
      if (status !== undefined) {
        // The status is known; a body still trickling in does not matter.
        answered()
        response?.destroy()
      } else {
        settle(Effect.fail(new WebhookTransport.DeliveryFailed({ reason: `timed out after ${options.timeoutMs} ms` })))
        request?.destroy()
      }
    }, options.timeoutMs)

    try {
      const module = target.protocol === "https:" ? https : http
      request = module.request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: "POST",
        headers: { ...options.headers, "content-length": String(options.body.byteLength) },
        agent: target.protocol === "https:" ? options.agents.https : options.agents.http,
        lookup: options.lookup((detail) => {
          refusal = detail
        })
      })
    } catch (error) {
      settle(Effect.fail(new WebhookTransport.DeliveryFailed({ reason: describeNetworkError(error) })))
      return
    }

    request.on("error", (error) => {
      const detail = error instanceof AddressRefusedError ? error.detail : refusal
      if (detail !== undefined) {
        settle(Effect.fail(addressRefused(target.url.href, detail)))
      } else if (error instanceof ResolutionFailedError) {
        // what the resolver answered stays in our logs: a caller learns nothing of our DNS
        settle(
          Effect.zipRight(
            Effect.logInfo("webhook host could not be resolved", { host: target.hostname, detail: error.detail }),
            Effect.fail(new WebhookTransport.DeliveryFailed({ reason: error.message }))
          )
        )
      } else if (status !== undefined) {
        answered()
      } else {
        settle(Effect.fail(new WebhookTransport.DeliveryFailed({ reason: describeNetworkError(error) })))
      }
    })
    request.on("response", (res) => {
      response = res
      status = res.statusCode ?? 0
      let received = 0
      res.on("data", (chunk: Buffer) => {
        received += chunk.byteLength
        if (received > MAX_RESPONSE_BYTES) {
          answered()
          res.destroy()
        }
      })
      res.on("end", answered)
      res.on("close", answered)
      res.on("error", answered)
    })
    request.end(options.body)

    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      request?.destroy()
    })
  })
