/** The keep-alive connections of a `GraphTransport` to one origin, with their deadlines. */
import * as net from "node:net"
import type * as Tls from "node:tls"
import { Connection } from "./Connection.js"
import type { ConnectionOwner, Exchange } from "./Exchange.js"
import { TransportError } from "./http1.js"

const sweep = (pool: Pool) => pool.sweep()
let tlsModule: typeof Tls | undefined

/** The connections to one origin: at most `max`, idle ones reused last-in first-out, the rest waiting in turn. */
export class Pool implements ConnectionOwner {
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
    private readonly ca: Tls.ConnectionOptions["ca"] | ReadonlyArray<string | Buffer>
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
