/**
 * The operator's use cases on stores (the CLI's `stores` commands): create one, list them
 * with their keys, rotate a key. Keys are shown once, when made; only their hash is stored.
 */
import { Effect } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import type { Mode, StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "./Store.js"
import { StoreRepo } from "./StoreRepo.js"

/** A new store with its live and test keys (shown once). */
export const create = (input: { readonly name: string; readonly live?: Store.OperatorAccount | null }) =>
  Effect.gen(function* () {
    const created = yield* Store.make(input)
    yield* (yield* StoreRepo).create(created.store, created.keys)
    return created
  })

/** Every store with its keys (hints, modes, expiries; never the keys), oldest store first. */
export const list = Effect.gen(function* () {
  const repo = yield* StoreRepo
  const stores = yield* repo.list()
  return yield* Effect.forEach(stores, (store) => Effect.map(repo.listKeys(store.id), (keys) => ({ store, keys })))
})

/**
 * A new key of `mode` for the store (shown once). The store's other keys of that mode keep
 * working for `graceMs` (0: they stop now), then authentication refuses them.
 */
export const rotateKey = (input: { readonly storeId: string; readonly mode: Mode; readonly graceMs: Time.Millis }) =>
  Effect.gen(function* () {
    if (!Number.isFinite(input.graceMs) || input.graceMs < 0) {
      return yield* Errors.ValidationFailed.of("grace", "must be a duration of zero or more")
    }
    const repo = yield* StoreRepo
    const store = yield* repo.findById(input.storeId as StoreId).pipe(Effect.flatMap(Id.orNotFound("store", input.storeId)))
    const made = yield* Store.newKey(store.id, input.mode)
    const oldKeysExpireAt = (yield* Time.now) + input.graceMs
    const expiring = yield* repo.rotateKey(made.record, oldKeysExpireAt)
    return { store, key: made.key, record: made.record, oldKeysExpireAt, expiring }
  })
