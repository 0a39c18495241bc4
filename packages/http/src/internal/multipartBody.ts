/**
 * A `multipart/form-data` body spooled to a temporary file before the route reads it.
 *
 * `spool` reads the body as it arrives into a file of its own (mode 0600), never holding more
 * than a chunk in memory, and in the same pass:
 * - stops at the route's limit (`BodyTooLarge`, the rest discarded as it arrives);
 * - stops when no byte came for `BODY_IDLE_MS` (`BodyStalled`, answered 408);
 * - hashes the request (method, URL, body with its boundary left out: a client draws a new
 *   one for each request) for `Idempotency-Key`;
 * - looks for the closing delimiter (`--boundary--`): a form that ends without it is
 *   malformed, and the platform's parser would wait for it for ever.
 *
 * `fromFile` then gives the app a request whose multipart readers parse the file, with the
 * platform's own parser and limits. The caller deletes the file once the request is served.
 */
import { HttpServerError, type HttpServerRequest, Multipart } from "@effect/platform"
import { Effect, Stream } from "effect"
import { createHash, type Hash, randomUUID } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { BODY_IDLE_MS, BodyStalled, BodyTooLarge, discard, idleTimer, listen } from "./requestBody.js"

/** The boundary of a `multipart/form-data` content type, if it names one. */
export const boundaryOf = (contentType: string | undefined): string | undefined => {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "")
  return m === null ? undefined : (m[1] ?? m[2])
}

export interface Spooled {
  readonly path: string
  /** sha256 of `METHOD URL\n` and the body, its boundary left out. */
  readonly requestHash: string
  /** Whether the body contains its closing delimiter. */
  readonly closed: boolean
}

/** Finds `needle` across chunks (keeping the last `needle.length - 1` bytes of the previous one). */
export const finder = (needle: Buffer, prefix: Buffer) => {
  let tail = prefix
  let found = false
  return {
    push: (chunk: Buffer) => {
      if (found) return
      const joint = Buffer.concat([tail, chunk.subarray(0, needle.length - 1)])
      found = joint.includes(needle) || chunk.includes(needle)
      const keep = needle.length - 1
      tail = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([tail, chunk]).subarray(-keep)
    },
    found: () => found
  }
}

/**
 * Feeds `hash` with a body in which every `needle` (the boundary) reads as one fixed mark:
 * clients draw a new boundary for each request (a retry included), so the same form must
 * hash the same whatever its boundary.
 */
export const boundaryFree = (hash: Hash, needle: Buffer) => {
  const mark = Buffer.from("--\u0000boundary\u0000")
  let pending = Buffer.alloc(0)
  return {
    push: (chunk: Buffer) => {
      const data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let from = 0
      for (let at = data.indexOf(needle, from); at !== -1; at = data.indexOf(needle, from)) {
        hash.update(data.subarray(from, at)).update(mark)
        from = at + needle.length
      }
      const keep = Math.min(needle.length - 1, data.length - from)
      hash.update(data.subarray(from, data.length - keep))
      pending = Buffer.from(data.subarray(data.length - keep))
    },
    end: () => hash.update(pending)
  }
}

/** The request's body as a Node stream: Node's own, a web `Request`'s, or (tests) the platform reader's. */
const sourceOf = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Readable, HttpServerError.RequestError> => {
  const source = (request as unknown as { readonly source?: unknown }).source
  if (source instanceof Readable) return Effect.succeed(source)
  if (typeof Request !== "undefined" && source instanceof Request) {
    return Effect.succeed(source.body === null ? Readable.from([]) : Readable.fromWeb(source.body as never))
  }
  return Effect.map(request.arrayBuffer, (b) => Readable.from([Buffer.from(b)]))
}

const write = (source: Readable, path: string, limitBytes: number, onChunk: (chunk: Buffer) => void, idleMs: number) =>
  Effect.async<void, unknown>((resume) => {
    const file = createWriteStream(path, { flags: "wx", mode: 0o600 })
    let size = 0
    let settled = false
    let stop = () => {}
    const cleanup = () => {
      idle.disarm()
      stop()
    }
    const fail = (error: unknown) => {
      if (settled) return
      settled = true
      cleanup()
      file.destroy()
      discard(source)
      resume(Effect.fail(error))
    }
    const idle = idleTimer(source, idleMs, () => fail(new BodyStalled(idleMs)))
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) return fail(new BodyTooLarge(limitBytes))
      onChunk(chunk)
      if (file.write(chunk)) return idle.arm()
      // the disk is behind: pause the body (not a stall of the client's)
      idle.disarm()
      source.pause()
      file.once("drain", () => {
        if (settled) return
        idle.arm()
        source.resume()
      })
    }
    const onEnd = () => {
      if (settled) return
      settled = true
      cleanup()
      file.end(() => resume(Effect.void))
    }
    const onError = (error: unknown) => fail(error)
    const onClose = () => fail(new Error("the client closed the connection before the body ended"))
    file.on("error", (error) => {
      if (settled) return
      fail(error)
    })
    if (source.readableEnded) {
      settled = true
      file.end(() => resume(Effect.void))
      return
    }
    idle.arm()
    stop = listen(source, { data: onData, end: onEnd, error: onError, close: onClose })
    source.resume()
    return Effect.sync(() => fail(new Error("interrupted")))
  })

/** Removes a spooled file (never fails). */
export const remove = (path: string) => Effect.promise(() => rm(path, { force: true }).catch(() => undefined))

/**
 * Spools the request's body to a new temporary file, within `limitBytes`. Fails with a
 * `RequestError` whose cause is `BodyTooLarge`, `BodyStalled` or the stream's error; the file
 * is then already removed.
 */
export const spool = (
  request: HttpServerRequest.HttpServerRequest,
  limitBytes: number,
  boundary: string,
  idleMs: number = BODY_IDLE_MS
): Effect.Effect<Spooled, HttpServerError.RequestError> =>
  Effect.gen(function* () {
    const path = join(tmpdir(), `switchboard-upload-${randomUUID()}`)
    const hash = createHash("sha256").update(`${request.method} ${request.url}\n`)
    const body = boundaryFree(hash, Buffer.from(`--${boundary}`))
    // the first delimiter may start the body: as if a line break came before it
    const closing = finder(Buffer.from(`\r\n--${boundary}--`), Buffer.from("\r\n"))
    const source = yield* sourceOf(request)
    yield* write(
      source,
      path,
      limitBytes,
      (chunk) => {
        body.push(chunk)
        closing.push(chunk)
      },
      idleMs
    ).pipe(
      Effect.tapError(() => remove(path)),
      Effect.mapError((cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause }))
    )
    body.end()
    return { path, requestHash: hash.digest("hex"), closed: closing.found() }
  })

const notBuffered = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause: new Error("a multipart body is read only as multipart") }))

/** `request` with its multipart body read from the spooled file at `path`. */
export const fromFile = (request: HttpServerRequest.HttpServerRequest, path: string): HttpServerRequest.HttpServerRequest => {
  const bytes = Stream.suspend(() =>
    Stream.fromAsyncIterable(
      createReadStream(path) as AsyncIterable<Uint8Array>,
      (cause) => new Multipart.MultipartError({ reason: "InternalError", cause })
    )
  )
  const parts = Stream.pipeThroughChannel(bytes, Multipart.makeChannel(request.headers))
  const overrides: Record<PropertyKey, unknown> = {
    multipartStream: parts,
    multipart: Multipart.toPersisted(parts),
    stream: Stream.mapError(bytes, (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })),
    text: notBuffered(request),
    json: notBuffered(request),
    arrayBuffer: notBuffered(request),
    urlParamsBody: notBuffered(request),
    modify: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => fromFile(request.modify(options), path)
  }
  return new Proxy(request, {
    get: (target, key, receiver) => (Object.hasOwn(overrides, key) ? overrides[key] : Reflect.get(target, key, receiver))
  })
}
