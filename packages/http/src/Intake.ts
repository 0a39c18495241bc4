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
 * 4. Read the body, at most up to the limit (a chunked body over it answers 413, and the
 *    rest is discarded as it arrives). A JSON body nested deeper than `MAX_JSON_DEPTH`
 *    answers 400. The router and handler then read this one copy.
 *    A request answered before its body ended is closed with a linger (`lingerOnClose`), so
 *    the client reads the answer instead of a reset.
 * 5. `Idempotency-Key`, scoped by the tenant authenticated in step 2.
 *
 * Every refusal is in the error envelope. Multipart routes get steps 1 to 3, then read
 * their parts as a stream with the platform's multipart limits set to the route's limit;
 * they are not buffered, so `Idempotency-Key` does not apply to them.
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
import { SwitchboardApi } from "./Api.js"
import * as ApiError from "./ApiError.js"
import { Authentication } from "./Authentication.js"
import { BodyLimit } from "./BodyLimit.js"
import * as Idempotency from "./Idempotency.js"
import { BodyTooLarge, declaredLength, hasBody, lingerOnClose, readAtMost, withBody } from "./internal/requestBody.js"
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

    let tenant: Tenant.Tenant | undefined
    if (route.authenticated) {
      const auth = yield* Authentication
      const caller = yield* Effect.either(Effect.flatMap(bearer, auth.bearer)).pipe(
        Effect.catchAllDefect((defect) => Effect.zipRight(Effect.logError("authentication failed", Cause.die(defect)), Effect.succeed(undefined)))
      )
      if (caller === undefined) return refuse(ApiError.Internal, new ApiError.InternalError())
      if (caller._tag === "Left") return refuse(ApiError.Unauthorized, caller.left)
      tenant = caller.right.tenant
    }

    // the multipart parser throws, outside any handler, on a content type without a boundary (even with no body)
    if (
      route.streamed &&
      mediaTypeOf(request.headers["content-type"]) === "multipart/form-data" &&
      !/;\s*boundary=[^;\s]/i.test(request.headers["content-type"] ?? "")
    )
      return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "is multipart/form-data without a boundary"))

    let body: Uint8Array = new Uint8Array(0)
    if (hasBody(request)) {
      const mediaType = mediaTypeOf(request.headers["content-type"])
      if (route.accepts !== undefined && !route.accepts.includes(mediaType)) {
        return refuse(
          ApiError.UnsupportedType,
          new ApiError.UnsupportedMediaType({ contentType: request.headers["content-type"] ?? "", accepted: route.accepts })
        )
      }
      if ((declaredLength(request) ?? 0) > limitBytes) return tooLarge(limitBytes)
      // a multipart route reads its parts as a stream, within the limit; nothing to buffer or hash
      if (route.streamed) return yield* limited(app)
      const read = yield* Effect.either(readAtMost(request, limitBytes))
      if (read._tag === "Left") {
        if (read.left.cause instanceof BodyTooLarge) return tooLarge(limitBytes)
        return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "could not be read to its end"))
      }
      body = read.right
      if (mediaType === "application/json" && nestedDeeperThan(body, MAX_JSON_DEPTH)) {
        return refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", `is nested deeper than ${MAX_JSON_DEPTH} levels`))
      }
    }
    // a GET without a body or a payload (the lists): nothing reads a body, so the request goes
    // on as it came, without the buffered copy or the limit (each a copy of the whole context)
    const bodiless = body.length === 0 && route.accepts === undefined && (request.method === "GET" || request.method === "HEAD") && !hasBody(request)
    const served = bodiless ? app : limited(Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, Effect.succeed(body))))
    const key = request.headers["idempotency-key"]
    if (tenant === undefined || !Idempotency.applies(request.method, key)) return yield* served
    return yield* Idempotency.run(served, { tenant, key, method: request.method, url: request.url, body })
  }) as HttpApp.Default<E, R | Authentication | IdempotencyStore.IdempotencyStore>
