/**
 * Reading the operator's answers, shared by the capabilities: decoding a body against the
 * shape we expect, and the refusals that mean "no such object".
 */
import type { Errors } from "@switchboard/domain"
import { Effect, Schema } from "effect"
import type { GraphApi, RetryMode } from "../GraphApi.js"
import type * as GraphTransport from "../GraphTransport.js"
import * as Graph from "./graph.js"

/** Decodes an answer's body; a body of another shape is the operator unreachable, naming `what` answered. */
export const decode =
  <A, I>(schema: Schema.Schema<A, I>, what: string) =>
  (body: unknown): Effect.Effect<A, Errors.OperatorUnavailable> =>
    Schema.decodeUnknown(schema)(body).pipe(
      Effect.mapError(() => Graph.unavailable({ kind: "unreachable", reason: `the operator's ${what} answer has an unexpected shape` }))
    )

/**
 * Runs `request` on `api` and decodes the answer's body (`decode`); a failure of the call
 * becomes `onFailure`'s error (`Graph.toDomainError` or `Graph.toUnavailable`).
 */
export const runDecoded = <A, I, E>(
  api: GraphApi["Type"],
  request: GraphTransport.Request,
  mode: RetryMode,
  onFailure: (failure: Graph.GraphFailure) => E,
  schema: Schema.Schema<A, I>,
  what: string
): Effect.Effect<A, E | Errors.OperatorUnavailable> =>
  api.run(request, mode).pipe(
    Effect.mapError(onFailure),
    Effect.flatMap((answer) => decode(schema, what)(answer.body))
  )

/** Error 100 subcode 33: the object does not exist (GRAPH_API.md §10). */
export const isUnknownObject = (failure: Graph.GraphFailure): boolean =>
  failure._tag === "Refused" && failure.error.code === 100 && (failure.error.subcode === 33 || /does not exist/.test(failure.error.message))

/** `DELETE /{id}`, idempotent: an object the operator no longer knows is deleted already. */
export const deleteObject = (
  api: GraphApi["Type"],
  endpoint: Graph.Endpoint,
  id: string
): Effect.Effect<void, Errors.OperatorRejected | Errors.OperatorUnavailable> =>
  api.run(Graph.request(endpoint, "DELETE", Graph.graphUrl(endpoint, id)), "idempotent").pipe(
    Effect.asVoid,
    Effect.catchAll((failure) => (isUnknownObject(failure) ? Effect.void : Effect.fail(Graph.toDomainError(failure))))
  )
