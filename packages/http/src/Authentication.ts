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
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as ApiError from "./ApiError.js"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@switchboard/http/Authentication", {
  failure: ApiError.Unauthorized,
  provides: Tenant.CurrentStore,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * The API keys: `lookup` finds a key's caller (from the cache, else by hash in the store);
 * `cached` answers a caller only from the cache, synchronously (the fast lane's check:
 * a miss there goes the usual way, which looks the key up and fills the cache).
 */
export class ApiKeys extends Context.Tag("@switchboard/http/ApiKeys")<
  ApiKeys,
  {
    readonly lookup: (key: string) => Effect.Effect<Tenant.Caller, Errors.Unauthorized>
    readonly cached: (key: string) => Tenant.Caller | undefined
  }
>() {}

const CACHE_TTL_MS = 30_000
const CACHE_MAX = 10_000

const unauthorized = new Errors.Unauthorized({
  message: "Missing or invalid API key: send Authorization: Bearer sk_live_… or sk_test_…"
})

const layerKeys = Layer.effect(
  ApiKeys,
  Effect.gen(function* () {
    const stores = yield* StoreRepo.StoreRepo
    const cache = new Map<string, { readonly caller: Tenant.Caller; readonly expiresAt: number }>()
    /** Remembered for the TTL, never past the key's own expiry (a rotated key stops on time). */
    const remember = (key: string, caller: Tenant.Caller, keyExpiresAt: number | null) => {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!)
      const ttl = Date.now() + CACHE_TTL_MS
      cache.set(key, { caller, expiresAt: keyExpiresAt === null ? ttl : Math.min(ttl, keyExpiresAt) })
    }
    const cached = (key: string): Tenant.Caller | undefined => {
      const hit = cache.get(key)
      return hit !== undefined && hit.expiresAt > Date.now() ? hit.caller : undefined
    }
    return ApiKeys.of({
      cached,
      lookup: (key) => {
        const hit = cached(key)
        if (hit !== undefined) return Effect.succeed(hit)
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

/** `Authentication` and the `ApiKeys` it checks with (both provided). */
export const layer = Layer.effect(
  Authentication,
  Effect.map(ApiKeys, (keys) => Authentication.of({ bearer: (token) => keys.lookup(Redacted.value(token)) }))
).pipe(Layer.provideMerge(layerKeys))
