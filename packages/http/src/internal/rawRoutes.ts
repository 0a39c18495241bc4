/**
 * The fast lane's raw POST routes (`FastLane.raw`, `FastLane.rawJson`): a request whose body
 * the server reads itself, answered in every outcome as the usual path renders it.
 *
 * - `raw`: a body read as bytes (a signed webhook), no payload schema, no path parameters.
 * - `rawJson`: a route with a JSON payload and path parameters (the hosted flow data
 *   endpoint). The lane does what the intake and the platform do before the handler, in their
 *   order: a body nested deeper than `MAX_JSON_DEPTH` is 400; an empty body is `{}`; the path
 *   parameters decode with the route's path schema; the body parses as JSON (400 "is not
 *   valid JSON" otherwise) and decodes with the route's payload schema (its 400
 *   `validation_failed`, worded by `validation.ts` as the error model words it). A media type
 *   the payload does not declare is left to the usual path (`accepts`), which answers 415.
 */
import { type HttpApiEndpoint, HttpApiError, type HttpApiGroup, HttpApiSchema, type HttpServerResponse } from "@effect/platform"
import { Errors } from "@switchboard/domain"
import { Context, Effect, Either, Option, type ParseResult, Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { BodyLimit } from "../BodyLimit.js"
import { capped, fromDecodeError, MAX_JSON_DEPTH, nestedDeeperThan } from "./validation.js"

/** The answer of a hot route. */
export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: Uint8Array
}

/** A hot raw POST route (`raw`, `rawJson`): its handler answers every outcome. */
export interface RawRoute<R> {
  /** The route's template (`/chat/flow-endpoint/:id`): its label in the access log and the metrics. */
  readonly path: string
  readonly limitBytes: number
  /** The template's segments: a literal, or undefined for a `:param` (undefined: a route without parameters). */
  readonly segments?: ReadonlyArray<string | undefined> | undefined
  /** The media types (lower case) the route takes; a request of another goes the usual way. Undefined: any. */
  readonly accepts?: ReadonlyArray<string> | undefined
  /** `path`: the values of the `:param` segments, in order (none on a route without parameters). */
  readonly handle: (
    body: Uint8Array,
    contentType: string | undefined,
    header: (name: string) => string | undefined,
    path?: ReadonlyArray<string>
  ) => Effect.Effect<Answer, never, R>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** `value` rendered by `schema` as JSON, with `status`. */
export const render = <A, I>(schema: Schema.Schema<A, I>, value: A, status: number): Answer => ({
  status,
  contentType: "application/json",
  body: encoder.encode(JSON.stringify(Schema.encodeSync(schema)(value)))
})

export const refuse = <E>(schema: Schema.Schema<E, ApiError.ErrorBody>, error: E): Answer =>
  render(schema, error, HttpApiSchema.getStatusError(schema))

const mediaTypeOf = (contentType: string | undefined): string =>
  contentType === undefined ? "application/json" : contentType.split(";")[0].trim().toLowerCase()

const tooDeep = () => refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", `is nested deeper than ${MAX_JSON_DEPTH} levels`))

const internal = () => refuse(ApiError.Internal, new ApiError.InternalError())

/** The endpoint `name` of `group`, which must be a POST. */
const postEndpoint = (group: HttpApiGroup.HttpApiGroup.Any, name: string): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  const endpoint = (group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints[name] as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  if (endpoint === undefined || endpoint.method !== "POST") throw new Error(`${name} is not a POST route`)
  return endpoint
}

const limitOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): number =>
  Option.getOrElse(Context.getOption(endpoint.annotations, BodyLimit), () => BodyLimit.DEFAULT)

/** An answer of `handle`, its failures rendered by `failure` and its defects as 500. */
const settled = <E, R>(effect: Effect.Effect<Answer, E, R>, failure: Schema.Schema<E, ApiError.ErrorBody>): Effect.Effect<Answer, never, R> =>
  effect.pipe(
    Effect.catchAll((error) => Effect.succeed(refuse(failure, error))),
    Effect.catchAllCause((cause) => Effect.as(Effect.logError("unhandled defect", cause), internal()))
  )

/**
 * The POST endpoint `name` of `group`, which reads its body raw, as a hot route: `handle`
 * gets the body and the request's headers, and fails only with what `failure` renders.
 */
export const raw = <G extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  group: G,
  name: HttpApiEndpoint.HttpApiEndpoint.Name<HttpApiGroup.HttpApiGroup.Endpoints<G>>,
  failure: Schema.Schema<E, ApiError.ErrorBody>,
  handle: (body: Uint8Array, header: (name: string) => string | undefined) => Effect.Effect<unknown, E, R>
): RawRoute<R> => {
  const endpoint = postEndpoint(group, name)
  if (Option.isSome(endpoint.payloadSchema) || endpoint.path.includes(":")) throw new Error(`${name} is not a raw POST route`)
  const success = endpoint.successSchema as Schema.Schema<unknown, unknown>
  const status = HttpApiSchema.getStatusSuccess(success)
  return {
    path: endpoint.path,
    limitBytes: limitOf(endpoint),
    handle: (body, contentType, header) => {
      if (mediaTypeOf(contentType) === "application/json" && nestedDeeperThan(body, MAX_JSON_DEPTH)) return Effect.succeed(tooDeep())
      return settled(
        Effect.map(handle(body, header), (value) => render(success, value, status)),
        failure
      )
    }
  }
}

type Endpoint<G extends HttpApiGroup.HttpApiGroup.Any, Name extends string> = HttpApiEndpoint.HttpApiEndpoint.WithName<
  HttpApiGroup.HttpApiGroup.Endpoints<G>,
  Name
>

const EMPTY_OBJECT = encoder.encode("{}")

/** The 400 of a payload or path that does not decode, worded as the error model words it. */
const undecoded = (error: ParseResult.ParseError): Answer =>
  refuse(ApiError.ValidationFailed, capped(fromDecodeError(Effect.runSync(HttpApiError.HttpApiDecodeError.fromParseError(error)))))

/**
 * The POST endpoint `name` of `group`, with a JSON payload and path parameters, as a hot raw
 * route: `handle` gets the decoded path and payload, the raw body (as the usual path reads
 * it: `{}` for an empty one) and the request's headers, answers the route's own response (a
 * `HttpServerResponse` whose body is bytes, as `HttpServerResponse.text` makes), and fails
 * only with what `failure` renders.
 */
export const rawJson = <
  G extends HttpApiGroup.HttpApiGroup.Any,
  Name extends HttpApiEndpoint.HttpApiEndpoint.Name<HttpApiGroup.HttpApiGroup.Endpoints<G>>,
  E,
  R
>(
  group: G,
  name: Name,
  failure: Schema.Schema<E, ApiError.ErrorBody>,
  handle: (input: {
    readonly path: HttpApiEndpoint.HttpApiEndpoint.PathParsed<Endpoint<G, Name>>
    readonly payload: HttpApiEndpoint.HttpApiEndpoint.Payload<Endpoint<G, Name>>
    readonly body: Uint8Array
    readonly header: (name: string) => string | undefined
  }) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): RawRoute<R> => {
  const endpoint = postEndpoint(group, name)
  const payloadSchema = Option.getOrUndefined(endpoint.payloadSchema) as Schema.Schema<unknown, unknown> | undefined
  const pathSchema = Option.getOrUndefined(endpoint.pathSchema) as Schema.Schema<unknown, unknown> | undefined
  if (payloadSchema === undefined || HttpApiSchema.getEncoding(payloadSchema.ast).kind !== "Json") throw new Error(`${name} has no JSON payload`)
  const segments = endpoint.path.split("/").map((s) => (s.startsWith(":") ? undefined : s))
  const names = endpoint.path
    .split("/")
    .filter((s) => s.startsWith(":"))
    .map((s) => s.slice(1))
  if (names.length > 0 !== (pathSchema !== undefined)) throw new Error(`${name}: its path parameters and its path schema differ`)
  const decodePath = pathSchema === undefined ? undefined : Schema.decodeUnknownEither(pathSchema)
  const decodePayload = Schema.decodeUnknownEither(payloadSchema)
  return {
    path: endpoint.path,
    limitBytes: limitOf(endpoint),
    segments,
    accepts: ["application/json"],
    handle: (received, _contentType, header, values = []) => {
      // the route takes only JSON (`accepts`): the intake's depth check, then no body is `{}`
      if (nestedDeeperThan(received, MAX_JSON_DEPTH)) return Effect.succeed(tooDeep())
      const body = received.length === 0 ? EMPTY_OBJECT : received
      let path: unknown = {}
      if (decodePath !== undefined) {
        const params: Record<string, string> = {}
        for (let i = 0; i < names.length; i++) params[names[i]] = values[i]
        const decoded = decodePath(params)
        if (Either.isLeft(decoded)) return Effect.succeed(undecoded(decoded.left))
        path = decoded.right
      }
      let json: unknown
      try {
        json = JSON.parse(decoder.decode(body))
      } catch {
        return Effect.succeed(refuse(ApiError.ValidationFailed, Errors.ValidationFailed.of("body", "is not valid JSON")))
      }
      const payload = decodePayload(json)
      if (Either.isLeft(payload)) return Effect.succeed(undecoded(payload.left))
      return settled(
        Effect.flatMap(handle({ path, payload: payload.right, body, header } as never), (response) => {
          const answer = answerOf(response)
          return answer === undefined ? Effect.dieMessage(`${name}: an answer the lane does not write`) : Effect.succeed(answer)
        }),
        failure
      )
    }
  }
}

/** The headers of a response rendered by `respond`: those of its body. */
const bodyHeaders = new Set(["content-type", "content-length"])

/** The bytes of a response whose body is bytes, or undefined for any other kind of answer. */
export const answerOf = (response: HttpServerResponse.HttpServerResponse): Answer | undefined =>
  response.body._tag === "Uint8Array" &&
  Object.keys(response.headers).every((name) => bodyHeaders.has(name)) &&
  Object.keys(response.cookies.cookies).length === 0
    ? { status: response.status, contentType: response.body.contentType, body: response.body.body }
    : undefined
