/**
 * The one thing the client needs from the network: send one HTTP request, read the whole
 * answer as text. A port of its own rather than `@effect/platform`'s `HttpClient` because
 * the client sends up to a thousand messages a second per number: the generic client costs
 * about a millisecond of CPU per request (a span with every header as an attribute, an
 * `AbortController` and a `FinalizationRegistry` entry per response, immutable request
 * copies, a timeout fiber), ten times the request itself.
 *
 * `layer` is the implementation the server provides: a lean HTTP/1.1 client over `node:net`
 * and `node:tls`. A keep-alive pool per origin (at most `connections` sockets, the most
 * recently used idle one first, the rest of the requests waiting in turn), one `write` per
 * request, a small response parser (content-length, chunked, close-delimited, 1xx skipped; a
 * head like the socket's previous one is not parsed again), one deadline timer per pool
 * instead of one per request, and no promise or closure per request. Its CPU per request is
 * that of a bare keep-alive `node:net` exchange (`apps/server/test/fixtures/sendloop.ts`,
 * `MODE=transport` against `MODE=net`); the `undici` pool it replaces did much the port never
 * needs (pipelining, streams, interceptors, a wasm parser) and cost 10-20% more per campaign
 * send. A request whose answer did not come whole is never retried: the operator may have
 * taken a POST, and the caller treats `TransportError` as an unknown outcome.
 * `OperatorClient.layer` requires it.
 *
 * The parts: `internal/http1.ts` (the wire: request and answer types, header blocks, the
 * response head parser), `internal/Exchange.ts` (one request until its answer),
 * `internal/Connection.ts` (one socket and its parser), `internal/Pool.ts` (the sockets to
 * one origin and their deadlines); this file is the port and its assembly.
 */
import { Context, Effect, Layer } from "effect"
import { Exchange } from "./internal/Exchange.js"
import { type Answer, headerBlockOf, type Request, TransportError } from "./internal/http1.js"
import { Pool } from "./internal/Pool.js"

export { type Answer, type Request, TransportError } from "./internal/http1.js"

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

export interface Options {
  /** Connections per origin (default 256: eight lanes with 32 sends in flight each, none waiting for a connection); more requests wait in turn. */
  readonly connections?: number | undefined
  /**
   * How long an idle connection is kept when the server gives no `keep-alive: timeout=N`
   * hint (default 4000 ms: Node servers close after 5 s); with a hint, one second less than it.
   */
  readonly keepAliveTimeoutMs?: number | undefined
  /** Certificates to trust for `https:` instead of the system's (PEM), as `tls.connect`'s `ca`. */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer> | undefined
}

interface Target {
  readonly pool: Pool
  readonly path: string
}

/** The transport and its pools (`close` ends them). */
export const make = (options: Options = {}): GraphTransport["Type"] & { readonly close: (done: () => void) => void } => {
  const max = Math.max(1, options.connections ?? 256)
  const keepAliveMs = options.keepAliveTimeoutMs ?? 4000
  const pools = new Map<string, Pool>()
  /** Pool and path of a URL, parsed once per URL (a lane sends to one URL all day). */
  const targets = new Map<string, Target>()
  let closed = false

  const targetOf = (href: string): Target => {
    let target = targets.get(href)
    if (target === undefined) {
      const url = new URL(href)
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`unsupported protocol ${url.protocol}`)
      let pool = pools.get(url.origin)
      if (pool === undefined) {
        const secure = url.protocol === "https:"
        const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
        pool = new Pool(secure, hostname, Number(url.port || (secure ? 443 : 80)), url.host, max, keepAliveMs, options.ca)
        pools.set(url.origin, pool)
      }
      target = { pool, path: url.pathname + url.search }
      if (targets.size >= 1000) targets.clear()
      targets.set(href, target)
    }
    return target
  }

  const start = (request: Request, exchange: Exchange): void => {
    let pool: Pool
    try {
      if (closed) throw new Error("the transport is closed")
      const target = targetOf(request.url)
      pool = target.pool
      const block = headerBlockOf(request.headers)
      const body = request.body
      let head = `${request.method} ${target.path} HTTP/1.1\r\nhost: ${block.host ?? pool.host}\r\n${block.text}`
      if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n\r\n`
      else head += request.method === "POST" ? "content-length: 0\r\n\r\n" : "\r\n"
      exchange.payload = block.ascii
        ? body === undefined
          ? head
          : head + body
        : Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body ?? "", "utf8")])
    } catch (error) {
      exchange.finish(new TransportError({ reason: `invalid request: ${error instanceof Error ? error.message : String(error)}` }))
      return
    }
    pool.dispatch(exchange)
  }

  return {
    request: (request, timeoutMs) =>
      Effect.async<Answer, TransportError>((resume) => {
        const exchange = new Exchange((result) => resume(result instanceof TransportError ? Effect.fail(result) : Effect.succeed(result)), timeoutMs)
        start(request, exchange)
        return Effect.sync(() => exchange.interrupt())
      }),
    send: (request, timeoutMs, done) => start(request, new Exchange(done, timeoutMs)),
    close: (done) => {
      closed = true
      let left = pools.size + 1
      const one = () => {
        if (--left === 0) done()
      }
      for (const pool of pools.values()) pool.close(one)
      one()
    }
  }
}

/** The transport over its own keep-alive pools, closed with the layer (idle sockets at once, busy ones after their answer). */
export const layer = (options: Options = {}): Layer.Layer<GraphTransport> =>
  Layer.scoped(
    GraphTransport,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => make(options)),
        (transport) => Effect.async<void>((resume) => transport.close(() => resume(Effect.void)))
      ),
      ({ request, send }) => ({ request, send })
    )
  )
