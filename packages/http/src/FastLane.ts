/**
 * The fast lane: the hot read routes (list pages) answered without the platform's
 * per-request pipeline. A served request costs the platform a router, a chain of
 * middleware, several copies of a context of some seventy services and a fiber per stage:
 * about half of a list page's CPU. The server offers each request to `serve` first.
 *
 * A hot route is an authenticated GET whose handler renders its answer as bytes (`respond`):
 * a list, or one resource (`/chat/templates/:name`). The lane takes only its success path, on
 * a request that the usual path would answer the same way:
 * - the key is in `ApiKeys`' cache (`cached`), the URL parameters decode with the route's own
 *   schema, normalized as the platform normalizes them, the path is one the router gives to
 *   the route (no encoded character, no empty segment, no literal route of the same shape
 *   before it) and its parameters decode with the route's path schema, and the handler
 *   succeeds with bytes (a resource that is not there goes the usual way, which answers 404);
 * - anything else (no key or an unknown one, a bad parameter, a failure, a defect, a HEAD, a
 *   body) is declined, and the request goes the usual way, which renders the answer (the
 *   401, the 400...) exactly as before. Hot routes only read, so running one again is safe.
 *
 * A raw POST route (`raw`: a signed webhook, no API key, its body read as bytes; `rawJson`: a
 * JSON payload and path parameters, the hosted flow data endpoint, `internal/rawRoutes.ts`)
 * is taken when it declares its length within the route's limit, is not chunked, has no
 * query, is of a media type the route takes and, with path parameters, is a path the router
 * gives to the route (as for a GET); the server reads the body (a body that stops arriving
 * for `BODY_IDLE_MS_RAW` is answered `bodyStalled`, 408, and the connection closed), and the
 * lane then answers every outcome itself, as the usual path renders it (the success, the
 * route's own refusal, a body nested too deep, a payload that does not decode, a defect); a
 * route's `direct` may answer its success without a fiber, and hands every other request to `handle`.
 *
 * Where the store provides a `DataVersion` (SQLite), the lane keeps each page it rendered
 * with the version read before rendering it, and answers it again while the version is the
 * same, that is while no write has committed anywhere since: never a stale page. Pages are
 * keyed by the caller's store and mode and the whole URL (`PAGES` and `PAGE_BYTES` at most).
 * A hot route's answer must therefore depend only on stored data and the request, not on
 * the clock.
 */
import { HttpApiBuilder, type HttpApiEndpoint, type HttpApiGroup, HttpApiSchema, HttpServerResponse } from "@effect/platform"
import { DataVersion, Tenant } from "@switchboard/domain"
import { Context, Effect, Either, Exit, Layer, Option, Runtime, Schema } from "effect"
import * as ApiError from "./ApiError.js"
import { ApiKeys } from "./Authentication.js"
import { trusted } from "./internal/encode.js"
import { type Answer, answerOf, type RawRoute, refuse, type ServeRaw } from "./internal/rawRoutes.js"
import { BODY_IDLE_MS } from "./internal/requestBody.js"
import { strict } from "./internal/strict.js"

export { type Answer, type RawRoute, raw, rawJson, type ServeRaw } from "./internal/rawRoutes.js"

/**
 * Runs an effect in `runtime` and hands its exit to `onExit`: at once when its fiber, started
 * at once (`Runtime.runFork`), completes without waiting (a read that SQLite answers
 * synchronously, a page rendered), else when the fiber, which goes on where it waited, ends.
 * The same effect in the same runtime as `Runtime.runCallback`, only not deferred to the
 * scheduler's next turn; unlike `Runtime.runSyncExit`, no scheduler of its own per run and
 * no exception made for an effect that waits (a read on PostgreSQL).
 */
const runAtOnce = <R>(runtime: Runtime.Runtime<R>) => {
  const fork = Runtime.runFork(runtime)
  return <A, E>(effect: Effect.Effect<A, E, R>, onExit: (exit: Exit.Exit<A, E>) => void): void => {
    const fiber = fork(effect)
    const exit = fiber.unsafePoll()
    if (exit === null) fiber.addObserver(onExit)
    else onExit(exit)
  }
}

/** What the lane reads of a request. */
export interface Request {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  /** True when the request carries a body (a content length or a transfer encoding). */
  readonly hasBody: boolean
}

const encoder = new TextEncoder()

export declare namespace HotRoute {
  /** The services a hot route's handler needs. */
  export type Context<H> = H extends HotRoute<infer R> ? R : never
}

/** A hot route, declared next to the group's handlers with the same handler (`get`). */
export interface HotRoute<R> {
  /** The route's template (`/chat/templates/:name`): its label in the access log and the metrics. */
  readonly path: string
  /** The template's segments: a literal, or undefined for a `:param`. */
  readonly segments: ReadonlyArray<string | undefined>
  /** The answer, or undefined when the handler answered something the lane does not write. */
  readonly handle: (urlParams: unknown, path: unknown) => Effect.Effect<Answer | undefined, unknown, R>
  readonly decode: (params: Record<string, string | Array<string>>) => Either.Either<unknown, unknown>
  /** The path parameters (the values of the `:param` segments, in order), decoded by the route's path schema. */
  readonly decodePath: (values: ReadonlyArray<string>) => Either.Either<unknown, unknown>
}

/** The platform's own normalization of URL parameters (a key the schema reads as a list becomes one); exported, but left out of its types. */
const normalizeUrlParams = (
  HttpApiBuilder as unknown as {
    readonly normalizeUrlParams: (
      params: Record<string, string | Array<string>>,
      ast: Schema.Schema.Any["ast"]
    ) => Record<string, string | Array<string>>
  }
).normalizeUrlParams

/**
 * The endpoint `name` of `group` as a hot route answered by `handle` (what the group's own
 * handler answers): a value of the endpoint's success, which the lane renders with the
 * trusted encoder (`Schema.encode`'s output), or with `render` when the group's handler
 * renders it so (`respondRendered(success, render)`), or a response rendered by `respond`.
 */
export const get = <
  G extends HttpApiGroup.HttpApiGroup.Any,
  Name extends HttpApiEndpoint.HttpApiEndpoint.Name<HttpApiGroup.HttpApiGroup.Endpoints<G>>,
  R
>(
  group: G,
  name: Name,
  handle: (input: {
    readonly urlParams: HttpApiEndpoint.HttpApiEndpoint.UrlParams<
      HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<G>, Name>
    >
    readonly path: HttpApiEndpoint.HttpApiEndpoint.PathParsed<HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<G>, Name>>
  }) => Effect.Effect<
    | HttpServerResponse.HttpServerResponse
    | HttpApiEndpoint.HttpApiEndpoint.Success<HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<G>, Name>>,
    unknown,
    R
  >,
  render?: (
    value: HttpApiEndpoint.HttpApiEndpoint.Success<HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<G>, Name>>
  ) => string
): HotRoute<R> => {
  const endpoint = (group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints[name] as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  if (endpoint === undefined || endpoint.method !== "GET") throw new Error(`${name} is not a GET route`)
  const segments = endpoint.path.split("/").map((s) => (s.startsWith(":") ? undefined : s))
  const names = endpoint.path
    .split("/")
    .filter((s) => s.startsWith(":"))
    .map((s) => s.slice(1))
  const pathSchema = Option.getOrUndefined(endpoint.pathSchema) as Schema.Schema<unknown, unknown> | undefined
  if (names.length > 0 !== (pathSchema !== undefined)) throw new Error(`${name}: its path parameters and its path schema differ`)
  const decodePathParams = pathSchema === undefined ? undefined : Schema.decodeUnknownEither(pathSchema)
  // as strict as the route's handler (`apiOf`): an unknown parameter is declined, and refused the usual way
  const schema = Option.getOrUndefined(Option.map(endpoint.urlParamsSchema, strict)) as Schema.Schema<unknown, unknown> | undefined
  const decode = schema === undefined ? (_: unknown) => Either.right({}) : Schema.decodeUnknownEither(schema)
  const success = endpoint.successSchema as Schema.Schema<unknown, unknown>
  const encode = trusted(success)
  const status = HttpApiSchema.getStatusSuccess(success)
  const text = (value: unknown): string => (render === undefined ? JSON.stringify(encode(value)) : render(value as never))
  return {
    path: endpoint.path,
    segments,
    handle: (urlParams, path) =>
      Effect.map(handle({ urlParams, path } as never), (value) =>
        HttpServerResponse.isServerResponse(value) ? answerOf(value) : { status, contentType: "application/json", body: encoder.encode(text(value)) }
      ),
    decode: (params) => (schema === undefined ? Either.right({}) : decode(normalizeUrlParams(params, schema.ast))),
    decodePath: (values) => {
      if (decodePathParams === undefined) return Either.right({})
      const params: Record<string, string> = {}
      for (let i = 0; i < names.length; i++) params[names[i]] = values[i]
      return decodePathParams(params)
    }
  }
}

/** How long a raw route's body may go without a byte (as on every route: `Intake`). */
export const BODY_IDLE_MS_RAW = BODY_IDLE_MS

/** The answer to a raw route's body that stopped arriving: 408 `request_timeout` (close the connection after it). */
export const bodyStalled: Answer = refuse(ApiError.RequestTimeout, new ApiError.BodyTimedOut({ idleSeconds: BODY_IDLE_MS / 1000 }))

export class FastLane extends Context.Tag("@switchboard/http/FastLane")<
  FastLane,
  {
    /** The raw POST route at `url`'s path, if it is one: the server reads the body, then calls `serveRaw`. */
    readonly rawRoute: (url: string) => RawRoute<never> | undefined
    /** Answers a raw POST route's request, every outcome. */
    readonly serveRaw: (
      route: RawRoute<never>,
      body: Uint8Array,
      contentType: string | undefined,
      header: (name: string) => string | undefined,
      done: (answer: Answer) => void
    ) => void
    /**
     * Offers a request to the lane: false when it is not a hot route (serve it the usual
     * way now); true when the lane took it, and then `done` is called once, with the answer,
     * or with undefined when the request must be served the usual way after all (and the
     * caller's store and the route's template, for the access line).
     */
    readonly serve: (request: Request, done: (answer: Answer | undefined, store?: string, route?: string) => void) => boolean
  }
>() {}

/** The URL parameters as the platform reads them (a repeated key becomes a list). */
const paramsOf = (search: URLSearchParams): Record<string, string | Array<string>> => {
  const out: Record<string, string | Array<string>> = {}
  for (const [key, value] of search) {
    const entry = out[key]
    out[key] = entry === undefined ? value : Array.isArray(entry) ? [...entry, value] : [entry, value]
  }
  return out
}

/** The services a raw route's handler needs. */
type RawContext<H> = H extends RawRoute<infer R> ? R : never

/** Pages kept at most, and their bytes at most, the oldest dropped first. */
const PAGES = 1000
const PAGE_BYTES = 32 * 1024 * 1024

/** Rendered pages, each valid for one data version. */
const pageCache = () => {
  const pages = new Map<string, { readonly version: string; readonly answer: Answer }>()
  let bytes = 0
  const drop = (key: string) => {
    bytes -= pages.get(key)?.answer.body.length ?? 0
    pages.delete(key)
  }
  return {
    get: (key: string, version: string): Answer | undefined => {
      const page = pages.get(key)
      if (page === undefined) return undefined
      if (page.version === version) return page.answer
      drop(key)
      return undefined
    },
    set: (key: string, version: string, answer: Answer): void => {
      drop(key)
      while (pages.size > 0 && (pages.size >= PAGES || bytes + answer.body.length > PAGE_BYTES)) drop(pages.keys().next().value!)
      pages.set(key, { version, answer })
      bytes += answer.body.length
    }
  }
}

/** Decoded queries kept per hot route. */
const QUERIES = 256
/** Paths matched (and their parameters decoded) kept, each of `PATH_KEPT_CHARS` at most. */
const PATHS_KEPT = 1024
const PATH_KEPT_CHARS = 256
const noPathParams = Either.right({})

/** A path the lane leaves to the router: an encoded character, a `;` or a `#` (the router reads them its own way). */
const UNUSUAL = /[%;#]/

/** The values of the `:param` segments of `segments` in `parts` (a path split at `/`), or undefined when the path is not of that shape. */
const valuesOf = (segments: ReadonlyArray<string | undefined>, parts: ReadonlyArray<string>): Array<string> | undefined => {
  if (segments.length !== parts.length) return undefined
  const values: Array<string> = []
  for (let i = 0; i < segments.length; i++) {
    const literal = segments[i]
    if (literal === undefined) {
      if (parts[i].length === 0) return undefined
      values.push(parts[i])
    } else if (literal !== parts[i]) return undefined
  }
  return values
}

/**
 * The lane over `routes` and `rawRoutes`, running their handlers with the layer's services;
 * `pageCache: false` keeps no pages. `routeOf` answers the template of the route the API's
 * router takes for a path and method (`internal/routes.ts`): a route with path parameters is
 * taken only where the router would take it too (a literal route of the same shape wins there).
 */
export const layer = <Routes extends ReadonlyArray<HotRoute<any>>, Raws extends ReadonlyArray<RawRoute<any>>>(
  routes: Routes,
  rawRoutes: Raws,
  options: { readonly pageCache: boolean; readonly routeOf?: (path: string, method: string) => string | undefined } = { pageCache: true }
) =>
  Layer.effect(
    FastLane,
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<Exclude<HotRoute.Context<Routes[number]>, Tenant.CurrentStore> | RawContext<Raws[number]>>()
      const keys = yield* ApiKeys
      const dataVersion = options.pageCache ? Option.getOrUndefined(yield* Effect.serviceOption(DataVersion)) : undefined
      const cache = pageCache()
      /** Each route's decoded URL parameters by query text (decoding is pure and the values are never changed): the last `QUERIES` kept. */
      const queries = new Map<HotRoute<any>, Map<string, Either.Either<unknown, unknown>>>(routes.map((route) => [route, new Map()]))
      const decoded = (route: HotRoute<any>, query: string): Either.Either<unknown, unknown> => {
        const known = queries.get(route)!
        let params = known.get(query)
        if (params === undefined) {
          params = route.decode(query === "" ? {} : paramsOf(new URLSearchParams(query)))
          if (known.size >= QUERIES) known.delete(known.keys().next().value!)
          known.set(query, params)
        }
        return params
      }
      const run = runAtOnce(runtime)
      /**
       * A runner per caller whose context already holds the caller (`Tenant.CurrentStore`): what
       * `Effect.provideService` gives each request, without copying the context's seventy-odd
       * services per request. Kept while `ApiKeys` keeps the caller (its cache entry).
       */
      const runners = new WeakMap<Tenant.Caller, typeof run>()
      const runAs = (caller: Tenant.Caller): typeof run => {
        let runner = runners.get(caller)
        if (runner === undefined) {
          runner = runAtOnce(
            Runtime.make({
              context: Context.add(runtime.context, Tenant.CurrentStore, caller),
              fiberRefs: runtime.fiberRefs,
              runtimeFlags: runtime.runtimeFlags
            })
          ) as typeof run
          runners.set(caller, runner)
        }
        return runner
      }
      /** A hot route named by a path, with its path parameters decoded (by the route's path schema). */
      type Matched = { readonly route: HotRoute<any>; readonly pathParams: Either.Either<unknown, unknown> }
      const byPath = new Map<string, Matched>(
        routes.filter((route) => !route.segments.includes(undefined)).map((route) => [route.path, { route, pathParams: noPathParams }])
      )
      const withParams = routes.filter((route) => route.segments.includes(undefined))
      /** The hot route with path parameters that `path` names, where the router takes it too. */
      const matchParams = (path: string): Matched | undefined => {
        if (withParams.length === 0 || UNUSUAL.test(path)) return undefined
        const parts = path.split("/")
        for (const route of withParams) {
          const values = valuesOf(route.segments, parts)
          if (values !== undefined) return options.routeOf?.(path, "GET") === route.path ? { route, pathParams: route.decodePath(values) } : undefined
        }
        return undefined
      }
      /** `matchParams` by path (matching and decoding are pure, and the values are never changed): the last `PATHS_KEPT` kept. */
      const paths = new Map<string, Matched | null>()
      const matchedParams = (path: string): Matched | undefined => {
        let matched = paths.get(path)
        if (matched === undefined) {
          matched = matchParams(path) ?? null
          if (path.length > PATH_KEPT_CHARS) return matched ?? undefined
          if (paths.size >= PATHS_KEPT) paths.delete(paths.keys().next().value!)
          paths.set(path, matched)
        }
        return matched ?? undefined
      }
      const rawByPath = new Map(
        rawRoutes.filter((route) => route.segments?.includes(undefined) !== true).map((route) => [route.path, route as unknown as RawRoute<never>])
      )
      const usualRaw =
        (route: RawRoute<never>): ServeRaw =>
        (body, contentType, header, done) =>
          run(route.handle(body, contentType, header), (exit) =>
            done(Exit.isSuccess(exit) ? exit.value : refuse(ApiError.Internal, new ApiError.InternalError()))
          )
      /** Each route's way to serve: its `direct` path where it has one (a route without path parameters). */
      const serveRaw = new Map([...rawByPath.values()].map((route) => [route, route.direct?.(runtime as never, usualRaw(route)) ?? usualRaw(route)]))
      const rawWithParams = rawRoutes.filter((route) => route.segments?.includes(undefined) === true) as unknown as Array<RawRoute<never>>
      /** The raw route with path parameters that `path` names (where the router takes it), bound to the parameters' values. */
      const matchRaw = (path: string): RawRoute<never> | undefined => {
        if (rawWithParams.length === 0 || UNUSUAL.test(path)) return undefined
        const parts = path.split("/")
        for (const route of rawWithParams) {
          const values = valuesOf(route.segments!, parts)
          if (values === undefined) continue
          if (options.routeOf?.(path, "POST") !== route.path) return undefined
          return { ...route, handle: (body, contentType, header) => route.handle(body, contentType, header, values) }
        }
        return undefined
      }
      return FastLane.of({
        // a query goes the usual way, which refuses the parameters the route does not declare
        rawRoute: (url) => (url.includes("?") ? undefined : (rawByPath.get(url) ?? matchRaw(url))),
        serveRaw: (route, body, contentType, header, done) => (serveRaw.get(route) ?? usualRaw(route))(body, contentType, header, done),
        serve: (request, done) => {
          if (request.method !== "GET" || request.hasBody) return false
          const at = request.url.indexOf("?")
          const path = at === -1 ? request.url : request.url.slice(0, at)
          const matched = byPath.get(path) ?? matchedParams(path)
          if (matched === undefined) return false
          const { route, pathParams } = matched
          const caller = request.authorization?.startsWith("Bearer ") ? keys.cached(request.authorization.slice(7)) : undefined
          if (caller === undefined) return false
          const version = dataVersion?.current()
          const key = version === undefined ? undefined : `${caller.tenant.storeId} ${caller.tenant.mode} ${request.url}`
          const kept = key === undefined ? undefined : cache.get(key, version!)
          if (kept !== undefined) {
            done(kept, caller.tenant.storeId, route.path)
            return true
          }
          const urlParams = decoded(route, at === -1 ? "" : request.url.slice(at + 1))
          if (Either.isLeft(urlParams)) return false
          if (Either.isLeft(pathParams)) return false
          runAs(caller)(route.handle(urlParams.right, pathParams.right), (exit) => {
            const answer = Exit.isSuccess(exit) ? exit.value : undefined
            if (answer !== undefined && key !== undefined) cache.set(key, version!, answer)
            done(answer, caller.tenant.storeId, route.path)
          })
          return true
        }
      })
    })
  )
