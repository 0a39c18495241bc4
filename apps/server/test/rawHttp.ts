/**
 * HTTP at the level an attacker speaks it: a request whose body is sent in pieces (by
 * `content-length` or chunked) and may never finish, answered while it is still being sent;
 * and raw bytes over TCP. Used by the intake and upload-memory tests.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
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
}

/**
 * Sends a body of `size` bytes (`x` repeated, or the given fill) in chunks, respecting
 * backpressure, and resolves with the answer as soon as it is complete, whether or not the
 * body was sent in full; the request is then abandoned. Rejects on a reset before an answer.
 */
export const upload = (options: UploadOptions): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const chunkBytes = options.chunkBytes ?? 64 * 1024
    const chunk = Buffer.alloc(chunkBytes, "x")
    const limit = Math.min(options.size, options.stopAfter ?? options.size)
    let sent = 0
    let done = false
    const finish = (f: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      f()
      req.destroy()
    }
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no answer within ${options.timeoutMs ?? 30_000} ms (${sent} bytes sent)`))),
      options.timeoutMs ?? 30_000
    )
    const req = httpRequest({
      host: "127.0.0.1",
      port: options.port,
      method: options.method ?? "POST",
      path: options.path,
      agent: false,
      headers: {
        ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(options.size) }),
        ...options.headers
      }
    })
    req.on("response", (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (d) => (text += d))
      res.on("end", () => finish(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text), bytesSent: sent })))
      res.on("error", (e) => finish(() => reject(e)))
    })
    req.on("error", (e) => finish(() => reject(new Error(`${(e as NodeJS.ErrnoException).code ?? e.message} after ${sent} bytes, before an answer`))))
    const pump = () => {
      while (!done && sent < limit) {
        const n = Math.min(chunkBytes, limit - sent)
        sent += n
        if (!req.write(n === chunkBytes ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump)
      }
      if (!done && sent >= options.size) req.end()
    }
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
