/**
 * Assembles the API: handlers, authentication, the error model applied to everything
 * (decode failures, unknown routes, oversized bodies, defects), the OpenAPI document at
 * `/chat/openapi.json` and the docs page at `/docs`. Exposes a Layer to serve on any
 * `HttpServer` and a web-standard handler for embedding.
 */
import {
  FileSystem,
  HttpApiBuilder,
  HttpApiError,
  HttpApiScalar,
  HttpIncomingMessage,
  HttpMiddleware,
  HttpServer,
  type HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  type HttpApp
} from "@effect/platform"
import { Errors } from "@switchboard/domain"
import { Cause, Effect, Layer, Option } from "effect"
import { SwitchboardApi } from "./Api.js"
import * as ApiError from "./ApiError.js"
import * as Authentication from "./Authentication.js"
import * as Idempotency from "./Idempotency.js"
import { CampaignsLive } from "./campaigns/Http.js"
import { HealthLive } from "./handlers/Health.js"
import { OperatorWebhookLive } from "./handlers/OperatorWebhook.js"
import { CustomersLive, MessagesLive, OptOutsLive, SandboxLive } from "./messaging/Http.js"
import { TemplatesLive } from "./templates/Http.js"
import { WebhooksLive } from "./webhooks/Http.js"
import { fromRequestError, MAX_BODY_BYTES } from "./internal/body.js"

const pathOf = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("") || "body"

const validationFromDecode = (e: HttpApiError.HttpApiDecodeError): Errors.ValidationFailed =>
  e.issues.length === 0
    ? Errors.ValidationFailed.of("body", e.message)
    : Errors.ValidationFailed.all(
        collapse(
          e.issues.map((i) => ({
            path: pathOf(i.path),
            message: i._tag === "Unexpected" ? "is not a known field" : i._tag === "Missing" ? "is required" : i.message
          }))
        )
      )

const isRequestError = (u: unknown): u is HttpServerError.RequestError =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RequestError"

/** One issue per field: a failed union of literals reads "must be one of A, B, C". */
const collapse = (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) byPath.set(issue.path, [...(byPath.get(issue.path) ?? []), issue.message])
  return [...byPath].map(([path, messages]) => {
    if (messages.length === 1) return { path, message: messages[0] }
    const literals = messages.map((m) => /^Expected "([^"]*)", actual/.exec(m)?.[1]).filter((m): m is string => m !== undefined)
    const actual = /actual (.*)$/.exec(messages[0])?.[1]
    return literals.length > 0
      ? { path, message: `must be one of ${literals.join(", ")}${actual ? ` (got ${actual})` : ""}` }
      : { path, message: [...new Set(messages)].join("; ") }
  })
}

const maxBody = Option.some(FileSystem.Size(MAX_BODY_BYTES))

/** The error model for everything the handlers did not answer themselves. */
const errorModel = (app: HttpApp.Default): HttpApp.Default<any> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const length = Number(request.headers["content-length"] ?? 0)
    if (length > MAX_BODY_BYTES) return yield* new ApiError.PayloadTooLarge({ limitBytes: MAX_BODY_BYTES })
    return yield* app
  }).pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBody),
    Effect.catchIf(
      (e: unknown): e is { _tag: string } => typeof e === "object" && e !== null && "_tag" in e,
      (e: any) => {
        switch (e._tag) {
          case "HttpApiDecodeError":
            return Effect.fail(validationFromDecode(e))
          case "RouteNotFound":
            return Effect.fail(new ApiError.RouteNotFound({ method: e.request.method, path: e.request.url.split("?")[0] }))
          case "RequestError":
            return Effect.fail(fromRequestError(e))
          default:
            return Effect.fail(e)
        }
      }
    ),
    Effect.catchAllDefect((defect) =>
      isRequestError(defect)
        ? Effect.fail<ApiError.PayloadTooLarge | Errors.ValidationFailed | ApiError.InternalError>(fromRequestError(defect))
        : Effect.zipRight(
        Effect.logError("unhandled defect", Cause.die(defect)),
        Effect.fail(new ApiError.InternalError())
      )
    )
  )

/** Handlers and authentication, needing the domain's ports. */
export const layerApi = HttpApiBuilder.api(SwitchboardApi).pipe(
  Layer.provide([TemplatesLive, MessagesLive, CustomersLive, OptOutsLive, WebhooksLive, SandboxLive, CampaignsLive, OperatorWebhookLive, HealthLive]),
  Layer.provide(Authentication.layer),
  Layer.provide(HttpApiBuilder.middleware(SwitchboardApi, errorModel as any))
)

/** Docs page and OpenAPI document. */
const layerDocs = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/chat/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs" })
)

/**
 * Serves the API on the `HttpServer` in context. Per-request tracing spans are off (they
 * cost more than the request on the hot path); set `tracing: true` to keep them.
 */
export const layerServer = (options: { readonly tracing?: boolean } = {}) => {
  const served = HttpApiBuilder.serve(Idempotency.middleware).pipe(
    Layer.provide(layerDocs),
    Layer.provide(layerApi),
    HttpServer.withLogAddress
  )
  return options.tracing ? served : HttpMiddleware.withTracerDisabledWhen(served, () => true)
}

/** A web-standard handler (Request -> Response) for embedding in another server. */
export const toWebHandler = <R>(dependencies: Layer.Layer<R>) =>
  HttpApiBuilder.toWebHandler(
    Layer.mergeAll(layerApi, layerDocs, HttpServer.layerContext).pipe(Layer.provide(dependencies)) as any
  )

export { HttpServerResponse }
