/**
 * The API a module's handlers are built against: its own group under the API's name, with
 * the errors every route may answer. `HttpApiBuilder.group` registers the handlers by API
 * name and group name, and the served app encodes errors with the whole `SwitchboardApi`,
 * so handlers need not import `Api.ts`; that lets `Api.ts` list groups and handlers in one
 * place without an import cycle.
 */
import { HttpApi, type HttpApiGroup, HttpApiSchema, HttpServerResponse } from "@effect/platform"
import type { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { trusted } from "./encode.js"
import { strictGroup } from "./strict.js"

/** The errors that any route may answer, declared once on the API as a whole. */
export const withApiErrors = <Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(api: HttpApi.HttpApi<"switchboard", Groups, E, R>) =>
  api
    .addError(ApiError.ValidationFailed)
    .addError(ApiError.Unauthorized)
    .addError(ApiError.NoRoute)
    .addError(ApiError.TooLarge)
    .addError(ApiError.UnsupportedType)
    .addError(ApiError.Internal)

/**
 * `group` as a one-group API, for `HttpApiBuilder.group(apiOf(XGroup), "x", ...)`. The
 * handlers decode with its endpoints, whose URL parameters refuse names they do not declare
 * (`strict.ts`).
 */
export const apiOf = <G extends HttpApiGroup.HttpApiGroup.Any>(group: G) => withApiErrors(HttpApi.make("switchboard").add(strictGroup(group)))

/**
 * The answer of a hot route (a list page), rendered as `schema` renders it, with the status
 * its annotation gives, by the trusted encoder (`encode.ts`): the handler answers a response
 * that the API does not encode again. The route keeps declaring `schema` as its success.
 */
export const respond = <A, I, R>(schema: Schema.Schema<A, I, R>): ((a: A) => HttpServerResponse.HttpServerResponse) => {
  const encode = trusted(schema)
  const status = HttpApiSchema.getStatusSuccess(schema)
  return (a) => HttpServerResponse.unsafeJson(encode(a), { status })
}

/**
 * `respond` with a hand-written renderer: `render` writes the JSON text of `schema`'s encoding
 * itself (it must answer what `JSON.stringify(Schema.encode(schema)(a))` does, proven by a
 * test), for the hottest answers. The route keeps declaring `schema` as its success.
 */
export const respondRendered = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  render: (a: A) => string
): ((a: A) => HttpServerResponse.HttpServerResponse) => {
  const status = HttpApiSchema.getStatusSuccess(schema)
  return (a) => HttpServerResponse.text(render(a), { status, contentType: "application/json" })
}
