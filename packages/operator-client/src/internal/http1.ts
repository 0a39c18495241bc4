/**
 * HTTP/1.1 on the wire, for `GraphTransport`: the request and answer types, the error of an
 * exchange without a whole answer, header blocks serialized once per headers object, and the
 * parser of a response head (status line, framing, keep-alive). No sockets here.
 */

import { Data } from "effect"

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

export const describe = (error: unknown): string => {
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
export class RawAnswer implements Answer {
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
export const headerBlockOf = (headers: Readonly<Record<string, string>>): HeaderBlock => {
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

export const MAX_HEAD = 16 * 1024
export const MAX_LINE = 8 * 1024
export const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1")
const HEADER_LINES = /^(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\r\n\0]*\r\n)*$/
export const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[^\r\n]*)?$/
const CLOSE = /(?:^|,)[ \t]*close[ \t]*(?:,|$)/i
const KEEP_ALIVE = /(?:^|,)[ \t]*keep-alive[ \t]*(?:,|$)/i
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout[ \t]*=[ \t]*(\d+)/i
/** A socket idle longer than this waits for a poll of the event loop before it is written (a FIN or RST on its way is seen first). */
export const VALIDATE_AFTER_MS = 1000

/** What a response head says about its answer's framing. */
export interface Head {
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
export const readHead = (head: string, into: Head): string | undefined => {
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

/** Where the parser of a connection is in the answer it reads. */
export enum State {
  Idle,
  Head,
  Length,
  UntilClose,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers
}
