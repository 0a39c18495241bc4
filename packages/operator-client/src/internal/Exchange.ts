import type * as net from "node:net"
import type { Connection } from "./Connection.js"
import type { Answer, TransportError } from "./http1.js"

/**
 * One request from dispatch to its answer: a class, so that a request allocates one object
 * and no closures (this runs for every message of a campaign). `done` is called once.
 */
export class Exchange {
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

/** What a connection needs of its pool. */
export interface ConnectionOwner {
  /** The pool's sockets; a connection keeps its place in it (`Connection.index`). */
  readonly connections: Array<Connection>
  readonly keepAliveMs: number
  /** A new socket to the pool's origin. */
  connect(): net.Socket
  /** Its answer was read and the socket may be reused. */
  release(connection: Connection): void
  /** It is dead: out of the pool. */
  remove(connection: Connection): void
  /** Sends `exchange` on a connection of the pool (its request was never written). */
  dispatch(exchange: Exchange): void
  /** A place was freed: start the next waiting exchange. */
  drain(): void
}
