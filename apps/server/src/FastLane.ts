/**
 * Offers each request to the API's fast lane (`@switchboard/http` `FastLane`) before the
 * platform's handler sees it: a hot route's success is written here, straight to Node's
 * response; every other request, and every one the lane declines, is handed to the
 * platform's `request` listener unchanged. For a raw POST route (a signed webhook, the hosted
 * flow data endpoint) whose body declares its length within the route's limit, in a media type
 * the route takes, the body is read here and the lane answers whatever the outcome (a body
 * that stops arriving for 10 s: 408, then closed).
 *
 * `GET /metrics` is answered here too (`Metrics.ts`), before the lane. Each request the lane
 * answers is reported to `AccessLog.served` (its metrics and access line), as the platform's
 * pipeline reports the others: no request is counted twice or left out.
 */
import { AccessLog, FastLane } from "@switchboard/http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { isMetrics, type MetricsEndpoint } from "./Metrics.js"

const hasBody = (req: IncomingMessage): boolean => {
  const length = req.headers["content-length"]
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined
}

/** The declared length of a body that is not chunked, or undefined. */
const declaredLength = (req: IncomingMessage): number | undefined => {
  if (req.headers["transfer-encoding"] !== undefined) return undefined
  const length = Number(req.headers["content-length"] ?? "0")
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

/** Whether `route` takes a body of `contentType` (none counts as JSON); another goes the usual way, which answers 415. */
const takes = (route: FastLane.RawRoute<never>, contentType: string | undefined): boolean =>
  route.accepts === undefined ||
  route.accepts.includes(contentType === undefined ? "application/json" : contentType.split(";")[0].trim().toLowerCase())

/** Reads the body; `stalled` when no byte came for `FastLane.BODY_IDLE_MS_RAW` (the rest is then discarded). */
const readBody = (req: IncomingMessage, done: (body: Uint8Array) => void, stalled: () => void): void => {
  const chunks: Array<Buffer> = []
  const onData = (chunk: Buffer) => {
    chunks.push(chunk)
    timer.refresh()
  }
  const onEnd = () => {
    clearTimeout(timer)
    done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
  }
  const timer = setTimeout(() => {
    req.off("data", onData)
    req.off("end", onEnd)
    chunks.length = 0
    req.on("error", () => undefined)
    req.resume()
    stalled()
  }, FastLane.BODY_IDLE_MS_RAW)
  req.on("data", onData)
  req.on("end", onEnd)
  // an aborted request has no one to answer: its socket is gone
  req.on("close", () => clearTimeout(timer))
}

/** Writes the lane's answer, and reports it (`route`: the hot route's template). */
const write = (
  req: IncomingMessage,
  res: ServerResponse,
  started: number,
  route: string,
  answer: FastLane.Answer,
  store?: string,
  close = false
): void => {
  res.writeHead(answer.status, {
    "content-type": answer.contentType,
    "content-length": answer.body.length,
    ...(close ? { connection: "close" } : {})
  })
  res.end(answer.body)
  AccessLog.served({
    method: req.method ?? "",
    route,
    status: answer.status,
    durationMs: performance.now() - started,
    store,
    requestIdHeader: req.headers["x-request-id"]
  })
}

const pathOf = (url: string): string => {
  const at = url.indexOf("?")
  return at === -1 ? url : url.slice(0, at)
}

/** Answers `/metrics` with `metrics`, and routes `server`'s other requests through `lane` first (when there is one). */
export const install = (
  server: Server,
  options: { readonly lane?: FastLane.FastLane["Type"] | undefined; readonly metrics?: MetricsEndpoint["Type"] | undefined }
): void => {
  const { lane, metrics } = options
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event !== "request") return emit(event, ...args)
    const req = args[0] as IncomingMessage
    const res = args[1] as ServerResponse
    const started = performance.now()
    if (metrics !== undefined && isMetrics(req.url)) {
      res.once("finish", () =>
        AccessLog.served({
          method: req.method ?? "",
          route: "/metrics",
          status: res.statusCode,
          durationMs: performance.now() - started,
          store: undefined,
          requestIdHeader: req.headers["x-request-id"]
        })
      )
      metrics.handle(req, res)
      return true
    }
    if (lane === undefined) return emit(event, ...args)
    if (req.method === "POST") {
      const route = lane.rawRoute(req.url ?? "")
      const length = route === undefined ? undefined : declaredLength(req)
      if (route === undefined || length === undefined || length > route.limitBytes || !takes(route, req.headers["content-type"]))
        return emit(event, ...args)
      readBody(
        req,
        (body) => {
          const header = (name: string) => {
            const value = req.headers[name]
            return Array.isArray(value) ? value.join(", ") : value
          }
          lane.serveRaw(route, body, req.headers["content-type"], header, (answer) => write(req, res, started, route.path, answer))
        },
        () => write(req, res, started, route.path, FastLane.bodyStalled, undefined, true)
      )
      return true
    }
    const request = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, hasBody: hasBody(req) }
    const taken = lane.serve(request, (answer, store, route) => {
      if (answer === undefined) {
        emit("request", req, res)
        return
      }
      write(req, res, started, route ?? pathOf(request.url), answer, store)
    })
    return taken || emit("request", req, res)
  }) as Server["emit"]
}
