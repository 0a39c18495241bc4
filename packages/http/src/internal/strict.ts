/**
 * A request names exactly what it means, or is refused:
 * - A path with a trailing slash or an empty segment (`/chat/orders/`, `/chat/orders//items`)
 *   answers 404, as a path no route has (the router would trim the slash, or take the empty
 *   segment for a parameter), before any other check (`refuseInexact`).
 * - Unknown query parameters are refused, not ignored: `GET /chat/templates?name=x` answers
 *   400 `validation_failed` naming `name` instead of every template.
 * - A route that declares URL parameters refuses the names it does not declare by its own
 *   schema, made strict where it is decoded: by the handlers' group (`apiOf` in
 *   `Handlers.ts` applies `strictGroup`) and by the fast lane (`FastLane.get`).
 * - A route that declares none keeps no schema (the typed client calls it without an
 *   argument) and refuses any parameter in `refuseInexact`, which the server runs before the
 *   router, on the route table (`routes.ts`).
 */
import type { HttpApiEndpoint, HttpApiGroup, HttpApp } from "@effect/platform"
import { HttpServerRequest } from "@effect/platform"
import { Errors } from "@switchboard/domain"
import { Effect, Option, type Schema } from "effect"
import * as ApiError from "../ApiError.js"
import type { RouteTable } from "./routes.js"

const unknown = "is not a known field"

/** `schema`, refusing names it does not declare (400 `validation_failed`: "<name>: is not a known field"). */
export const strict = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as unknown as S

/** `group` with every endpoint's URL parameter schema strict (see above). */
export const strictGroup = <G extends HttpApiGroup.HttpApiGroup.Any>(group: G): G => {
  const g = group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps
  // `add` takes one endpoint and replaces the one of its name, keeping the group's order
  return Object.values(g.endpoints).reduce(
    (strictOne, endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps) =>
      Option.match(endpoint.urlParamsSchema, {
        onNone: () => strictOne,
        onSome: (schema) =>
          strictOne.add(
            endpoint.setUrlParams(strict(schema as Schema.Schema.Any) as never) as never
          ) as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps
      }),
    g
  ) as unknown as G
}

/** Whether `path` (no query) has a trailing slash or an empty segment. */
const hasEmptySegment = (path: string): boolean => path !== "/" && (path.endsWith("/") || path.includes("//"))

/**
 * `app`, answering 404 for a path with a trailing slash or an empty segment, and refusing a
 * query on a route of `routes` that declares no URL parameters.
 */
export const refuseInexact =
  (routes: RouteTable) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E | Errors.ValidationFailed | ApiError.RouteNotFound, R> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): HttpApp.Default<E | Errors.ValidationFailed | ApiError.RouteNotFound, R> => {
      const at = request.url.search(/[?#]/)
      const path = at === -1 ? request.url : request.url.slice(0, at)
      if (hasEmptySegment(path)) return Effect.fail(new ApiError.RouteNotFound({ method: request.method, path }))
      if (at === -1 || request.url[at] !== "?") return app
      const route = routes.match(request.method, request.url)
      if (route === undefined || route.declaresUrlParams) return app
      const name = new URLSearchParams(request.url.slice(at + 1)).keys().next().value
      return name === undefined ? app : Effect.fail(Errors.ValidationFailed.of(name, unknown))
    })
