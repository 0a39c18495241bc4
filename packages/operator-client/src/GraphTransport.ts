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
import { Agent, type Dispatcher, util } from "undici"

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
    /**
     * The same exchange with no fiber: `done` is called once, with the answer or the
     * `TransportError` (the hot path of a campaign lane, a thousand sends a second).
     */
    readonly send: (request: Request, timeoutMs: number, done: (result: Answer | TransportError) => void) => void
  }
>() {}

const describe = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return `network error${typeof code === "string" ? ` (${code})` : ""}: ${message}${cause}`
}

/** Origin and path of a URL, parsed once per URL (a lane sends to one URL all day). */
const targets = new Map<string, { readonly origin: string; readonly path: string }>()
const targetOf = (href: string) => {
  let target = targets.get(href)
  if (target === undefined) {
    const url = new URL(href)
    target = { origin: url.origin, path: url.pathname + url.search }
    if (targets.size >= 1000) targets.clear()
    targets.set(href, target)
  }
  return target
}

/** An answer whose headers are parsed when first read (a successful send never reads them). */
class RawAnswer implements Answer {
  private parsed: Answer["headers"] | undefined = undefined
  constructor(
    readonly status: number,
    private readonly raw: ReadonlyArray<Buffer>,
    readonly text: string
  ) {}

  get headers(): Answer["headers"] {
    this.parsed ??= util.parseHeaders(this.raw as Array<Buffer>) as Answer["headers"]
    return this.parsed
  }
}

const NO_HEADERS: ReadonlyArray<Buffer> = []

/**
 * One request in flight: collects the answer in undici's handler callbacks and hands it to
 * `done` once. A class, so that a request allocates one object and no closures (this runs
 * for every message of a campaign). It implements undici's original handler callbacks
 * (`onConnect`, `onHeaders`, …), which its HTTP/1.1 client calls itself: a handler of the
 * newer ones (`onRequestStart`, …) is wrapped in an adapter that allocates a controller and
 * parses every header and trailer into an object, for every request.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private abortRequest: ((error: Error) => void) | undefined = undefined
  private abortReason: string | undefined = undefined
  private finished = false
  private status = 0
  private rawHeaders: ReadonlyArray<Buffer> = NO_HEADERS
  private chunks: Array<Buffer> = []
  private readonly timer: ReturnType<typeof setTimeout>

  constructor(
    private readonly done: (result: Answer | TransportError) => void,
    timeoutMs: number
  ) {
    this.timer = setTimeout(timedOut, timeoutMs, this, timeoutMs)
  }

  finish(result: Answer | TransportError): void {
    if (this.finished) return
    this.finished = true
    clearTimeout(this.timer)
    this.done(result)
  }

  abort(reason: string): void {
    this.abortReason ??= reason
    this.abortRequest?.(new Error(reason))
  }

  /** Interrupted: aborts the request; `done` is not called any more. */
  interrupt(): void {
    this.finished = true
    clearTimeout(this.timer)
    this.abort("interrupted")
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortRequest = abort
    if (this.abortReason !== undefined) abort(new Error(this.abortReason))
  }

  onHeaders(statusCode: number, headers: Array<Buffer>): boolean {
    this.status = statusCode
    this.rawHeaders = headers
    this.chunks.length = 0
    return true
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk)
    return true
  }

  onComplete(): void {
    const chunks = this.chunks
    const text = chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8")
    this.finish(new RawAnswer(this.status, this.rawHeaders, text))
  }

  onError(error: Error): void {
    this.finish(new TransportError({ reason: this.abortReason ?? describe(error) }))
  }
}

const timedOut = (exchange: Exchange, timeoutMs: number) => {
  const reason = `no answer within ${timeoutMs} ms`
  exchange.abort(reason)
  exchange.finish(new TransportError({ reason }))
}

/**
 * The transport over an `undici` dispatcher (the caller owns its lifetime), on its
 * low-level `dispatch`: the answer is collected in the handler's callbacks, with no
 * stream, promise or `AbortController` per request.
 */
export const make = (dispatcher: Dispatcher): GraphTransport["Type"] => {
  const start = (request: Request, exchange: Exchange): void => {
    try {
      const { origin, path } = targetOf(request.url)
      dispatcher.dispatch({ origin, path, method: request.method, headers: request.headers, body: request.body ?? null }, exchange)
    } catch (error) {
      exchange.finish(new TransportError({ reason: describe(error) }))
    }
  }
  return {
    request: (request, timeoutMs) =>
      Effect.async<Answer, TransportError>((resume) => {
        const exchange = new Exchange((result) => resume(result instanceof TransportError ? Effect.fail(result) : Effect.succeed(result)), timeoutMs)
        start(request, exchange)
        return Effect.sync(() => exchange.interrupt())
      }),
    send: (request, timeoutMs, done) => start(request, new Exchange(done, timeoutMs))
  }
}

export interface UndiciOptions {
  /** Connections per origin (default 256: eight lanes with 32 sends in flight each, none waiting for a connection). */
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
