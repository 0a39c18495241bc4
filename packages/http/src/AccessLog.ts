/**
 * Every answered request, on both paths (the platform's pipeline and the fast lane): counted
 * and timed (`Telemetry.httpRequests` and `httpRequestDuration`, by route template, method and
 * status) and written as one INFO access line (method, route template, status, duration,
 * store, request id). The request id is the caller's `X-Request-Id` when it sends a usable one
 * (64 characters at most of letters, digits and `-_.:`), else one made here.
 *
 * `served` costs the hot path a few map lookups and an array push: lines are queued and
 * written by one fiber (`layer`) every `FLUSH_MS`, and the queue is flushed when the layer
 * closes (after the server has drained). Without `layer`, or with the log level above INFO,
 * no line is queued; the metrics are always recorded.
 */
import { HttpServerError, HttpServerRequest, type HttpApp } from "@effect/platform"
import { Telemetry } from "@switchboard/domain"
import { Duration, Effect, FiberRef, Layer, LogLevel, Schedule } from "effect"

export interface Served {
  readonly method: string
  /** The route template (`/chat/campaigns/:id`), a known page (`/docs`), or `unmatched`. */
  readonly route: string
  readonly status: number
  readonly durationMs: number
  readonly store: string | undefined
  /** The request's `X-Request-Id` header (the id is chosen when the line is written). */
  readonly requestIdHeader: string | ReadonlyArray<string> | undefined
}

/** How often queued access lines are written. */
export const FLUSH_MS = 100
/** Lines kept waiting at most (a flood beyond it is counted, not logged). */
const MAX_QUEUED = 50_000

/** Paths outside the API that are named as themselves; every other unknown path is `unmatched` (the label stays bounded). */
const KNOWN = new Set(["/", "/docs", "/chat/openapi.json", "/metrics", "/console"])

/** The route label of a path the API's router does not know. */
export const unmatched = (url: string): string => {
  const at = url.indexOf("?")
  const path = at === -1 ? url : url.slice(0, at)
  return KNOWN.has(path) ? path : "unmatched"
}

const prefix = Math.floor(Math.random() * 0xffffff)
  .toString(16)
  .padStart(6, "0")
let sequence = 0
const USABLE_ID = /^[\w.:-]{1,64}$/

/** The caller's request id when usable, else a new one (`req_<process>_<n>`). */
export const requestIdOf = (header: string | ReadonlyArray<string> | undefined): string =>
  typeof header === "string" && USABLE_ID.test(header) ? header : `req_${prefix}_${(++sequence).toString(36)}`

const queue: Array<Served> = []
let logging = false

const byRoute = Telemetry.labelSets(["route", "method", "status"])

/** Records one answered request: its metrics now, its access line on the next flush. */
export const served = (entry: Served): void => {
  const tags = byRoute([entry.route, entry.method, String(entry.status)])
  Telemetry.record(Telemetry.httpRequests, 1, tags)
  Telemetry.record(Telemetry.httpRequestDuration, entry.durationMs / 1000, tags)
  if (logging && queue.length < MAX_QUEUED) queue.push(entry)
}

const lineOf = (e: Served) =>
  Effect.logInfo(`${e.method} ${e.route} ${e.status}`).pipe(
    Effect.annotateLogs({
      method: e.method,
      route: e.route,
      status: e.status,
      duration_ms: Math.round(e.durationMs * 10) / 10,
      store: e.store ?? "-",
      request_id: requestIdOf(e.requestIdHeader)
    })
  )

const flush = Effect.suspend(() => {
  if (queue.length === 0) return Effect.void
  const lines = queue.splice(0, queue.length)
  return Effect.forEach(lines, lineOf, { discard: true })
})

/** Writes the queued access lines while it lives (when INFO is logged), and the rest when it closes. */
export const layer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const level = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
    if (LogLevel.greaterThan(level, LogLevel.Info)) return
    logging = true
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Effect.sync(() => {
          logging = false
        }),
        flush
      )
    )
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.millis(FLUSH_MS))))
  })
)

/** What the intake learned of a request (its route template and caller), for its access line. */
const notes = new WeakMap<object, { readonly route: string; store: string | undefined }>()

/** Called by the intake once it matched the route (and again once it knows the caller). */
export const note = (request: object, route: string, store: string | undefined): void => {
  notes.set(request, { route, store })
}

/** The platform path's middleware (outermost): times the request and records it once answered. */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const started = performance.now()
    return Effect.onExit(app, (exit) =>
      Effect.sync(() => {
        const status = exit._tag === "Success" ? exit.value.status : HttpServerError.causeResponseStripped(exit.cause)[0].status
        const known = notes.get(request)
        served({
          method: request.method,
          route: known?.route ?? unmatched(request.url),
          status,
          durationMs: performance.now() - started,
          store: known?.store,
          requestIdHeader: request.headers["x-request-id"]
        })
      })
    )
  })
