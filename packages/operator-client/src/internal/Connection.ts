/**
 * One socket of a `GraphTransport` pool and the parser of its answers (one answer at a time,
 * no pipelining). The pool it belongs to is seen through `ConnectionOwner` (`Exchange.ts`; implemented by `Pool`).
 */
import type * as net from "node:net"
import type { ConnectionOwner, Exchange } from "./Exchange.js"
import {
  State,
  CHUNK_SIZE,
  CRLFCRLF,
  describe,
  type Head,
  MAX_HEAD,
  MAX_LINE,
  RawAnswer,
  readHead,
  TransportError,
  VALIDATE_AFTER_MS
} from "./http1.js"

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
export class Connection {
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

  constructor(readonly pool: ConnectionOwner) {
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
