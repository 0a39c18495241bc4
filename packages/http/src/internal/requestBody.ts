/**
 * Reading a request body at most once and never past a limit.
 *
 * `readAtMost` reads from the Node `IncomingMessage` (or the web `Request`) underneath the
 * platform's request. Past the limit it stops keeping bytes and fails with `BodyTooLarge`;
 * on Node the rest of the body is then discarded as it arrives (the socket is not
 * destroyed, so the client gets our 413 instead of a reset, and the connection can carry the
 * next request). The platform's own readers destroy the stream at their limit.
 *
 * Past `SPILL_BYTES` (on routes with a larger limit) the body is kept in a temporary file
 * until it ends, so a body that turns out too large never sat in memory.
 *
 * A body that stops arriving (no byte for `BODY_IDLE_MS`) fails with `BodyStalled`; the rest
 * is discarded the same way, and the connection is closed soon after the answer
 * (`lingerOnClose` does not wait for a client that has stopped sending).
 *
 * `withBody` gives the rest of the app a request whose `text`, `json`, `arrayBuffer`,
 * `urlParamsBody` and `stream` answer from one cached read of that body.
 */
import { HttpServerError, type HttpServerRequest, UrlParams } from "@effect/platform"
import { Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { createWriteStream, type WriteStream } from "node:fs"
import { readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"

/** The body went past `limitBytes`; nothing beyond the limit was kept. */
export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`The request body exceeds ${limitBytes} bytes`)
  }
}

/** How long a body may go without a byte before it is answered 408 `request_timeout`. */
export const BODY_IDLE_MS = 10_000

/** The body stopped arriving: no byte for `idleMs`. */
export class BodyStalled extends Error {
  constructor(readonly idleMs: number) {
    super(`The request body stopped arriving: no byte for ${idleMs / 1000} s`)
  }
}

/** Requests whose body stalled: closed at once after the answer, without a linger. */
const stalled = new WeakSet<object>()

/** Drops the rest of `source` as it arrives (no listener keeps it), without destroying the socket. */
export const discard = (source: Readable): void => {
  source.on("error", () => undefined)
  source.resume()
}

/** What a body read listens to. */
export interface BodyListeners {
  readonly data: (chunk: Buffer) => void
  readonly end: () => void
  readonly error: (error: unknown) => void
  readonly close: () => void
}

/** Listens to `source`'s data, end, error and close; answers what stops listening. */
export const listen = (source: Readable, on: BodyListeners): (() => void) => {
  source.on("data", on.data)
  source.on("end", on.end)
  source.on("error", on.error)
  source.on("close", on.close)
  return () => {
    source.off("data", on.data)
    source.off("end", on.end)
    source.off("error", on.error)
    source.off("close", on.close)
  }
}

/**
 * An idle timer for a body: `arm` (re)starts it at each byte, `disarm` stops it (while we
 * pause the source ourselves). On expiry the source is marked stalled and `onIdle` runs.
 */
export const idleTimer = (source: Readable, idleMs: number, onIdle: () => void) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const disarm = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const arm = () => {
    disarm()
    timer = setTimeout(() => {
      timer = undefined
      stalled.add(source)
      onIdle()
    }, idleMs)
  }
  return { arm, disarm }
}

/** Whether the request announces a body (a non-zero length, or chunks). */
export const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = (request as unknown as { readonly source?: unknown }).source
  if (typeof Request !== "undefined" && source instanceof Request) return source.body !== null
  const length = request.headers["content-length"]
  if (length !== undefined) return length.trim() !== "0"
  return request.headers["transfer-encoding"] !== undefined
}

/** The declared length, when there is a valid one. */
export const declaredLength = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const length = request.headers["content-length"]
  if (length === undefined || !/^\s*\d+\s*$/.test(length)) return undefined
  return Number(length)
}

/**
 * Bodies past this size, on a route whose limit is larger, go to a temporary file until they
 * end (then are read back): a body that will turn out too large never sits in memory.
 */
export const SPILL_BYTES = 1024 * 1024

const fromNode = (source: Readable, limitBytes: number, idleMs: number): Effect.Effect<Uint8Array, unknown> =>
  Effect.async<Uint8Array, unknown>((resume) => {
    if (source.readableEnded) return resume(Effect.succeed(new Uint8Array(0)))
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    let spill: { readonly path: string; readonly file: WriteStream } | undefined
    let stop = () => {}
    const cleanup = () => {
      idle.disarm()
      stop()
    }
    const fail = (error: unknown, rest: "discard" | "leave") => {
      if (settled) return
      settled = true
      cleanup()
      chunks.length = 0
      if (spill !== undefined) {
        spill.file.destroy()
        void rm(spill.path, { force: true }).catch(() => undefined)
      }
      // keep flowing with no listener: the rest is dropped as it arrives
      if (rest === "discard") discard(source)
      resume(Effect.fail(error))
    }
    const idle = idleTimer(source, idleMs, () => fail(new BodyStalled(idleMs), "discard"))
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) return fail(new BodyTooLarge(limitBytes), "discard")
      idle.arm()
      if (spill === undefined && size > SPILL_BYTES) {
        const path = join(tmpdir(), `switchboard-body-${randomUUID()}`)
        spill = { path, file: createWriteStream(path, { flags: "wx", mode: 0o600 }) }
        spill.file.on("error", (error) => fail(error, "discard"))
        for (const kept of chunks.splice(0)) spill.file.write(kept)
      }
      if (spill === undefined) return void chunks.push(chunk)
      if (spill.file.write(chunk)) return
      // the disk is behind: pause the body (not a stall of the client's)
      idle.disarm()
      source.pause()
      spill.file.once("drain", () => {
        if (settled) return
        idle.arm()
        source.resume()
      })
    }
    const onEnd = () => {
      cleanup()
      if (spill === undefined) {
        settled = true
        return resume(Effect.succeed(Buffer.concat(chunks, size)))
      }
      const { path, file } = spill
      file.end(() => {
        if (settled) return
        settled = true
        readFile(path)
          .then(
            (body) => resume(Effect.succeed(body)),
            (error) => resume(Effect.fail(error))
          )
          .finally(() => rm(path, { force: true }).catch(() => undefined))
      })
    }
    const onError = (error: unknown) => fail(error, "leave")
    const onClose = () => fail(new Error("the client closed the connection before the body ended"), "leave")
    idle.arm()
    stop = listen(source, { data: onData, end: onEnd, error: onError, close: onClose })
    return Effect.sync(() => fail(new Error("interrupted"), "leave"))
  })

/** `reader.read()`, or `BodyStalled` (the reader cancelled) when nothing came within `idleMs`. */
export const readWithin = async <A>(
  reader: ReadableStreamDefaultReader<A>,
  idleMs: number
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<A>["read"]>>> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyStalled(idleMs)), idleMs)
  })
  try {
    return await Promise.race([reader.read(), idle])
  } catch (e) {
    if (e instanceof BodyStalled) await reader.cancel().catch(() => undefined)
    throw e
  } finally {
    clearTimeout(timer)
  }
}

const fromWeb = (source: Request, limitBytes: number, idleMs: number): Effect.Effect<Uint8Array, unknown> =>
  Effect.tryPromise({
    try: async () => {
      if (source.body === null) return new Uint8Array(0)
      const reader = source.body.getReader()
      const chunks: Array<Uint8Array> = []
      let size = 0
      for (;;) {
        const { done, value } = await readWithin(reader, idleMs)
        if (done) break
        size += value.byteLength
        if (size > limitBytes) {
          await reader.cancel().catch(() => undefined)
          throw new BodyTooLarge(limitBytes)
        }
        chunks.push(value)
      }
      return Buffer.concat(chunks, size)
    },
    catch: (e) => e
  })

/**
 * The body, read once, failing with a `RequestError` whose cause is `BodyTooLarge` past the
 * limit, or `BodyStalled` when no byte came for `idleMs`. Reads the platform's underlying
 * Node or web request; other requests (tests, unknown platforms) fall back to the platform
 * reader.
 */
export const readAtMost = (
  request: HttpServerRequest.HttpServerRequest,
  limitBytes: number,
  idleMs: number = BODY_IDLE_MS
): Effect.Effect<Uint8Array, HttpServerError.RequestError> => {
  const source = (request as unknown as { readonly source?: unknown }).source
  const read: Effect.Effect<Uint8Array, unknown> =
    source instanceof Readable
      ? fromNode(source, limitBytes, idleMs)
      : typeof Request !== "undefined" && source instanceof Request
        ? fromWeb(source, limitBytes, idleMs)
        : Effect.map(request.arrayBuffer, (b) => {
            if (b.byteLength > limitBytes) throw new BodyTooLarge(limitBytes)
            return new Uint8Array(b)
          })
  return Effect.mapError(read, (cause) =>
    cause instanceof HttpServerError.RequestError ? cause : new HttpServerError.RequestError({ request, reason: "Decode", cause })
  )
}

/** How long a connection keeps discarding a refused body before it is closed anyway. */
const LINGER_MS = 30_000

/**
 * A lingering close for a request answered before its body ended (401, 413, 415…): when
 * Node closes the connection after the answer (the client sent `Connection: close`, or
 * HTTP/1.0), the socket is half-closed and what the client still sends is discarded until
 * it ends its request (at most `LINGER_MS`), then closed. Destroying the socket at once
 * would make the client's kernel answer its next bytes with a reset, which often arrives
 * before the client has read our answer. (On a kept-alive connection Node already
 * discards the rest of the body.) No-op off Node.
 */
export const lingerOnClose = (request: HttpServerRequest.HttpServerRequest): void => {
  const source = (request as unknown as { readonly source?: unknown }).source
  if (!(source instanceof Readable)) return
  const incoming = source as Readable & { readonly complete?: boolean; readonly socket?: import("node:net").Socket }
  const socket = incoming.socket
  if (socket === undefined || incoming.complete) return
  const destroySoon = (socket as unknown as { destroySoon?: () => void }).destroySoon
  if (typeof destroySoon !== "function") return
  ;(socket as unknown as { destroySoon: () => void }).destroySoon = function (this: typeof socket) {
    // a client that stopped sending gets its answer, then the connection is closed
    if (incoming.complete || incoming.destroyed || stalled.has(incoming)) return destroySoon.call(this)
    this.end()
    incoming.on("error", () => undefined)
    incoming.resume()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    timer.unref()
    const close = () => {
      clearTimeout(timer)
      this.destroy()
    }
    incoming.once("end", close)
    this.once("close", () => clearTimeout(timer))
  }
}

const decoder = new TextDecoder()

/**
 * `request` with its body answered from `body` (evaluated at most once). Everything else,
 * including the platform's hidden response handle, is the original request's.
 */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  body: Effect.Effect<Uint8Array, HttpServerError.RequestError>
): HttpServerRequest.HttpServerRequest => {
  const once = Effect.runSync(Effect.cached(body))
  const decodeError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const text = Effect.map(once, (b) => decoder.decode(b))
  const overrides: Record<PropertyKey, unknown> = {
    text,
    json: Effect.flatMap(text, (t) => Effect.try({ try: () => (t === "" ? null : (JSON.parse(t) as unknown)), catch: decodeError })),
    urlParamsBody: Effect.flatMap(text, (t) => Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(t)), catch: decodeError })),
    arrayBuffer: Effect.map(once, (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer),
    stream: Stream.fromEffect(once),
    modify: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => withBody(request.modify(options), once)
  }
  return new Proxy(request, {
    get: (target, key, receiver) => (Object.hasOwn(overrides, key) ? overrides[key] : Reflect.get(target, key, receiver))
  })
}
