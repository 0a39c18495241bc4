/**
 * The one thing the client needs from the network: send one HTTP request, read the whole
 * answer as text. A port of its own rather than `@effect/platform`'s `HttpClient` because
 * the client sends up to a thousand messages a second per number: the generic client costs
 * about a millisecond of CPU per request (a span with every header as an attribute, an
 * `AbortController` and a `FinalizationRegistry` entry per response, immutable request
 * copies, a timeout fiber), ten times the request itself. This one is a keep-alive `undici`
 * pool, its own timeouts, and nothing else.
 *
 * `OperatorClient.layer` requires it; `layerUndici` is the implementation the server
 * provides.
 */
import { Context, Data, Effect, Layer } from "effect"
import { Agent, type Dispatcher } from "undici"

/** One request, fully formed: absolute URL, headers, and a text body (JSON) when it has one. */
export interface Request {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/** The whole answer: status, headers (lower-case names) and the body as text. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly text: string
}

/** The request did not produce a whole answer: no connection, reset, or no answer within the timeout. */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly reason: string
}> {}

export class GraphTransport extends Context.Tag("@switchboard/operator-client/GraphTransport")<
  GraphTransport,
  {
    /**
     * Sends `request` and reads its answer. Fails with `TransportError` when no whole answer
     * arrived within `timeoutMs` (from the request to the end of the body) or the connection
     * failed; any HTTP status is an answer. Interrupting it aborts the request.
     */
    readonly request: (request: Request, timeoutMs: number) => Effect.Effect<Answer, TransportError>
  }
>() {}

const describe = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return `network error${typeof code === "string" ? ` (${code})` : ""}: ${message}${cause}`
}

/** The transport over an `undici` dispatcher (the caller owns its lifetime). */
export const make = (dispatcher: Dispatcher): GraphTransport["Type"] => ({
  request: (request, timeoutMs) =>
    Effect.async<Answer, TransportError>((resume) => {
      const url = new URL(request.url)
      const controller = new AbortController()
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        controller.abort()
      }, timeoutMs)
      dispatcher
        .request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: controller.signal
        })
        .then((response) =>
          response.body.text().then((text) => {
            clearTimeout(timer)
            resume(Effect.succeed({ status: response.statusCode, headers: response.headers as Answer["headers"], text }))
          })
        )
        .catch((error: unknown) => {
          clearTimeout(timer)
          resume(Effect.fail(new TransportError({ reason: timedOut ? `no answer within ${timeoutMs} ms` : describe(error) })))
        })
      // interrupted: abort the request (its rejection then resumes nothing: the fiber has moved on)
      return Effect.sync(() => {
        clearTimeout(timer)
        controller.abort()
      })
    })
})

export interface UndiciOptions {
  /** Connections per origin (default 256: a lane at 1000 messages per second keeps up to 250 sends in flight). */
  readonly connections?: number | undefined
}

/** The transport over its own keep-alive `undici` agent, closed with the layer. */
export const layerUndici = (options: UndiciOptions = {}): Layer.Layer<GraphTransport> =>
  Layer.scoped(
    GraphTransport,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => new Agent({ connections: options.connections ?? 256, keepAliveTimeout: 10_000 })),
        (agent) => Effect.promise(() => agent.close().catch(() => agent.destroy()))
      ),
      make
    )
  )
