/**
 * API-key authentication: `Authorization: Bearer sk_live_…|sk_test_…`. The key is hashed
 * (SHA-256) and looked up by hash, so keys are never stored or compared in clear. The
 * caller's store is read once here and provided as `CurrentStore` (with the key's mode), so
 * no use case reads the store row again. Found keys are cached in memory for a short time,
 * so the hot path costs a map lookup. An expired key (rotated, past its grace period) is
 * refused; a cached key is never accepted past its expiry, but a key whose expiry was set
 * (by a rotation in another process) after it was cached may be accepted up to 30 s longer.
 */
import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Errors, Store, StoreRepo, Tenant } from "@switchboard/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import * as ApiError from "./ApiError.js"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@switchboard/http/Authentication", {
  failure: ApiError.Unauthorized,
  provides: Tenant.CurrentStore,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const CACHE_TTL_MS = 30_000
const CACHE_MAX = 10_000

const unauthorized = new Errors.Unauthorized({
  message: "Missing or invalid API key: send Authorization: Bearer sk_live_… or sk_test_…"
})

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const stores = yield* StoreRepo.StoreRepo
    const cache = new Map<string, { readonly caller: Tenant.Caller; readonly expiresAt: number }>()
    /** Remembered for the TTL, never past the key's own expiry (a rotated key stops on time). */
    const remember = (key: string, caller: Tenant.Caller, keyExpiresAt: number | null) => {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!)
      const ttl = Date.now() + CACHE_TTL_MS
      cache.set(key, { caller, expiresAt: keyExpiresAt === null ? ttl : Math.min(ttl, keyExpiresAt) })
    }
    return Authentication.of({
      bearer: (token) => {
        const key = Redacted.value(token)
        const hit = cache.get(key)
        if (hit !== undefined && hit.expiresAt > Date.now()) return Effect.succeed(hit.caller)
        if (Store.keyMode(key) === undefined) return Effect.fail(unauthorized)
        return Store.hashKey(key).pipe(
          Effect.flatMap(stores.findByKeyHash),
          Effect.flatMap(
            Option.match({
              onNone: () => Effect.fail(unauthorized),
              onSome: ({ store, mode, expiresAt }) => {
                const caller: Tenant.Caller = { store, tenant: { storeId: store.id, mode } }
                remember(key, caller, expiresAt)
                return Effect.succeed(caller)
              }
            })
          )
        )
      }
    })
  })
)
