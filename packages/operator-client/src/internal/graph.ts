/**
 * The Graph API as every capability of the client speaks it: the endpoint building (URLs,
 * headers, bodies), the error envelope (GRAPH_API.md §1.1), the classification of an answer
 * into success, rate limit, unavailability or refusal, and one request runner with the retry
 * and back-off rules of the ports. Capabilities (`TemplateClient`, `MessageClient`, ...) build
 * their requests here and run them through the `GraphApi` service; none retries by itself.
 *
 * Nothing here leaks a transport or parse error: every failure becomes a `GraphFailure`
 * (translated to the domain's errors by `toDomainError`) or a defect.
 */
import { randomUUID } from "node:crypto"
import { Errors, OperatorErrorCode } from "@switchboard/domain"
import { Clock, Data, Duration, Effect, Either, Random, Redacted, Schema } from "effect"
import type * as GraphTransport from "../GraphTransport.js"

// ---------------------------------------------------------------------------------------------
// Endpoints and requests

/** Where one operator is served and how we authenticate to it (`GraphApi.OperatorEndpoint` adds its webhook secret). */
export interface Endpoint {
  readonly baseUrl: string
  readonly apiVersion?: string | undefined
  readonly accessToken: Redacted.Redacted<string>
}

export const DEFAULT_API_VERSION = "v23.0"

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/** `{baseUrl}/{version}/{segments…}`, each segment URL-encoded. */
export const graphUrl = (endpoint: Endpoint, ...segments: ReadonlyArray<string>): string =>
  [trimSlash(endpoint.baseUrl), endpoint.apiVersion ?? DEFAULT_API_VERSION, ...segments.map(encodeURIComponent)].join("/")

/** A URL of the emulator's control API (`{baseUrl}/_emulator/{path}`): sandbox endpoints only. */
export const controlUrl = (endpoint: Endpoint, path: string): string => `${trimSlash(endpoint.baseUrl)}/_emulator/${path}`

/** A request to `endpoint`: method, absolute URL, query, JSON body (a value, or its JSON `text`); the bearer token from the endpoint. */
export const request = (
  endpoint: Endpoint,
  method: GraphTransport.Request["method"],
  url: string,
  options: { readonly query?: Readonly<Record<string, string>>; readonly json?: unknown; readonly text?: string } = {}
): GraphTransport.Request => {
  const body = options.text ?? (options.json === undefined ? undefined : JSON.stringify(options.json))
  return {
    method,
    url: options.query === undefined ? url : `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(options.query).toString()}`,
    headers: body === undefined ? cachedHeaders(endpoint).plain : cachedHeaders(endpoint).json,
    body
  }
}

/** A part of a `multipart/form-data` body: a field, or a file when it has a `filename`. */
export interface FormPart {
  readonly name: string
  readonly value: string
  readonly filename?: string
  readonly contentType?: string
}

/**
 * A `multipart/form-data` request (the Graph's file uploads, e.g. a flow's Flow JSON asset):
 * each part a field or a file; the bearer token from the endpoint. The boundary is random, so
 * no part's text can contain it by chance.
 */
export const multipartRequest = (endpoint: Endpoint, url: string, parts: ReadonlyArray<FormPart>): GraphTransport.Request => {
  const boundary = `----switchboard${randomUUID().replace(/-/g, "")}`
  const quoted = (text: string) => text.replace(/["\r\n]/g, "_")
  const fields = parts
    .map((part) => {
      const disposition = `content-disposition: form-data; name="${quoted(part.name)}"${part.filename === undefined ? "" : `; filename="${quoted(part.filename)}"`}`
      const type = part.filename === undefined ? "" : `\r\ncontent-type: ${part.contentType ?? "application/octet-stream"}`
      return `--${boundary}\r\n${disposition}${type}\r\n\r\n${part.value}\r\n`
    })
    .join("")
  const body = `${fields}--${boundary}--\r\n`
  return {
    method: "POST",
    url,
    headers: { ...cachedHeaders(endpoint).plain, "content-type": `multipart/form-data; boundary=${boundary}` },
    body
  }
}

/** Headers per endpoint, built once (a lane sends with the same ones all day). */
const headerCache = new WeakMap<Endpoint, { readonly plain: Record<string, string>; readonly json: Record<string, string> }>()
const cachedHeaders = (endpoint: Endpoint) => {
  let headers = headerCache.get(endpoint)
  if (headers === undefined) {
    const plain = { authorization: `Bearer ${Redacted.value(endpoint.accessToken)}`, accept: "application/json" }
    headers = { plain, json: { ...plain, "content-type": "application/json" } }
    headerCache.set(endpoint, headers)
  }
  return headers
}

/** Answer headers, lower-case names. */
export type Headers = GraphTransport.Answer["headers"]

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : value?.[0]
}

// ---------------------------------------------------------------------------------------------
// Error envelope

/** One Graph error, as `{ error: {...} }` carries it, plus the HTTP status it came with. */
export interface GraphError {
  readonly httpStatus: number
  readonly code: number
  readonly subcode: number | undefined
  readonly message: string
  readonly userTitle: string | undefined
  readonly userMsg: string | undefined
  readonly details: string | undefined
  readonly isTransient: boolean | undefined
}

const OptionalString = Schema.optional(Schema.NullOr(Schema.String))

const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Number,
    error_subcode: Schema.optional(Schema.NullOr(Schema.Number)),
    message: OptionalString,
    type: OptionalString,
    error_user_title: OptionalString,
    error_user_msg: OptionalString,
    is_transient: Schema.optional(Schema.NullOr(Schema.Boolean)),
    error_data: Schema.optional(Schema.NullOr(Schema.Struct({ details: Schema.optional(Schema.Unknown) })))
  })
})

const decodeEnvelope = Schema.decodeUnknownEither(ErrorEnvelope)

const nonEmpty = (s: string | null | undefined): string | undefined => (s === null || s === undefined || s.trim() === "" ? undefined : s)

/** The Graph error in `body` (already parsed JSON), or undefined when the body is not an error envelope. */
export const parseGraphError = (httpStatus: number, body: unknown): GraphError | undefined => {
  const decoded = decodeEnvelope(body)
  if (Either.isLeft(decoded)) return undefined
  const e = decoded.right.error
  const details = e.error_data?.details
  return {
    httpStatus,
    code: e.code,
    subcode: e.error_subcode ?? undefined,
    message: nonEmpty(e.message) ?? `Graph error ${e.code}`,
    userTitle: nonEmpty(e.error_user_title),
    userMsg: nonEmpty(e.error_user_msg),
    details: typeof details === "string" ? nonEmpty(details) : details === undefined || details === null ? undefined : JSON.stringify(details),
    isTransient: e.is_transient ?? undefined
  }
}

/** Parses a body text as JSON; undefined when it is not JSON. */
export const parseJson = (text: string): unknown => {
  if (text.trim() === "") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Classification

/** A rate-limit answer (`OperatorErrorCode.RATE_LIMIT_CODES`, or a bare HTTP 429 without a code). Retried within the budget. */
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly code: number | undefined
  readonly reason: string
  /** The wait the operator asked for (Retry-After or usage headers), when it said. */
  readonly hintSeconds: number | undefined
}> {}

/** The operator could not be reached, timed out, answered 5xx or something unreadable. */
export class Unreachable extends Data.TaggedError("Unreachable")<{
  /** The operator's code when its answer carried one (a 5xx with a Graph envelope). */
  readonly code: number | undefined
  readonly reason: string
  readonly hintSeconds: number | undefined
}> {}

/** The operator refused the request; retrying the same request will not help. */
export class Refused extends Data.TaggedError("Refused")<{
  readonly error: GraphError
}> {}

export type GraphFailure = RateLimited | Unreachable | Refused

/** A successful answer: the HTTP status and the parsed JSON body (undefined when empty or not JSON). */
export interface GraphSuccess {
  readonly status: number
  readonly body: unknown
}

const retryAfterHeader = (headers: Headers): number | undefined => {
  const raw = header(headers, "retry-after")
  if (raw === undefined) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds)
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000))
}

/** `estimated_time_to_regain_access` (minutes) of `x-business-use-case-usage`, in seconds, when positive. */
const usageHeader = (headers: Headers): number | undefined => {
  const raw = header(headers, "x-business-use-case-usage")
  if (raw === undefined) return undefined
  const parsed = parseJson(raw)
  if (typeof parsed !== "object" || parsed === null) return undefined
  let minutes = 0
  for (const entries of Object.values(parsed)) {
    if (!Array.isArray(entries)) continue
    for (const entry of entries) {
      const value = (entry as { estimated_time_to_regain_access?: unknown } | null)?.estimated_time_to_regain_access
      if (typeof value === "number" && value > minutes) minutes = value
    }
  }
  return minutes > 0 ? minutes * 60 : undefined
}

/** The wait the operator asked for, in seconds, from its headers. */
export const retryHint = (headers: Headers): number | undefined => retryAfterHeader(headers) ?? usageHeader(headers)

const snippet = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

/** The reason text of a Graph error as we show it: the user-facing message when given, else the technical one. */
export const reasonOf = (error: GraphError): string => error.userMsg ?? error.message

/**
 * Classifies one HTTP answer:
 * - 2xx: success with the parsed body;
 * - a Graph error whose code is a rate limit (or a bare 429): `RateLimited`;
 * - HTTP 5xx (any code but a rate limit), 408, or a non-2xx answer without a Graph envelope: `Unreachable`;
 * - any other Graph error: `Refused`.
 */
export const classify = (status: number, headers: Headers, text: string): Either.Either<GraphSuccess, GraphFailure> => {
  const body = parseJson(text)
  if (status >= 200 && status < 300) return Either.right({ status, body })
  const error = parseGraphError(status, body)
  const hintSeconds = retryHint(headers)
  if (error !== undefined) {
    if (OperatorErrorCode.isRateLimit(error.code)) {
      return Either.left(new RateLimited({ code: error.code, reason: `${reasonOf(error)} (code ${error.code})`, hintSeconds }))
    }
    if (status >= 500) {
      return Either.left(new Unreachable({ code: error.code, reason: `HTTP ${status}: ${reasonOf(error)} (code ${error.code})`, hintSeconds }))
    }
    return Either.left(new Refused({ error }))
  }
  if (status === 429) {
    return Either.left(new RateLimited({ code: undefined, reason: `HTTP 429${text ? `: ${snippet(text)}` : ""}`, hintSeconds }))
  }
  return Either.left(
    new Unreachable({ code: undefined, reason: `unexpected HTTP ${status} without a Graph error${text ? `: ${snippet(text)}` : ""}`, hintSeconds })
  )
}

/** An `OperatorUnavailable` without the fields that are absent (so that it prints and compares as it reads). */
export const unavailable = (fields: {
  readonly kind: Errors.OperatorUnavailable["kind"]
  readonly reason: string
  readonly code?: number | undefined
  readonly retryAfterSeconds?: number | undefined
}): Errors.OperatorUnavailable =>
  new Errors.OperatorUnavailable({
    kind: fields.kind,
    reason: fields.reason,
    ...(fields.code === undefined ? {} : { code: fields.code }),
    ...(fields.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fields.retryAfterSeconds })
  })

/**
 * The domain error of a failure that ran out of retries: a refusal is `OperatorRejected`
 * with its code; a rate limit `OperatorUnavailable` of kind `rate_limited` with its code and
 * always a `retryAfterSeconds` (the operator's, else `OperatorErrorCode.defaultRetryAfterSeconds`);
 * anything else of kind `unreachable`, with the code when the answer carried one.
 */
export const toDomainError = (failure: GraphFailure): Errors.OperatorRejected | Errors.OperatorUnavailable => {
  switch (failure._tag) {
    case "Refused":
      return new Errors.OperatorRejected({ code: failure.error.code, reason: reasonOf(failure.error) })
    case "RateLimited":
      return unavailable({
        kind: "rate_limited",
        code: failure.code,
        reason: `rate limited: ${failure.reason}`,
        retryAfterSeconds: failure.hintSeconds ?? OperatorErrorCode.defaultRetryAfterSeconds(failure.code)
      })
    case "Unreachable":
      return unavailable({ kind: "unreachable", code: failure.code, reason: failure.reason, retryAfterSeconds: failure.hintSeconds })
  }
}

/**
 * Like `toDomainError` for operations whose error union has no `OperatorRejected`: a refusal
 * becomes unavailability of kind `unreachable`, with the refusal's code.
 */
export const toUnavailable = (failure: GraphFailure): Errors.OperatorUnavailable => {
  const error = toDomainError(failure)
  return error._tag === "OperatorRejected"
    ? unavailable({ kind: "unreachable", code: error.code, reason: `the operator refused the request (code ${error.code}): ${error.reason}` })
    : error
}

// ---------------------------------------------------------------------------------------------
// Running requests

/** How one request is retried. */
export interface RetryPolicy {
  /** Retries in all, whatever their cause. */
  readonly maxRetries: number
  /** Total time (ms) from the first attempt within which a retry may still start. */
  readonly budgetMs: number
  /**
   * Retries allowed after a network error, a timeout or a 5xx. Zero for requests that are
   * not idempotent (a send may have been accepted although its answer was lost).
   */
  readonly transportRetries: number
  /** Timeout of one attempt (ms). */
  readonly attemptTimeoutMs: number
  /** First back-off (ms); doubled per retry, with ±25 % jitter. */
  readonly baseDelayMs: number
}

/** The back-off before retry number `attempt` (0-based), jittered by ±25 %. */
export const backoff = (policy: RetryPolicy, attempt: number): Effect.Effect<number> =>
  Effect.map(Random.nextRange(0.75, 1.25), (factor) => Math.round(policy.baseDelayMs * 2 ** attempt * factor))

/** `classify` of a whole answer; its headers are read only when it is no success (a transport may parse them lazily). */
export const classifyAnswer = (answer: GraphTransport.Answer): Either.Either<GraphSuccess, GraphFailure> =>
  answer.status >= 200 && answer.status < 300
    ? Either.right({ status: answer.status, body: parseJson(answer.text) })
    : classify(answer.status, answer.headers, answer.text)

/** What one attempt came to: its answer classified, or `Unreachable` when no whole answer came. */
export const outcomeOf = (result: GraphTransport.Answer | GraphTransport.TransportError): Either.Either<GraphSuccess, GraphFailure> =>
  "_tag" in result ? Either.left(new Unreachable({ code: undefined, reason: result.reason, hintSeconds: undefined })) : classifyAnswer(result)

/** One attempt: sends, reads the whole body, classifies. */
export const attempt = (
  transport: GraphTransport.GraphTransport["Type"],
  request: GraphTransport.Request,
  timeoutMs: number
): Effect.Effect<GraphSuccess, GraphFailure> =>
  Effect.matchEffect(transport.request(request, timeoutMs), {
    onFailure: (error) => Effect.fail(new Unreachable({ code: undefined, reason: error.reason, hintSeconds: undefined })),
    onSuccess: classifyAnswer
  })

/**
 * Runs `request` with the retry rules of the port: rate limits are retried with exponential
 * back-off and jitter while retries and budget last; network errors, timeouts and 5xx only
 * `policy.transportRetries` times; refusals never. A retry whose wait (the back-off, or the
 * operator's hint when longer) would end past the budget is not attempted. The first attempt
 * is the whole cost of a request that succeeds (the hot path of a campaign).
 */
export const run = (
  transport: GraphTransport.GraphTransport["Type"],
  request: GraphTransport.Request,
  policy: RetryPolicy
): Effect.Effect<GraphSuccess, GraphFailure> =>
  Effect.clockWith((clock) => {
    const start = clock.unsafeCurrentTimeMillis()
    return Effect.catchAll(attempt(transport, request, policy.attemptTimeoutMs), (first) => retrying(transport, request, policy, start, first))
  })

const retrying = (
  transport: GraphTransport.GraphTransport["Type"],
  request: GraphTransport.Request,
  policy: RetryPolicy,
  start: number,
  first: GraphFailure
): Effect.Effect<GraphSuccess, GraphFailure> =>
  Effect.gen(function* () {
    let failure = first
    let retries = 0
    let transportRetries = 0
    while (true) {
      if (failure._tag === "Refused" || retries >= policy.maxRetries) return yield* Effect.fail(failure)
      if (failure._tag === "Unreachable" && transportRetries >= policy.transportRetries) return yield* Effect.fail(failure)
      const delay = yield* backoff(policy, retries)
      const wait = Math.max(delay, (failure.hintSeconds ?? 0) * 1000)
      const now = yield* Clock.currentTimeMillis
      if (now - start + wait > policy.budgetMs) return yield* Effect.fail(failure)
      yield* Effect.logDebug(`operator ${failure._tag === "RateLimited" ? "rate limit" : "unavailable"}: ${failure.reason}; retrying in ${wait} ms`)
      yield* Effect.sleep(Duration.millis(wait))
      retries++
      if (failure._tag === "Unreachable") transportRetries++
      const result = yield* Effect.either(attempt(transport, request, policy.attemptTimeoutMs))
      if (Either.isRight(result)) return result.right
      failure = result.left
    }
  }).pipe(Effect.annotateLogs({ method: request.method, url: request.url }))
