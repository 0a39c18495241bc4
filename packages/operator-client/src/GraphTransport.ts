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
 */
import { Context, Data, Effect, Layer } from "effect"
import * as net from "node:net"
import type * as Tls from "node:tls"

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

const describe = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return `network error${typeof code === "string" ? ` (${code})` : ""}: ${message}${cause}`
}

// ---------------------------------------------------------------------------------------------
// Answers

/** Parses the header lines of a response head (the status line first, CRLF-separated). */
const parseHeaders = (head: string): Record<string, string | Array<string>> => {
  const headers: Record<string, string | Array<string>> = {}
  let p = head.indexOf("\r\n")
  while (p >= 0) {
    const start = p + 2
    const end = head.indexOf("\r\n", start)
    const line = head.slice(start, end < 0 ? head.length : end)
    p = end
    const colon = line.indexOf(":")
    if (colon <= 0) continue
    const name = line.slice(0, colon).toLowerCase()
    const value = line.slice(colon + 1).trim()
    const previous = headers[name]
    if (previous === undefined) headers[name] = value
    else if (typeof previous === "string") headers[name] = [previous, value]
    else previous.push(value)
  }
  return headers
}

/** An answer whose headers are parsed when first read (a successful send never reads them). */
class RawAnswer implements Answer {
  private parsed: Answer["headers"] | undefined = undefined
  constructor(
    readonly status: number,
    private readonly head: string,
    readonly text: string
  ) {}

  get headers(): Answer["headers"] {
    this.parsed ??= parseHeaders(this.head)
    return this.parsed
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** A field value: visible characters, spaces, tabs and obs-text; never CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
const RESERVED = new Set(["content-length", "transfer-encoding", "host"])

/** A request's header lines, validated and serialized once per headers object (a lane sends with the same one all day). */
interface HeaderBlock {
  readonly text: string
  readonly ascii: boolean
  readonly host: string | undefined
}
const headerBlocks = new WeakMap<object, HeaderBlock>()
const headerBlockOf = (headers: Readonly<Record<string, string>>): HeaderBlock => {
  let block = headerBlocks.get(headers)
  if (block === undefined) {
    let text = ""
    let host: string | undefined
    for (const name of Object.keys(headers)) {
      const value = String(headers[name])
      if (!TOKEN.test(name)) throw new Error(`invalid header name ${JSON.stringify(name)}`)
      if (!FIELD_VALUE.test(value)) throw new Error(`invalid value of header ${name}`)
      const lower = name.toLowerCase()
      if (lower === "host") host = value
      else if (RESERVED.has(lower)) throw new Error(`header ${name} is set by the transport`)
      else text += `${name}: ${value}\r\n`
    }
    block = { text, ascii: Buffer.byteLength(text) === text.length, host }
    headerBlocks.set(headers, block)
  }
  return block
}

/**
 * One request from dispatch to its answer: a class, so that a request allocates one object
 * and no closures (this runs for every message of a campaign). `done` is called once.
 */
class Exchange {
  finished = false
  /** The connection it was given, until its answer, failure or interruption. */
  connection: Connection | undefined = undefined
  payload: string | Buffer = ""
  deadline = 0

  constructor(
    private readonly done: (result: Answer | TransportError) => void,
    readonly timeoutMs: number
  ) {}

  finish(result: Answer | TransportError): void {
    if (this.finished) return
    this.finished = true
    this.connection = undefined
    this.done(result)
  }

  /** Interrupted: the exchange's socket is destroyed (or it leaves the queue); `done` is not called. */
  interrupt(): void {
    if (this.finished) return
    this.finished = true
    const connection = this.connection
    this.connection = undefined
    if (connection !== undefined && connection.exchange === this) connection.abandon()
  }
}

// ---------------------------------------------------------------------------------------------
// Connections

enum State {
  Idle,
  Head,
  Length,
  UntilClose,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers
}

const MAX_HEAD = 16 * 1024
const MAX_LINE = 8 * 1024
const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1")
const HEADER_LINES = /^(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\r\n\0]*\r\n)*$/
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\r\n]*)?$/
const CLOSE = /(?:^|,)[ \t]*close[ \t]*(?:,|$)/i
const KEEP_ALIVE = /(?:^|,)[ \t]*keep-alive[ \t]*(?:,|$)/i
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout[ \t]*=[ \t]*(\d+)/i
/** A socket idle longer than this waits for a poll of the event loop before it is written (a FIN or RST on its way is seen first). */
const VALIDATE_AFTER_MS = 1000

/** What a response head says about its answer's framing. */
interface Head {
  head: string
  status: number
  /** -1 when none. */
  contentLength: number
  encoded: boolean
  chunked: boolean
  keepAlive: boolean
  /** How long to keep the socket after the answer, from a `keep-alive: timeout=N` hint; -1 when none. */
  hintMs: number
}

/** Parses `head` (status line and header lines, each ending with CRLF) into `into`; a reason when it is invalid. */
const readHead = (head: string, into: Head): string | undefined => {
  const eol = head.indexOf("\r\n")
  if (eol < 12 || !head.startsWith("HTTP/1.") || head.charCodeAt(8) !== 32) return "invalid status line"
  const minor = head.charCodeAt(7) - 48
  if (minor !== 0 && minor !== 1) return "unsupported HTTP version"
  const d0 = head.charCodeAt(9) - 48
  const d1 = head.charCodeAt(10) - 48
  const d2 = head.charCodeAt(11) - 48
  if (d0 < 1 || d0 > 5 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9 || (eol > 12 && head.charCodeAt(12) !== 32)) return "invalid status line"
  const status = d0 * 100 + d1 * 10 + d2
  if (status === 101) return "unexpected 101 Switching Protocols"
  if (!HEADER_LINES.test(eol + 2 === head.length ? "" : head.slice(eol + 2))) return "invalid header line"
  let contentLength = -1
  let chunked = false
  let encoded = false
  let connection: string | undefined
  let hint: string | undefined
  for (let p = eol + 2; p < head.length; ) {
    const end = head.indexOf("\r\n", p)
    const colon = head.indexOf(":", p)
    const length = colon - p
    if (length === 14 || length === 17 || length === 10) {
      const name = head.slice(p, colon).toLowerCase()
      if (name === "content-length") {
        for (const part of head.slice(colon + 1, end).split(",")) {
          const value = part.trim()
          if (!/^\d{1,15}$/.test(value)) return "invalid content-length"
          const parsed = Number(value)
          if (contentLength >= 0 && parsed !== contentLength) return "conflicting content-length"
          contentLength = parsed
        }
      } else if (name === "transfer-encoding") {
        encoded = true
        const codings = head
          .slice(colon + 1, end)
          .trim()
          .toLowerCase()
        chunked = codings === "chunked" || /,[ \t]*chunked$/.test(codings)
      } else if (name === "connection") {
        connection = connection === undefined ? head.slice(colon + 1, end) : `${connection},${head.slice(colon + 1, end)}`
      } else if (name === "keep-alive") {
        hint = head.slice(colon + 1, end)
      }
    }
    p = end + 2
  }
  const timeout = hint === undefined ? null : KEEP_ALIVE_TIMEOUT.exec(hint)
  into.head = head
  into.status = status
  into.contentLength = contentLength
  into.encoded = encoded
  into.chunked = chunked
  into.keepAlive = minor === 1 ? connection === undefined || !CLOSE.test(connection) : connection !== undefined && KEEP_ALIVE.test(connection)
  into.hintMs = timeout === null ? -1 : Math.max(0, Math.min(Number(timeout[1]) * 1000 - 1000, 600_000))
  return undefined
}

const kConnection = Symbol("Connection")
type Owned = net.Socket & { [kConnection]: Connection }

function onSocketData(this: Owned, chunk: Buffer) {
  this[kConnection].data(chunk)
}
function onSocketEnd(this: Owned) {
  this[kConnection].end()
}
function onSocketError(this: Owned, error: Error) {
  this[kConnection].lost(describe(error))
}
function onSocketClose(this: Owned) {
  this[kConnection].lost("network error: the connection closed")
}

/**
 * The check of a socket idle a while, as undici's `scheduleIdleSocketValidation` but with two
 * turns: the first `setImmediate` may run in the check phase right after the poll phase that
 * dispatched the request, before any poll has seen a FIN or RST that arrived since; the
 * second runs after one more poll. A socket found closed meanwhile has its request sent on
 * another one (nothing was written).
 */
const validated = (connection: Connection, exchange: Exchange) => {
  if (connection.exchange !== exchange || connection.dead || connection.written) return
  if (connection.turns++ === 0) setImmediate(validated, connection, exchange)
  else connection.write()
}

/** One socket of a pool and the parser of its answers (one answer at a time: no pipelining). */
class Connection {
  readonly socket: Owned
  /** Its place in `pool.connections`. */
  index = -1
  exchange: Exchange | undefined = undefined
  /** Whether the current exchange's request went to the socket (else it may go to another one). */
  written = false
  dead = false
  /** Turns of the event loop waited before writing to a socket idle a while. */
  turns = 0
  /** Answers read on it. */
  served = 0
  lastUsed = 0
  idleUntil = 0
  idle = false
  private refd = true

  // the answer being read
  private state = State.Idle
  private received = 0
  private pending: Buffer | undefined = undefined
  private status = 0
  private head = ""
  private keepAlive = true
  private keepAliveMs = 0
  private remaining = 0
  private chunks: Array<Buffer> = []
  private body: string | undefined = undefined
  private line = ""
  private trailerBytes = 0
  /** The last head read on this socket. */
  private readonly known: Head = { head: "", status: 0, contentLength: -1, encoded: false, chunked: false, keepAlive: false, hintMs: -1 }

  constructor(readonly pool: Pool) {
    this.socket = pool.connect() as Owned
    this.socket[kConnection] = this
    this.socket.on("data", onSocketData)
    this.socket.on("end", onSocketEnd)
    this.socket.on("error", onSocketError)
    this.socket.on("close", onSocketClose)
  }

  /** Takes `exchange`: writes it at once, or after one turn of the event loop when the socket was idle a while. */
  start(exchange: Exchange, now: number): void {
    this.exchange = exchange
    exchange.connection = this
    this.idle = false
    this.state = State.Head
    this.received = 0
    this.keepAliveMs = this.pool.keepAliveMs
    if (!this.refd) {
      this.socket.ref()
      this.refd = true
    }
    if (this.served > 0 && now - this.lastUsed > VALIDATE_AFTER_MS) {
      this.written = false
      this.turns = 0
      setImmediate(validated, this, exchange)
    } else {
      this.write()
    }
  }

  write(): void {
    this.written = true
    const exchange = this.exchange!
    this.socket.write(exchange.payload)
    exchange.payload = ""
  }

  /** Parked in the pool: not keeping the process alive. */
  parked(now: number): void {
    this.idle = true
    this.lastUsed = now
    this.idleUntil = now + this.keepAliveMs
    if (this.refd) {
      this.socket.unref()
      this.refd = false
    }
  }

  data(chunk: Buffer): void {
    if (this.exchange === undefined || !this.written) {
      this.lost("invalid answer: bytes from the server with no request")
      return
    }
    this.received += chunk.length
    const n = chunk.length
    let i = 0
    while (i < n) {
      switch (this.state) {
        case State.Head: {
          let buffer = chunk
          let from = i
          let shift = 0
          const pending = this.pending
          if (pending !== undefined) {
            buffer = Buffer.concat([pending, i === 0 ? chunk : chunk.subarray(i)])
            from = Math.max(0, pending.length - 3)
            shift = pending.length
          }
          const end = buffer.indexOf(CRLFCRLF, from)
          if (end < 0) {
            if (buffer.length - (pending === undefined ? i : 0) > MAX_HEAD) {
              this.invalid("response head too large")
              return
            }
            this.pending = pending === undefined ? Buffer.from(chunk.subarray(i)) : buffer
            return
          }
          const start = pending === undefined ? i : 0
          if (end - start > MAX_HEAD) {
            this.invalid("response head too large")
            return
          }
          this.pending = undefined
          const reason = this.parseHead(buffer.toString("latin1", start, end + 2))
          if (reason !== undefined) {
            this.invalid(reason)
            return
          }
          i = pending === undefined ? end + 4 : i + end + 4 - shift
          if ((this.state as State) === State.Idle) {
            this.complete(i < n)
            return
          }
          break
        }
        case State.Length: {
          const take = Math.min(this.remaining, n - i)
          if (take === this.remaining && this.chunks.length === 0) this.body = chunk.toString("utf8", i, i + take)
          else this.chunks.push(chunk.subarray(i, i + take))
          i += take
          this.remaining -= take
          if (this.remaining === 0) {
            this.complete(i < n)
            return
          }
          break
        }
        case State.UntilClose:
          this.chunks.push(i === 0 ? chunk : chunk.subarray(i))
          return
        case State.ChunkSize: {
          i = this.readLine(chunk, i)
          if (i < 0) return
          const match = CHUNK_SIZE.exec(this.line)
          if (match === null) {
            this.invalid("invalid chunk size line")
            return
          }
          const size = parseInt(match[1], 16)
          this.line = ""
          if (size === 0) {
            this.state = State.Trailers
            this.trailerBytes = 0
          } else {
            this.remaining = size
            this.state = State.ChunkData
          }
          break
        }
        case State.ChunkData: {
          const take = Math.min(this.remaining, n - i)
          this.chunks.push(chunk.subarray(i, i + take))
          i += take
          this.remaining -= take
          if (this.remaining === 0) this.state = State.ChunkEnd
          break
        }
        case State.ChunkEnd: {
          i = this.readLine(chunk, i)
          if (i < 0) return
          if (this.line !== "") {
            this.invalid("chunk data longer than its size")
            return
          }
          this.state = State.ChunkSize
          break
        }
        case State.Trailers: {
          const before = i
          i = this.readLine(chunk, i)
          this.trailerBytes += (i < 0 ? n : i) - before
          if (this.trailerBytes > MAX_HEAD) {
            this.invalid("trailers too large")
            return
          }
          if (i < 0) return
          const line = this.line
          this.line = ""
          if (line === "") {
            this.complete(i < n)
            return
          }
          if (line.indexOf(":") <= 0) {
            this.invalid("invalid trailer line")
            return
          }
          break
        }
        default: {
          this.invalid("bytes after the answer")
          return
        }
      }
    }
  }

  /** Reads one CRLF-terminated line into `line` (without the CRLF): the offset after it, or -1 when it goes on in the next chunk. */
  private readLine(chunk: Buffer, i: number): number {
    const lf = chunk.indexOf(10, i)
    const end = lf < 0 ? chunk.length : lf
    if (end > i) this.line += chunk.toString("latin1", i, end)
    if (this.line.length > MAX_LINE) {
      this.invalid("line too long")
      return -1
    }
    if (lf < 0) return -1
    if (this.line.charCodeAt(this.line.length - 1) !== 13) {
      this.invalid("line without CR")
      return -1
    }
    this.line = this.line.slice(0, -1)
    return lf + 1
  }

  /**
   * Reads a response head (ending with one CRLF) and sets the framing of its body; a reason
   * when it is invalid. A head equal to the previous one on this socket (the same server
   * answers alike all day, its Date header changing once a second) is not parsed again.
   */
  private parseHead(head: string): string | undefined {
    if (head !== this.known.head) {
      const reason = readHead(head, this.known)
      if (reason !== undefined) {
        this.known.head = ""
        return reason
      }
    }
    const known = this.known
    const status = known.status
    if (status < 200) return undefined // informational: the answer follows; state stays Head
    this.status = status
    this.head = head
    this.keepAlive = known.keepAlive
    if (known.hintMs >= 0) this.keepAliveMs = known.hintMs
    this.chunks.length = 0
    this.body = undefined
    if (status === 204 || status === 304) {
      this.state = State.Idle
    } else if (known.encoded) {
      // a length with a transfer coding is a smuggling risk: framed by the coding, the socket not reused
      if (known.contentLength >= 0) this.keepAlive = false
      if (known.chunked) {
        this.state = State.ChunkSize
        this.line = ""
      } else {
        this.state = State.UntilClose
        this.keepAlive = false
      }
    } else if (known.contentLength === 0) {
      this.state = State.Idle
    } else if (known.contentLength > 0) {
      this.state = State.Length
      this.remaining = known.contentLength
    } else {
      this.state = State.UntilClose
      this.keepAlive = false
    }
    return undefined
  }

  /** The whole answer is read: hands the socket back (or closes it) and the answer to the exchange. */
  private complete(trailing: boolean): void {
    const exchange = this.exchange!
    const chunks = this.chunks
    const text = this.body ?? (chunks.length === 0 ? "" : chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8"))
    const answer = new RawAnswer(this.status, this.head, text)
    this.body = undefined
    this.chunks = chunks.length === 0 ? chunks : []
    this.head = ""
    this.state = State.Idle
    this.exchange = undefined
    exchange.connection = undefined
    this.served++
    if (trailing || !this.keepAlive || this.keepAliveMs <= 0) this.close()
    else this.pool.release(this)
    exchange.finish(answer)
  }

  private invalid(reason: string): void {
    this.lost(`invalid answer: ${reason}`)
  }

  end(): void {
    if (this.state === State.UntilClose && this.exchange !== undefined) {
      this.complete(false)
      return
    }
    this.lost("network error: the server closed the connection")
  }

  /**
   * The socket is gone or unusable: out of the pool, destroyed, and its exchange failed with
   * `reason` (or, when its request was not written yet, sent on another connection).
   */
  lost(reason: string): void {
    if (this.dead) return
    this.dead = true
    this.state = State.Idle
    this.pending = undefined
    this.socket.destroy()
    const exchange = this.exchange
    this.exchange = undefined
    this.pool.remove(this)
    if (exchange !== undefined) {
      exchange.connection = undefined
      if (!this.written) this.pool.dispatch(exchange)
      else if (this.received === 0 && this.served > 0)
        exchange.finish(new TransportError({ reason: `${reason} before any answer, on a reused connection (the request may have been received)` }))
      else exchange.finish(new TransportError({ reason }))
    }
    this.pool.drain()
  }

  /** Deadline passed: the socket is destroyed (never reused) and the exchange fails. */
  timedOut(): void {
    const exchange = this.exchange!
    this.exchange = undefined
    exchange.connection = undefined
    this.lost("timed out")
    exchange.finish(new TransportError({ reason: `no answer within ${exchange.timeoutMs} ms` }))
  }

  /** Its exchange was interrupted: the socket is destroyed. */
  abandon(): void {
    this.exchange = undefined
    this.lost("interrupted")
  }

  close(): void {
    this.lost("closed")
  }
}

// ---------------------------------------------------------------------------------------------
// Pools

const sweep = (pool: Pool) => pool.sweep()
let tlsModule: typeof Tls | undefined

/** The connections to one origin: at most `max`, idle ones reused last-in first-out, the rest waiting in turn. */
class Pool {
  /** All sockets, connecting, busy or idle. */
  readonly connections: Array<Connection> = []
  readonly idle: Array<Connection> = []
  private queue: Array<Exchange> = []
  private queueHead = 0
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  private timerAt = Infinity
  closing = false
  private drained: (() => void) | undefined = undefined

  constructor(
    private readonly secure: boolean,
    private readonly hostname: string,
    private readonly port: number,
    /** The `host` header. */
    readonly host: string,
    private readonly max: number,
    readonly keepAliveMs: number,
    private readonly ca: Options["ca"]
  ) {}

  connect(): net.Socket {
    if (!this.secure) return net.connect({ host: this.hostname, port: this.port, noDelay: true })
    // loaded with the first https origin: importing node:tls costs ~20 ms at startup (it reads the root certificates)
    tlsModule ??= process.getBuiltinModule("node:tls")
    const socket = tlsModule.connect({
      host: this.hostname,
      port: this.port,
      ...(net.isIP(this.hostname) === 0 ? { servername: this.hostname } : {}),
      ALPNProtocols: ["http/1.1"],
      ...(this.ca !== undefined ? { ca: this.ca as Tls.ConnectionOptions["ca"] } : {})
    })
    socket.setNoDelay(true)
    return socket
  }

  dispatch(exchange: Exchange): void {
    if (exchange.finished) return
    if (this.closing) {
      exchange.finish(new TransportError({ reason: "the transport is closed" }))
      return
    }
    const now = Date.now()
    if (exchange.deadline === 0) exchange.deadline = now + exchange.timeoutMs
    if (exchange.deadline < this.timerAt) this.arm(exchange.deadline, now)
    const connection = this.idle.pop()
    if (connection !== undefined) {
      connection.start(exchange, now)
      return
    }
    if (this.connections.length < this.max) {
      this.open().start(exchange, now)
      return
    }
    this.queue.push(exchange)
  }

  private open(): Connection {
    const connection = new Connection(this)
    connection.index = this.connections.length
    this.connections.push(connection)
    return connection
  }

  private dequeue(): Exchange | undefined {
    const queue = this.queue
    while (this.queueHead < queue.length) {
      const exchange = queue[this.queueHead]
      queue[this.queueHead++] = undefined as never
      if (this.queueHead === queue.length) {
        queue.length = 0
        this.queueHead = 0
      }
      if (!exchange.finished) return exchange
    }
    return undefined
  }

  /** A connection finished an answer and stays open: the next waiting exchange, or the idle stack. */
  release(connection: Connection): void {
    const now = Date.now()
    const next = this.queueHead < this.queue.length ? this.dequeue() : undefined
    if (next !== undefined) {
      connection.start(next, now)
      return
    }
    if (this.closing) {
      connection.close()
      return
    }
    connection.parked(now)
    this.idle.push(connection)
    if (connection.idleUntil < this.timerAt) this.arm(connection.idleUntil, now)
  }

  /** Takes a dead connection out of the pool. */
  remove(connection: Connection): void {
    const index = connection.index
    if (index >= 0) {
      const last = this.connections.pop()!
      if (last !== connection) {
        this.connections[index] = last
        last.index = index
      }
      connection.index = -1
    }
    if (connection.idle) {
      connection.idle = false
      const at = this.idle.lastIndexOf(connection)
      if (at >= 0) this.idle.splice(at, 1)
    }
  }

  /** After a connection is gone: a new one for the next waiting exchange, if any; or the end of closing. */
  drain(): void {
    while (this.queueHead < this.queue.length && this.connections.length < this.max) {
      const next = this.dequeue()
      if (next === undefined) break
      this.open().start(next, Date.now())
    }
    if (this.closing && this.connections.length === 0) this.finishClosing()
  }

  private arm(at: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(sweep, Math.max(1, at - now), this)
    this.timer.unref()
  }

  /** The deadlines: exchanges past theirs fail, idle sockets past theirs close; then the timer for the next one. */
  sweep(): void {
    this.timer = undefined
    this.timerAt = Infinity
    const now = Date.now()
    let next = Infinity
    for (const connection of this.connections.slice()) {
      if (connection.dead) continue
      const exchange = connection.exchange
      if (exchange !== undefined) {
        if (exchange.deadline <= now) connection.timedOut()
        else if (exchange.deadline < next) next = exchange.deadline
      } else if (connection.idle) {
        if (connection.idleUntil <= now) connection.close()
        else if (connection.idleUntil < next) next = connection.idleUntil
      }
    }
    const queue = this.queue
    for (let i = this.queueHead; i < queue.length; i++) {
      const exchange = queue[i]
      if (exchange === undefined || exchange.finished) continue
      if (exchange.deadline <= now) exchange.finish(new TransportError({ reason: `no answer within ${exchange.timeoutMs} ms` }))
      else if (exchange.deadline < next) next = exchange.deadline
    }
    if (next < this.timerAt) this.arm(next, Date.now())
  }

  /** Closes idle sockets now, the others after their answer; `done` when none is left. */
  close(done: () => void): void {
    this.closing = true
    this.drained = done
    for (const connection of this.idle.slice()) connection.close()
    if (this.connections.length === 0) this.finishClosing()
  }

  private finishClosing(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.timerAt = Infinity
    const drained = this.drained
    this.drained = undefined
    drained?.()
  }
}

// ---------------------------------------------------------------------------------------------
// The transport

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
