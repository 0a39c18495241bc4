/**
 * HTTP at the level an attacker speaks it: a request whose body is sent in pieces (by
 * `content-length` or chunked) and may never finish, answered while it is still being sent;
 * and raw bytes over TCP. Used by the intake and upload-memory tests.
 */
import type { IncomingHttpHeaders } from "node:http"
import { connect } from "node:net"

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  readonly json: any
  /** Body bytes written before the answer's end arrived. */
  readonly bytesSent: number
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export interface UploadOptions {
  readonly port: number
  readonly method?: string
  readonly path: string
  readonly headers?: Record<string, string>
  /** Total body size. With `chunked`, no content-length is sent. */
  readonly size: number
  readonly chunked?: boolean
  /** Stop writing (without ending the body) after this many bytes; the server must answer anyway. */
  readonly stopAfter?: number
  readonly chunkBytes?: number
  /** Rejects when no complete answer came within this time. */
  readonly timeoutMs?: number
  /**
   * Keep sending the whole body after the answer, as a hostile client would, on a kept-alive
   * connection (so the server has to discard it), and resolve once it was all written. Without
   * it the request says `Connection: close` and is abandoned at the answer (the server must
   * still let the client read the answer: no reset before it).
   */
  readonly sendAll?: boolean
}

/**
 * Sends a request over a raw TCP connection, as an attacker's client would: the head, then a
 * body of `size` bytes (`x` repeated) in chunks (with chunked framing when `chunked`),
 * respecting backpressure. Resolves with the answer as soon as it is complete (and, with
 * `sendAll`, once the whole body was written as well); the connection is then dropped.
 * Rejects when the connection fails before an answer.
 */
export const upload = (options: UploadOptions): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const chunkBytes = options.chunkBytes ?? 64 * 1024
    const payload = Buffer.alloc(chunkBytes, "x")
    const limit = Math.min(options.size, options.stopAfter ?? options.size)
    const timeoutMs = options.timeoutMs ?? 30_000
    let sent = 0
    let done = false
    let written = false
    let answer: Answer | undefined
    let received = Buffer.alloc(0)
    const socket = connect(options.port, "127.0.0.1")
    const finish = (f: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      f()
      socket.destroy()
    }
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new Error(
              `${answer ? `answered ${answer.status} but the body was not all written` : "no answer"} within ${timeoutMs} ms (${sent} bytes sent)`
            )
          )
        ),
      timeoutMs
    )
    const settle = () => {
      if (answer !== undefined && (!options.sendAll || written)) finish(() => resolve({ ...answer!, bytesSent: sent }))
    }
    socket.on("data", (d) => {
      if (answer !== undefined) return
      received = Buffer.concat([received, d])
      const at = received.indexOf("\r\n\r\n")
      if (at === -1) return
      const head = received.subarray(0, at).toString("latin1")
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN)
      if (Number.isNaN(length) || received.length < at + 4 + length) return
      const text = received.subarray(at + 4, at + 4 + length).toString("utf8")
      const headers: IncomingHttpHeaders = {}
      for (const line of head.split("\r\n").slice(1)) {
        const colon = line.indexOf(":")
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
      }
      answer = { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), headers, text, json: parse(text), bytesSent: sent }
      settle()
    })
    const failed = (e: Error & { code?: string }) => {
      if (answer !== undefined) finish(() => resolve({ ...answer!, bytesSent: sent }))
      else finish(() => reject(new Error(`${e.code ?? e.message} after ${sent} bytes, before an answer`)))
    }
    socket.on("error", failed)
    socket.on("close", () => failed(new Error("closed")))
    const frame = (data: Buffer): Buffer =>
      options.chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]) : data
    const pump = () => {
      while (!done && sent < limit) {
        const n = Math.min(chunkBytes, limit - sent)
        sent += n
        if (!socket.write(frame(n === chunkBytes ? payload : payload.subarray(0, n)))) return void socket.once("drain", pump)
      }
      if (!done && sent >= options.size) {
        socket.write(options.chunked ? "0\r\n\r\n" : "", () => {
          written = true
          settle()
        })
      }
    }
    const headers: Record<string, string> = {
      host: `127.0.0.1:${options.port}`,
      connection: options.sendAll ? "keep-alive" : "close",
      ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(options.size) }),
      ...options.headers
    }
    socket.write(
      `${options.method ?? "POST"} ${options.path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}\r\n`
    )
    pump()
  })

/** Writes `data` on a fresh TCP connection and answers everything the server sent until it closed. */
export const raw = (port: number, data: string | Buffer, timeoutMs = 10_000): Promise<{ status: number; head: string; body: string; json: any }> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const parts: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error("the server did not close the connection"))
    }, timeoutMs)
    socket.on("data", (d) => parts.push(d))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(timer)
      const text = Buffer.concat(parts).toString("utf8")
      const at = text.indexOf("\r\n\r\n")
      const head = at === -1 ? text : text.slice(0, at)
      const body = at === -1 ? "" : text.slice(at + 4)
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body, json: parse(body) })
    })
    socket.write(data)
  })
