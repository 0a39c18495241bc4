/**
 * `Idempotency-Key` on every POST and PATCH (and, on a route whose JSON body declares it, the
 * body's top-level `idempotency_key`, which means the same: `Intake` takes it as the key when
 * no header is sent): the first response (below 500) is stored with a
 * hash of the request and replayed for the same key and request; the same key with another
 * request answers 422 `idempotency_key_reused`; a concurrent twin still in progress answers
 * 409 `idempotency_key_in_use`. As with Stripe, only a request the route began to carry out
 * keeps its result: a 400 (the request was refused before anything ran), a 429 and a 5xx other
 * than 503 release the key, so the corrected or retried request is served.
 *
 * Keys are scoped by the tenant the API key authenticates (its store and mode), never by the
 * text of the `Authorization` header: `Bearer k` and `bearer k` are one caller. `Intake`
 * calls this only after authentication and after the body was read within its limit, so an
 * unknown key or an oversized body never reaches the store.
 */
import { HttpServerResponse, type HttpApp } from "@effect/platform"
import { Errors, IdempotencyStore, type Tenant } from "@switchboard/domain"
import { Effect } from "effect"
import { createHash } from "node:crypto"

const LOCK_TIMEOUT_MS = 60_000
const MAX_KEY_LENGTH = 255

const errorResponse = (status: number, code: string, message: string) => HttpServerResponse.unsafeJson({ error: { code, message } }, { status })

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

/**
 * Whether a response is the outcome of carrying the request out: 400 (refused before anything
 * ran), 401/403 (nothing about the request), 429 (not attempted) and 5xx other than 503 (bugs)
 * are not, so the caller may correct or retry under the same key.
 */
const keeps = (status: number): boolean => status !== 400 && status !== 401 && status !== 403 && status !== 429 && (status < 500 || status === 503)

/** The store's scope of a tenant's keys. */
export const scopeOf = (tenant: Tenant.Tenant): string => `${tenant.storeId}:${tenant.mode}`

/** Whether `key` is a key we take: 1 to 255 characters. */
export const validKey = (key: string): boolean => key.length > 0 && key.length <= MAX_KEY_LENGTH

/** The hash that tells two requests under one key apart: method, URL and body. */
export const hashOf = (method: string, url: string, body: Uint8Array): string =>
  createHash("sha256").update(`${method} ${url}\n`).update(body).digest("hex")

/**
 * Runs `app` at most once per (tenant, key) for one request: `requestHash` is `hashOf` the
 * request (its body as read within its limit, or a multipart body as spooled). Must wrap the
 * whole served app, so it sees encoded responses.
 */
export const run = <E, R>(
  app: HttpApp.Default<E, R>,
  request: { readonly tenant: Tenant.Tenant; readonly key: string; readonly requestHash: string }
): HttpApp.Default<E, R | IdempotencyStore.IdempotencyStore> =>
  Effect.gen(function* () {
    const { key, requestHash } = request
    if (!validKey(key)) {
      return errorResponse(400, "validation_failed", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`)
    }
    const store = yield* IdempotencyStore.IdempotencyStore
    const scope = scopeOf(request.tenant)
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
    const keep = stored !== undefined && keeps(response.status)
    if (!keep) yield* store.release(scope, key)
    else yield* store.complete(scope, key, { status: response.status, body: stored })
    return response
  })
