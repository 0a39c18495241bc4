/**
 * The one guarded client of every call to a caller's URL (webhook deliveries, feed
 * downloads, flow data exchanges), over node:http / node:https:
 *
 * - the socket's `lookup` resolves the host name itself and, unless private URLs are
 *   allowed, refuses the connection when any address is not public, then connects to the
 *   very addresses it checked: a name that re-binds to an internal address after the URL was
 *   checked (DNS rebinding) is refused at connect;
 * - redirects are never followed (node:http does not), and no answer within `timeoutMs`
 *   fails the call.
 *
 * What was found about a refused address or an unresolved name is a `detail` for our logs:
 * each caller of `call` says what a caller of ours is told.
 */
import { type Context, Effect, Layer } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import { Webhook } from "standardwebhooks"
import { AddressRefusedError, errorMessage, guardedLookup, ResolutionFailedError, type Resolver } from "./resolve.js"
import type { Target } from "./target.js"

/** Keep-alive pools, one per scheme. */
export interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

export const makeAgents = (options: http.AgentOptions): Agents => ({ http: new http.Agent(options), https: new https.Agent(options) })

/** A service over its own keep-alive pools, as a layer: releasing it closes the pools. */
export const pooledLayer = <I, S>(tag: Context.Tag<I, S>, build: () => { readonly service: S; readonly agents: Agents }): Layer.Layer<I> =>
  Layer.scoped(
    tag,
    Effect.map(
      Effect.acquireRelease(Effect.sync(build), ({ agents }) =>
        Effect.sync(() => {
          agents.http.destroy()
          agents.https.destroy()
        })
      ),
      ({ service }) => service
    )
  )

/** Which addresses a call may reach. */
export interface Guard {
  readonly resolver: Resolver
  /** Skip the address checks (local development, tests): only the URL's form was checked. */
  readonly allowPrivateUrls: boolean
}

export interface Call {
  /** The URL, its form already checked (`parseTarget`). */
  readonly target: Target
  readonly method: "GET" | "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: Buffer | undefined
  /** Keep-alive pools; node's global agent without. */
  readonly agents?: Agents | undefined
  readonly guard: Guard
  /** No answer (its status) this long after the call started fails it. */
  readonly timeoutMs: number
  /**
   * Sends the request once more, on a new connection outside the pool, when a kept-alive
   * connection it was written to was closed by the other end before any answer (the server's
   * idle timeout crossing our reuse: Node's documented `reusedSocket` race). Off unless asked.
   */
  readonly retryStaleConnection?: boolean | undefined
}

/** A reset of a reused keep-alive connection before any answer: the other end closed it as we wrote. */
const isStaleConnection = (request: http.ClientRequest, error: unknown): boolean =>
  request.reusedSocket && typeof error === "object" && error !== null && "code" in error && (error.code === "ECONNRESET" || error.code === "EPIPE")

/** Why no answer came. */
export type CallError =
  | { readonly _tag: "AddressRefused"; readonly detail: string }
  | { readonly _tag: "Unresolved"; readonly message: string; readonly detail: string }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Failed"; readonly error: unknown }

/**
 * Makes the call and answers the answer's head; its body is the caller's to read
 * (`readBody`). Interrupting the call destroys the request.
 */
export const call = (c: Call): Effect.Effect<http.IncomingMessage, CallError> =>
  Effect.async((resume) => {
    let settled = false
    let refusal: string | undefined
    let request: http.ClientRequest | undefined
    const settle = (effect: Effect.Effect<http.IncomingMessage, CallError>) => {
      if (settled) return false
      settled = true
      clearTimeout(timer)
      resume(effect)
      return true
    }
    const timer = setTimeout(() => {
      settle(Effect.fail({ _tag: "TimedOut" }))
      request?.destroy()
    }, c.timeoutMs)
    const secure = c.target.protocol === "https:"
    const send = (retried: boolean) => {
      let sent: http.ClientRequest
      try {
        sent = (secure ? https : http).request({
          protocol: c.target.protocol,
          hostname: c.target.hostname,
          port: c.target.port,
          path: c.target.path,
          method: c.method,
          headers: c.body === undefined ? c.headers : { ...c.headers, "content-length": String(c.body.byteLength) },
          // the retry of a stale connection takes a new one of its own: the pool's other idle ones may be as stale
          agent: retried ? false : c.agents === undefined ? undefined : secure ? c.agents.https : c.agents.http,
          lookup: guardedLookup(c.guard.resolver, c.guard.allowPrivateUrls, (detail) => {
            refusal = detail
          })
        })
      } catch (error) {
        settle(Effect.fail({ _tag: "Failed", error }))
        return
      }
      request = sent
      // after the answer, an error of the connection is the body reader's to see
      sent.on("error", (error) => {
        if (!settled && !retried && c.retryStaleConnection === true && isStaleConnection(sent, error)) return send(true)
        const detail = error instanceof AddressRefusedError ? error.detail : refusal
        settle(
          Effect.fail(
            detail !== undefined
              ? { _tag: "AddressRefused", detail }
              : error instanceof ResolutionFailedError
                ? { _tag: "Unresolved", message: error.message, detail: error.detail }
                : { _tag: "Failed", error }
          )
        )
      })
      sent.on("response", (response) => {
        if (!settle(Effect.succeed(response))) response.destroy()
      })
      sent.end(c.body)
    }
    send(false)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      request?.destroy()
    })
  })

/** Why a body was not read whole. */
export type BodyError = { readonly _tag: "TooLarge" } | { readonly _tag: "TimedOut" } | { readonly _tag: "Failed"; readonly error: unknown }

/**
 * An answer's body, at most `maxBytes` of it (more fails with `TooLarge` and drops the
 * connection), within `timeoutMs`. Interrupting the read destroys the answer.
 */
export const readBody = (response: http.IncomingMessage, maxBytes: number, timeoutMs: number): Effect.Effect<Buffer, BodyError> =>
  Effect.async((resume) => {
    let settled = false
    const chunks: Array<Buffer> = []
    let size = 0
    const settle = (effect: Effect.Effect<Buffer, BodyError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const fail = (error: BodyError) => {
      if (settled) return
      settle(Effect.fail(error))
      response.destroy()
    }
    const timer = setTimeout(() => fail({ _tag: "TimedOut" }), Math.max(0, timeoutMs))
    response.on("data", (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > maxBytes) fail({ _tag: "TooLarge" })
      else chunks.push(chunk)
    })
    response.on("end", () => settle(Effect.succeed(Buffer.concat(chunks))))
    response.on("error", (error) => fail({ _tag: "Failed", error }))
    response.on("close", () => fail({ _tag: "Failed", error: new Error("the connection closed before the answer ended") }))
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      response.destroy()
    })
  })

/** The Standard Webhooks headers of `body` (`webhook-id`, `webhook-timestamp`, `webhook-signature`), or why it cannot be signed. */
export const signedHeaders = (
  secret: string,
  id: string,
  timestampMs: number,
  body: string
): { readonly headers: Record<string, string> } | { readonly cannot: string } => {
  try {
    const signature = new Webhook(secret).sign(id, new Date(timestampMs), body)
    return { headers: { "webhook-id": id, "webhook-timestamp": String(Math.floor(timestampMs / 1000)), "webhook-signature": signature } }
  } catch (error) {
    return { cannot: `cannot sign: ${errorMessage(error)}` }
  }
}
