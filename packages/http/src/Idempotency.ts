/**
 * `Idempotency-Key` on every POST and PATCH: the first response (below 500) is stored with a
 * hash of the request and replayed for the same key and request; the same key with another
 * request answers 422 `idempotency_key_reused`; a concurrent twin still in progress answers
 * 409 `idempotency_key_in_use`. Keys are scoped by the API key that sent them (its store and
 * mode). A request that fails with a 5xx releases its key so it can be retried.
 */
import { HttpServerRequest, HttpServerResponse, type HttpApp } from "@effect/platform"
import { Errors, IdempotencyStore } from "@switchboard/domain"
import { Effect } from "effect"
import { createHash } from "node:crypto"

const LOCK_TIMEOUT_MS = 60_000
const MAX_KEY_LENGTH = 255

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

const errorResponse = (status: number, code: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { code, message } }, { status })

const reused = (key: string) => errorResponse(422, "idempotency_key_reused", new Errors.IdempotencyKeyReused({ key }).message)

const bodyText = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const body = response.body
  switch (body._tag) {
    case "Uint8Array":
      return new TextDecoder().decode(body.body)
    case "Empty":
      return ""
    default:
      return undefined
  }
}

/** Wraps the whole served app, so it sees encoded responses (errors included). */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | IdempotencyStore.IdempotencyStore> =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore.IdempotencyStore
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers["idempotency-key"]
        const auth = request.headers["authorization"]
        if (key === undefined || auth === undefined || (request.method !== "POST" && request.method !== "PATCH")) return yield* app
        if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
          return errorResponse(400, "validation_failed", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`)
        }
        const text = yield* Effect.orElseSucceed(request.text, () => "")
        const scope = sha256(auth)
        const requestHash = sha256(`${request.method} ${request.url}\n${text}`)
        const reservation = yield* store.reserve(scope, key, requestHash, LOCK_TIMEOUT_MS)
        switch (reservation._tag) {
          case "Completed":
            if (reservation.requestHash !== requestHash) return reused(key)
            return HttpServerResponse.text(reservation.response.body, {
              status: reservation.response.status,
              contentType: "application/json",
              headers: { "idempotent-replayed": "true" }
            })
          case "InProgress":
            if (reservation.requestHash !== requestHash) return reused(key)
            return errorResponse(409, "idempotency_key_in_use", new Errors.IdempotencyKeyInUse({ key }).message)
          case "Reserved":
            break
        }
        const response = yield* app.pipe(Effect.onError(() => store.release(scope, key)))
        const stored = bodyText(response)
        // 401/403 say nothing about the request; 5xx other than 503 are bugs: let the caller retry
        const keep = stored !== undefined && response.status !== 401 && response.status !== 403 && (response.status < 500 || response.status === 503)
        if (!keep) yield* store.release(scope, key)
        else yield* store.complete(scope, key, { status: response.status, body: stored })
        return response
      })
