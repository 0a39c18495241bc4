/**
 * Assembles the API: handlers, authentication, the error model applied to everything
 * (decode failures, unknown routes, oversized bodies, defects), the OpenAPI document at
 * `/chat/openapi.json` and the docs page at `/docs`. Exposes a Layer to serve on any
 * `HttpServer` and a web-standard handler for embedding.
 */
import {
  HttpApiBuilder,
  HttpApiScalar,
  HttpIncomingMessage,
  HttpMiddleware,
  HttpServer,
  type HttpServerError,
  HttpServerResponse,
  type HttpApp
} from "@effect/platform"
import { Errors, FlowEndpoint, InboxIntake } from "@switchboard/domain"
import { Cause, Effect, Layer, Option } from "effect"
import { Handlers, HotRoutes, RawRoutes, SwitchboardApi } from "./Api.js"
import * as AccessLog from "./AccessLog.js"
import * as ApiError from "./ApiError.js"
import * as Authentication from "./Authentication.js"
import { BodyLimit } from "./BodyLimit.js"
import * as FastLane from "./FastLane.js"
import * as Intake from "./Intake.js"
import * as Console from "./Console.js"
import * as Root from "./Root.js"
import { fromRequestError } from "./internal/body.js"
import * as Routes from "./internal/routes.js"
import * as Strict from "./internal/strict.js"
import * as Validation from "./internal/validation.js"

const isRequestError = (u: unknown): u is HttpServerError.RequestError =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "RequestError"

const isMultipartError = (u: unknown): u is { readonly reason: string } =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "MultipartError"

/** A body that the platform could not parse as multipart never answers 500; past the route's limit it is 413. */
const fromMultipartError = (e: { readonly reason: string }) =>
  Effect.map(HttpIncomingMessage.MaxBodySize, (max) =>
    ["FileTooLarge", "FieldTooLarge", "BodyTooLarge", "TooManyParts"].includes(e.reason)
      ? new ApiError.PayloadTooLarge({ limitBytes: Option.match(max, { onNone: () => BodyLimit.DEFAULT, onSome: Number }) })
      : Errors.ValidationFailed.of("body", "is not valid multipart/form-data")
  )

/** The error model for everything the handlers did not answer themselves. */
const errorModel = (app: HttpApp.Default): HttpApp.Default<any> =>
  app.pipe(
    Effect.catchIf(
      (e: unknown): e is { _tag: string } => typeof e === "object" && e !== null && "_tag" in e,
      (e: any) => {
        switch (e._tag) {
          case "HttpApiDecodeError":
            return Effect.fail(Validation.fromDecodeError(e))
          case "ValidationFailed":
            return Effect.fail(Validation.capped(e))
          case "RouteNotFound":
            return Effect.fail(new ApiError.RouteNotFound({ method: e.request.method, path: e.request.url.split("?")[0] }))
          case "RequestError":
            return Effect.fail(fromRequestError(e))
          default:
            return Effect.fail(e)
        }
      }
    ),
    Effect.catchAllDefect(
      (defect): Effect.Effect<never, ApiError.PayloadTooLarge | Errors.ValidationFailed | ApiError.InternalError> =>
        isRequestError(defect)
          ? Effect.fail(fromRequestError(defect))
          : isMultipartError(defect)
            ? Effect.flatMap(fromMultipartError(defect), (e) => Effect.fail(e))
            : Effect.zipRight(Effect.logError("unhandled defect", Cause.die(defect)), Effect.fail(new ApiError.InternalError()))
    )
  )

/**
 * Before the router: a path with a trailing slash or an empty segment answers 404, and a query
 * on a route that declares no URL parameters 400 (`internal/strict.ts`).
 */
const routeTable = Routes.make(SwitchboardApi, Authentication.Authentication)
const refuseInexact = Strict.refuseInexact(routeTable)

/**
 * Handlers and authentication (also provided, for the intake), needing the domain's ports.
 * The operator webhook route stores by group commit (`InboxIntake`, also provided: the fast
 * lane's webhook route shares it), one writer per server; the hosted flow endpoint keeps its
 * parsed screens per server (`FlowEndpoint.Screens`, also provided: the lane's flow endpoint shares them).
 */
export const layerApi = HttpApiBuilder.api(SwitchboardApi).pipe(
  Layer.provide(Handlers),
  Layer.provideMerge(FlowEndpoint.layerScreens),
  Layer.provideMerge(InboxIntake.layer),
  Layer.provideMerge(Authentication.layer),
  Layer.provide(HttpApiBuilder.middleware(SwitchboardApi, ((app: HttpApp.Default) => refuseInexact(errorModel(app))) as any))
)

/** Docs page, OpenAPI document, and `/` pointing to them. */
const layerDocs = Layer.mergeAll(HttpApiBuilder.middlewareOpenApi({ path: "/chat/openapi.json" }), HttpApiScalar.layer({ path: "/docs" }), Root.layer)

/** The docs, and the console at `/console` when its files are given. */
const layerPages = (consoleFiles: Console.ConsoleFiles | undefined) => Layer.merge(layerDocs, Console.layer(consoleFiles))

/**
 * Serves the API on the `HttpServer` in context, and provides the `FastLane` of its hot
 * routes for a server to offer its requests to first (`FastLane.ts`; `pageCache: false` keeps
 * no pages). Per-request tracing spans are off (they cost more than the request on the hot
 * path); set `tracing: true` to keep them (the fast lane does not trace: a server that traces
 * does not install it). Every answered request is counted and logged (`AccessLog`); the
 * fast lane's server reports its own with `AccessLog.served`.
 */
export const layerServer = (
  options: { readonly tracing?: boolean; readonly pageCache?: boolean; readonly console?: Console.ConsoleFiles | undefined } = {}
) => {
  const served = HttpApiBuilder.serve((app) => AccessLog.middleware(Intake.middleware(app))).pipe(Layer.provide(layerPages(options.console)))
  return Layer.mergeAll(
    options.tracing ? served : HttpMiddleware.withTracerDisabledWhen(served, () => true),
    FastLane.layer(HotRoutes, RawRoutes, { pageCache: options.pageCache ?? true, routeOf: (path, method) => routeTable.match(method, path)?.path }),
    AccessLog.layer
  ).pipe(Layer.provide(layerApi))
}

/**
 * What the API's handlers need from the application: the domain's ports (a store's `layer`
 * provides the storage ones, `OperatorClient.layer` the operator's (flow crypto included),
 * `Outbound.layer` the calls to callers' URLs: webhook deliveries, feed files, flow data
 * exchanges) and `Readiness`.
 */
export type Requirements = Layer.Layer.Context<typeof layerApi>

/**
 * A web-standard handler (Request -> Response) for embedding in another server, with the
 * same intake (authentication before the body, body limits, idempotency) as `layerServer`.
 * `dependencies` must provide every one of `Requirements` (the compiler names any missing).
 * `dispose` releases the layers (database connections, pools).
 */
export const toWebHandler = (dependencies: Layer.Layer<Requirements>) =>
  HttpApiBuilder.toWebHandler(
    Layer.mergeAll(layerDocs, HttpServer.layerContext).pipe(Layer.provideMerge(layerApi), Layer.provideMerge(dependencies)) as any,
    { middleware: ((app: HttpApp.Default) => AccessLog.middleware(Intake.middleware(app))) as any }
  )

export { HttpServerResponse }
export type { ConsoleFiles } from "./Console.js"
