/**
 * The domain's `MediaOperator` over the Graph API (issue 32, GRAPH_API.md §4.2):
 *   - the resumable upload API: `POST /app/uploads?file_name&file_length&file_type` (the
 *     token's app) answers an upload session `{id: "upload:…"}`; `POST /{session}` with the
 *     header `file_offset: 0` and the bytes answers the handle `{h}`;
 *   - the phone number's media: `POST /{phone_number_id}/media`, multipart (`messaging_product`,
 *     `type`, `file`), answers `{id}`.
 * The file is streamed from disk, never read whole: these requests go by `fetch` with a
 * streamed body, apart from the JSON transport of every other call. No retry: an upload that
 * failed is made again by the next use.
 */
import { Errors, MediaPorts, type Store } from "@switchboard/domain"
import { Effect, Either, Layer, Redacted } from "effect"
import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import { GraphApi, type OperatorEndpoint } from "./GraphApi.js"
import * as Graph from "./internal/graph.js"

const UPLOAD_TIMEOUT_MS = 10 * 60 * 1000

const base = (endpoint: OperatorEndpoint): string => `${endpoint.baseUrl.replace(/\/+$/, "")}/${endpoint.apiVersion ?? Graph.DEFAULT_API_VERSION}`

/** Sends one request; a Graph error, a non-JSON answer or a network failure become the domain's errors. */
const call = (url: string, init: RequestInit & { duplex?: "half" }, what: string) =>
  Effect.flatMap(
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(UPLOAD_TIMEOUT_MS)]) })
        return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }
      },
      catch: (error) =>
        new Errors.OperatorUnavailable({
          kind: "unreachable",
          reason: `${what}: ${error instanceof Error ? error.message : String(error)}`
        })
    }),
    (answer) => {
      const outcome = Graph.classify(answer.status, answer.headers, answer.text)
      return Either.isRight(outcome) ? Effect.succeed(outcome.right.body) : Effect.fail(Graph.toDomainError(outcome.left))
    }
  )

const fieldOf = (body: unknown, field: string, what: string) => {
  const value = (body as Record<string, unknown> | null | undefined)?.[field]
  return typeof value === "string" && value !== ""
    ? Effect.succeed(value)
    : Effect.fail(new Errors.OperatorUnavailable({ kind: "unreachable", reason: `unreadable ${what} answer from the operator: no ${field}` }))
}

const fileStream = (path: string) => Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>

/** A multipart body streamed around the file: the fields, the file part, the closing boundary. */
const multipart = (boundary: string, fields: Readonly<Record<string, string>>, file: MediaPorts.UploadFile): ReadableStream<Uint8Array> => {
  const quoted = (s: string) => s.replace(/["\r\n\\]/g, "_")
  let head = ""
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  }
  head += `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${quoted(file.filename)}"\r\ncontent-type: ${file.mimeType}\r\n\r\n`
  const tail = `\r\n--${boundary}--\r\n`
  const parts = async function* () {
    yield Buffer.from(head)
    for await (const chunk of createReadStream(file.path)) yield chunk as Buffer
    yield Buffer.from(tail)
  }
  return Readable.toWeb(Readable.from(parts())) as unknown as ReadableStream<Uint8Array>
}

export const make: Effect.Effect<MediaPorts.MediaOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const uploadHandle = (account: Store.OperatorAccount, file: MediaPorts.UploadFile) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const token = Redacted.value(endpoint.accessToken)
      const query = new URLSearchParams({ file_name: file.filename, file_length: String(file.size), file_type: file.mimeType })
      const session = yield* call(
        `${base(endpoint)}/app/uploads?${query}`,
        { method: "POST", headers: { authorization: `Bearer ${token}`, accept: "application/json" } },
        "upload session"
      ).pipe(Effect.flatMap((body) => fieldOf(body, "id", "upload session")))
      const uploaded = yield* call(
        `${base(endpoint)}/${session}`,
        {
          method: "POST",
          headers: { authorization: `OAuth ${token}`, file_offset: "0", "content-type": file.mimeType, accept: "application/json" },
          body: fileStream(file.path),
          duplex: "half"
        },
        "resumable upload"
      )
      return yield* fieldOf(uploaded, "h", "resumable upload")
    }).pipe(Effect.withSpan("MediaClient.uploadHandle", { attributes: { size: file.size, type: file.mimeType } }))

  const uploadMedia = (account: Store.OperatorAccount, file: MediaPorts.UploadFile) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const boundary = `switchboard${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`
      const body = yield* call(
        `${base(endpoint)}/${encodeURIComponent(account.phoneNumberId)}/media`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${Redacted.value(endpoint.accessToken)}`,
            "content-type": `multipart/form-data; boundary=${boundary}`,
            accept: "application/json"
          },
          body: multipart(boundary, { messaging_product: "whatsapp", type: file.mimeType }, file),
          duplex: "half"
        },
        "media upload"
      )
      return yield* fieldOf(body, "id", "media upload")
    }).pipe(Effect.withSpan("MediaClient.uploadMedia", { attributes: { size: file.size, type: file.mimeType } }))

  return { uploadHandle, uploadMedia }
})

/** `MediaOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<MediaPorts.MediaOperator, never, GraphApi> = Layer.effect(MediaPorts.MediaOperator, make)
