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
