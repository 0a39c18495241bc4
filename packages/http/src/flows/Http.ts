/** The handlers of the flow routes: each calls its use case, which answers the entity that the route's schema encodes. */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type FlowCrypto, FlowEndpoint, FlowPreview, FlowResponses, FlowSandbox, Flows, FlowStats } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import * as ApiError from "../ApiError.js"
import * as FastLane from "../FastLane.js"
import { rawBody } from "../internal/body.js"
import { apiOf } from "../internal/Handlers.js"
import { FlowsGroup, FlowsPublicGroup } from "./Api.js"

/** Where the caller reached this server (a proxy's forwarded host and scheme first). */
const baseUrl = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const host = request.headers["x-forwarded-host"] ?? request.headers.host ?? "127.0.0.1"
  const proto = request.headers["x-forwarded-proto"] ?? "http"
  return `${proto}://${host}`
})

const FlowsGroupLive = HttpApiBuilder.group(apiOf(FlowsGroup), "flows", (h) =>
  h
    .handle("list", ({ urlParams }) => Flows.list(urlParams))
    .handle("create", ({ payload }) => Flows.create(payload))
    .handle("get", ({ path }) => Flows.get(path.id))
    .handle("update", ({ path, payload }) => Flows.update(path.id, payload))
    .handle("remove", ({ path }) => Flows.remove(path.id))
    .handle("putJson", ({ path, payload }) => Flows.putJson(path.id, payload))
    .handle("getJson", ({ path }) => Flows.getJson(path.id))
    .handle("publish", ({ path, urlParams }) => Flows.publish(path.id, { deprecate_previous: urlParams.deprecate_previous ?? true }))
    .handle("deprecate", ({ path }) => Flows.deprecate(path.id))
    .handle("newVersion", ({ path }) => Flows.newVersion(path.id))
    .handle("versions", ({ path, urlParams }) => Flows.versions(path.id, urlParams))
    .handle("responses", ({ path, urlParams }) => FlowResponses.listForFlow(path.id, urlParams))
    .handle("putEndpoint", ({ path, payload }) => Effect.flatMap(baseUrl, (base) => FlowEndpoint.putEndpoint(path.id, payload, base)))
    .handle("preview", ({ path }) => Effect.flatMap(baseUrl, (base) => FlowPreview.preview(path.id, base)))
    .handle("stats", ({ path, urlParams }) => FlowStats.stats(path.id, urlParams))
    .handle("allResponses", ({ urlParams }) => FlowResponses.listAll(urlParams))
    .handle("sandboxResponse", ({ payload }) => FlowResponses.sandboxResponse(payload))
    .handle("sandboxDataExchange", ({ path, payload }) => FlowSandbox.dataExchange(path.id, payload))
)

const FlowsPublicLive = HttpApiBuilder.group(apiOf(FlowsPublicGroup), "flowsPublic", (h) =>
  h
    .handle("previewPage", ({ path, urlParams }) => FlowPreview.page(path.id, urlParams.expires, urlParams.signature))
    .handle("dataEndpoint", ({ path, payload, request }) =>
      Effect.flatMap(rawBody(request), (raw) => dataEndpoint(path.id, payload, raw, request.headers["x-hub-signature-256"]))
    )
)

/** The hosted data endpoint's answer: 200 text/plain (base64), or a refusal as JSON. */
const dataEndpoint = (id: string, payload: FlowCrypto.EncryptedRequest, raw: Uint8Array, signature: string | undefined) =>
  Effect.map(FlowEndpoint.handle(id, payload, raw, signature), (answer) =>
    HttpServerResponse.text(answer.body, { status: answer.status, contentType: answer.status === 200 ? "text/plain" : "application/json" })
  )

/**
 * The hosted data endpoint on the fast lane (`FastLane.rawJson`): a request whose body declares
 * its length is answered there, the same as `dataEndpoint` above answers it the usual way.
 */
export const FlowsRaw = [
  FastLane.rawJson(FlowsPublicGroup, "dataEndpoint", ApiError.ResourceNotFound, ({ path, payload, body, header }) =>
    dataEndpoint(path.id, payload, body, header("x-hub-signature-256"))
  )
]

/** Both flow groups, with the flows' cryptography (the caller's endpoint is reached through the `CallerEndpoint` the server assembles). */
export const FlowsLive = Layer.mergeAll(FlowsGroupLive, FlowsPublicLive)
