/**
 * Every request to the operator, counted and timed (`Telemetry.operatorRequests` and
 * `operatorRequestDuration`, by edge, outcome and operator error code), and, for requests
 * that run as effects, one span each ("operator POST messages"). The paced sends of a
 * campaign run without a fiber: they are counted and timed here, without a span.
 *
 * A 2xx answer is counted `ok` without reading its body again; only a refusal is classified
 * (`classify`, the same rules the client applies) for its outcome and code.
 */
import { Telemetry } from "@switchboard/domain"
import { Effect } from "effect"
import type * as GraphTransport from "../GraphTransport.js"
import { classify } from "./graph.js"

const VERSION = /^v\d+(\.\d+)?$/
const ID = /^\d+$|^[A-Za-z]+_\d/

/** The Graph API edge a URL names: its last segment that is not an id (`messages`, `message_templates`), `node` for a bare id, `emulator` for the emulator's control routes. */
export const edgeOf = (url: string): string => {
  const start = url.indexOf("/", url.indexOf("://") + 3)
  const end = url.indexOf("?")
  const segments = (start === -1 ? "" : url.slice(start + 1, end === -1 ? undefined : end)).split("/").filter((s) => s !== "")
  if (segments[0] === "_emulator") return "emulator"
  const last = segments.at(-1)
  if (last === undefined || VERSION.test(last)) return "root"
  return ID.test(last) ? "node" : last
}

/** Edges by URL (a campaign sends to a few URLs many times); emptied when it grows past a bound. */
const edges = new Map<string, string>()
const cachedEdge = (url: string): string => {
  let edge = edges.get(url)
  if (edge === undefined) {
    if (edges.size >= 1000) edges.clear()
    edge = edgeOf(url)
    edges.set(url, edge)
  }
  return edge
}

const byEdge = Telemetry.labelSets(["edge", "outcome", "code"])

/** Records one request's outcome and duration. */
export const observe = (url: string, startedMs: number, result: GraphTransport.Answer | GraphTransport.TransportError): void => {
  let outcome = "ok"
  let code = ""
  if ("_tag" in result) outcome = "unreachable"
  else if (result.status < 200 || result.status >= 300) {
    const failure = classify(result.status, result.headers, result.text)
    if (failure._tag === "Left") {
      const f = failure.left
      outcome = f._tag === "RateLimited" ? "rate_limited" : f._tag === "Unreachable" ? "unreachable" : "refused"
      const c = f._tag === "Refused" ? f.error.code : f.code
      code = c === undefined ? "" : String(c)
    }
  }
  const tags = byEdge([cachedEdge(url), outcome, code])
  Telemetry.record(Telemetry.operatorRequests, 1, tags)
  Telemetry.record(Telemetry.operatorRequestDuration, (performance.now() - startedMs) / 1000, tags)
}

/** `transport` with every request observed, and a span per request that runs as an effect. */
export const instrument = (transport: GraphTransport.GraphTransport["Type"]): GraphTransport.GraphTransport["Type"] => ({
  request: (request, timeoutMs) =>
    Effect.suspend(() => {
      const started = performance.now()
      return transport.request(request, timeoutMs).pipe(
        Effect.tapBoth({
          onFailure: (error) => Effect.sync(() => observe(request.url, started, error)),
          onSuccess: (answer) => Effect.sync(() => observe(request.url, started, answer))
        })
      )
    }).pipe(
      Effect.withSpan(`operator ${request.method} ${cachedEdge(request.url)}`, {
        kind: "client",
        attributes: { "http.request.method": request.method, "switchboard.operator.edge": cachedEdge(request.url) }
      })
    ),
  send: (request, timeoutMs, done) => {
    const started = performance.now()
    transport.send(request, timeoutMs, (result) => {
      observe(request.url, started, result)
      done(result)
    })
  }
})
