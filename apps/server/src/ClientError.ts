/**
 * Node's own HTTP parser errors, answered in the API's error envelope instead of Node's empty
 * bodies, where Node still allows an answer (nothing was written on the connection yet):
 * - 400 `bad_request`: a malformed request line, header or chunk;
 * - 431 `request_header_fields_too_large`: headers over Node's `maxHeaderSize`;
 * - 408 `request_timeout`: headers or body not received within `headersTimeout` /
 *   `requestTimeout`.
 * The connection is then closed, as Node does.
 */
import { createServer as createNodeServer, type Server, type ServerOptions } from "node:http"
import type { Duplex } from "node:stream"

const answers: Record<string, readonly [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "request_header_fields_too_large", "The request's headers are too large"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "Payload Too Large", "payload_too_large", "The request's chunk extensions are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "request_timeout", "The request was not received in time"]
}
const badRequest = [400, "Bad Request", "bad_request", "The request is not valid HTTP/1.1"] as const

/** The raw HTTP answer for a parser error `code`. */
export const answerFor = (code: string | undefined): string => {
  const [status, reason, errorCode, message] = (code !== undefined ? answers[code] : undefined) ?? badRequest
  const body = JSON.stringify({ error: { code: errorCode, message } })
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/** The `clientError` listener: answers in the envelope when nothing was written yet, then closes. */
export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const net = socket as Duplex & { readonly bytesWritten?: number }
  if (error.code === "ECONNRESET" || !socket.writable || (net.bytesWritten ?? 0) > 0) {
    socket.destroy()
    return
  }
  socket.end(answerFor(error.code))
}

/**
 * How long an idle keep-alive connection stays open: 65 s (Node's default is 5 s). A client
 * that pauses a few seconds between requests (a busy event loop, a script that thinks)
 * would otherwise reuse a connection the server has just closed and see "other side
 * closed" instead of an answer; clients and load balancers close idle connections first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

/** `http.createServer` with `onClientError` attached and the keep-alive timeout above. */
export const createServer = (options: ServerOptions = {}): Server => {
  const server = createNodeServer(options).on("clientError", onClientError)
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
  return server
}
