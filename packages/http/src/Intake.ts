/**
 * The request intake: what happens to a request before its handler, in this order.
 *
 * 1. Find the route (`internal/routes.ts`, read from the API definition). Unknown routes go
 *    on to the router's 404; their body, if anyone reads it, is capped at the default limit.
 * 2. Authenticate, from the `Authorization` header alone, with the same `Authentication`
 *    the routes use: an unknown key answers 401 before a byte of the body is read.
 * 3. Check the body's content type against the route's payload (415
 *    `unsupported_media_type`; no content type counts as JSON) and its declared length
 *    against the route's `BodyLimit` (413 `payload_too_large`, before reading).
 * 4. Read the body, at most up to the limit of its content type (a chunked body over it
 *    answers 413, and the rest is discarded as it arrives). JSON is held to the route's
 *    `BodyLimit` (1 MiB unless the route says otherwise), even on a route that takes files.
 *    A JSON body nested deeper than `MAX_JSON_DEPTH` answers 400; no body at all, on a route
 *    with a JSON payload, is `{}`. The router and handler then read this one copy.
 *    A `multipart/form-data` body (routes that take files) is spooled to a temporary file
 *    within the route's `MultipartLimit`, hashed in the same pass, and must end with its
 *    closing delimiter (400 otherwise); the route parses the file, which is then deleted.
 *    A body that stops arriving for `BODY_IDLE_MS` answers 408 `request_timeout`.
 *    A request answered before its body ended is closed with a linger (`lingerOnClose`), so
 *    the client reads the answer instead of a reset.
 * 5. `Idempotency-Key`, scoped by the tenant authenticated in step 2, on JSON and multipart
 *    bodies alike. On a route whose JSON payload declares `idempotency_key`, that top-level
 *    field is the key when no header is sent (the same key in both is fine; two different
 *    keys are a 400 naming `idempotency_key`): one mechanism, with the same replays, 422s and
 *    concurrent twins.
 *
 * Every refusal is in the error envelope.
 */
import {
  FileSystem,
  HttpApiBuilder,
  HttpApiSchema,
  HttpApiSecurity,
  type HttpApp,
  HttpIncomingMessage,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Errors, type IdempotencyStore, type Tenant } from "@switchboard/domain"
import { Cause, Effect, Option, Schema } from "effect"
import * as AccessLog from "./AccessLog.js"
import { SwitchboardApi } from "./Api.js"
import * as ApiError from "./ApiError.js"
import { Authentication } from "./Authentication.js"
import { BodyLimit } from "./BodyLimit.js"
import * as Idempotency from "./Idempotency.js"
import * as MultipartBody from "./internal/multipartBody.js"
import { BodyStalled, BodyTooLarge, declaredLength, hasBody, lingerOnClose, readAtMost, withBody } from "./internal/requestBody.js"
import * as Routes from "./internal/routes.js"
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./internal/validation.js"

const routes = Routes.make(SwitchboardApi, Authentication)

/** The error envelope of `error`, as the API's own error schema renders it. */
const refuse = <E>(schema: Schema.Schema<E, ApiError.ErrorBody>, error: E): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(Schema.encodeSync(schema)(error), { status: HttpApiSchema.getStatusError(schema) })

const mediaTypeOf = (contentType: string | undefined): string =>
  contentType === undefined ? "application/json" : contentType.split(";")[0].trim().toLowerCase()

const bearer = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer).pipe(Effect.provideService(HttpServerRequest.ParsedSearchParams, {}))

const tooLarge = (limitBytes: number) => refuse(ApiError.TooLarge, new ApiError.PayloadTooLarge({ limitBytes }))

/** 408 for a body that stopped arriving; the connection is closed after it. */
const timedOut = (stalled: BodyStalled) =>
  refuse(ApiError.RequestTimeout, new ApiError.BodyTimedOut({ idleSeconds: stalled.idleMs / 1000 })).pipe(
    HttpServerResponse.setHeader("connection", "close")
  )

/** The answer to a body that could not be read: 413, 408, or 400. */
const unreadable = (cause: unknown, limitBytes: number) =>
  cause instanceof BodyTooLarge
    ? tooLarge(limitBytes)
    : cause instanceof BodyStalled
      ? timedOut(cause)
      : refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "could not be read to its end"))

const EMPTY_OBJECT = new TextEncoder().encode("{}")
const BODY_KEY = Buffer.from('"idempotency_key"')

/** The top-level string `idempotency_key` of a JSON body, when it is one we take as a key. */
const bodyKeyOf = (body: Uint8Array): string | undefined => {
  if (Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf(BODY_KEY) === -1) return undefined
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body))
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
    const key = (parsed as Record<string, unknown>).idempotency_key
    return typeof key === "string" && Idempotency.validKey(key) ? key : undefined
  } catch {
    return undefined
  }
}

/**
 * The intake as an `HttpMiddleware`: wrap the whole served app with it (it must see the
 * encoded responses, for idempotency). Needs `Authentication` and `IdempotencyStore`.
 */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | Authentication | IdempotencyStore.IdempotencyStore> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (hasBody(request)) lingerOnClose(request)
    const route = routes.match(request.method, request.url)
    const limitBytes = route?.limitBytes ?? BodyLimit.DEFAULT
    // the platform's own readers (multipart parts included) stop at the route's limit too
    const limited = <A, E1, R1>(effect: Effect.Effect<A, E1, R1>) =>
      Effect.provideService(effect, HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(limitBytes)))
    if (route === undefined) {
      return yield* limited(Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, readAtMost(request, limitBytes))))
    }

    AccessLog.note(request, route.path, undefined)
    let tenant: Tenant.Tenant | undefined
    if (route.authenticated) {
      const auth = yield* Authentication
      const caller = yield* Effect.either(Effect.flatMap(bearer, auth.bearer)).pipe(
        Effect.catchAllDefect((defect) => Effect.zipRight(Effect.logError("authentication failed", Cause.die(defect)), Effect.succeed(undefined)))
      )
      if (caller === undefined) return refuse(ApiError.Internal, new ApiError.InternalError())
      if (caller._tag === "Left") return refuse(ApiError.Unauthorized, caller.left)
      tenant = caller.right.tenant
      AccessLog.note(request, route.path, tenant.storeId)
    }

    const mediaType = mediaTypeOf(request.headers["content-type"])
    const boundary = mediaType === "multipart/form-data" ? MultipartBody.boundaryOf(request.headers["content-type"]) : undefined
    // the multipart parser throws, outside any handler, on a content type without a boundary
    // (even with no body, and on a route that takes JSON): refused on every route
    if (mediaType === "multipart/form-data" && boundary === undefined)
      return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "is multipart/form-data without a boundary"))
    const multipart = route.streamed && boundary !== undefined
    const headerKey = request.headers["idempotency-key"]
    const keyed = tenant !== undefined && (request.method === "POST" || request.method === "PATCH")

    // a form, even an empty one, is spooled and checked: the parser would wait for ever for the end of a form without one
    if (multipart) return yield* spooledForm(app, request, route.multipartLimitBytes, boundary!, keyed ? tenant : undefined, headerKey)

    let body: Uint8Array = new Uint8Array(0)
    // a content type the route does not take is refused even without a body (no body with
    // `multipart/form-data` would otherwise reach the platform's form parser on a JSON route)
    if (!hasBody(request) && request.headers["content-type"] !== undefined && route.accepts !== undefined && !route.accepts.includes(mediaType)) {
      return refuse(
        ApiError.UnsupportedType,
        new ApiError.UnsupportedMediaType({ contentType: request.headers["content-type"], accepted: route.accepts })
      )
    }
    if (hasBody(request)) {
      if (route.accepts !== undefined && !route.accepts.includes(mediaType)) {
        return refuse(
          ApiError.UnsupportedType,
          new ApiError.UnsupportedMediaType({ contentType: request.headers["content-type"] ?? "", accepted: route.accepts })
        )
      }
      if ((declaredLength(request) ?? 0) > limitBytes) return tooLarge(limitBytes)
      const read = yield* Effect.either(readAtMost(request, limitBytes))
      if (read._tag === "Left") return unreadable(read.left.cause, limitBytes)
      body = read.right
      if (mediaType === "application/json" && nestedDeeperThan(body, MAX_JSON_DEPTH)) {
        return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", `is nested deeper than ${MAX_JSON_DEPTH} levels`))
      }
    }
    // no body on a route with a JSON payload (all of whose fields may be optional) means `{}`
    if (
      body.length === 0 &&
      route.accepts?.includes("application/json") === true &&
      mediaType === "application/json" &&
      hasPayloadMethod(request.method)
    ) {
      body = EMPTY_OBJECT
    }
    // a GET without a body or a payload (the lists): nothing reads a body, so the request goes
    // on as it came, without the buffered copy or the limit (each a copy of the whole context)
    const bodiless = body.length === 0 && route.accepts === undefined && (request.method === "GET" || request.method === "HEAD") && !hasBody(request)
    const served = bodiless ? app : limited(Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, Effect.succeed(body))))
    if (!keyed) return yield* served
    let key = headerKey
    const fieldKey = route.bodyKey && mediaType === "application/json" ? bodyKeyOf(body) : undefined
    if (fieldKey !== undefined) {
      if (key !== undefined && key !== fieldKey) {
        return refuse(
          ApiError.ValidationFailed,
          Errors.ValidationFailed.of("idempotency_key", "differs from the Idempotency-Key header; send one key")
        )
      }
      key = fieldKey
    }
    if (key === undefined) return yield* served
    return yield* Idempotency.run(served, { tenant: tenant!, key, requestHash: Idempotency.hashOf(request.method, request.url, body) })
  }) as HttpApp.Default<E, R | Authentication | IdempotencyStore.IdempotencyStore>

/**
 * A multipart form (a route that takes files): spooled within `limitBytes` (hashed in the same
 * pass), refused when it ends without its closing boundary, then served from the file, under
 * `Idempotency-Key` when one is sent; the file is deleted after.
 */
const spooledForm = <E, R>(
  app: HttpApp.Default<E, R>,
  request: HttpServerRequest.HttpServerRequest,
  limitBytes: number,
  boundary: string,
  tenant: Tenant.Tenant | undefined,
  key: string | undefined
) =>
  Effect.gen(function* () {
    if ((declaredLength(request) ?? 0) > limitBytes) return tooLarge(limitBytes)
    const spooled = yield* Effect.either(MultipartBody.spool(request, limitBytes, boundary))
    if (spooled._tag === "Left") return unreadable(spooled.left.cause, limitBytes)
    const { path, requestHash, closed } = spooled.right
    const served = Effect.gen(function* () {
      if (!closed) {
        return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "is multipart/form-data that ends without its closing boundary"))
      }
      const fromFile = app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, MultipartBody.fromFile(request, path)),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(limitBytes)))
      )
      if (tenant === undefined || key === undefined) return yield* fromFile
      return yield* Idempotency.run(fromFile, { tenant, key, requestHash })
    })
    return yield* Effect.ensuring(served, MultipartBody.remove(path))
  })

const hasPayloadMethod = (method: string): boolean => method === "POST" || method === "PUT" || method === "PATCH"
