import { Context, type Effect, type Option } from "effect"
import type { Mode, StoreId } from "../shared/Tenant.js"
import type { Millis } from "../shared/Time.js"
import type { AccountKind, ApiKeyRecord, Store } from "./Store.js"

/**
 * Storage of stores and their API keys. Stores are the tenants themselves, so this port is
 * not scoped by one: authentication, the inbox (routing an operator webhook to its store),
 * the worker and the CLI use it; routes never do (they get the caller's store from
 * `CurrentStore`).
 * - `create` writes the store and its keys in one transaction.
 * - `findByKeyHash` answers the store, mode and expiry of a key hash, only while the key is
 *   valid (`Store.keyIsValid` at the Clock's now): an expired key answers `None`. Keys are
 *   never stored in clear.
 * - `rotateKey` inserts a new key and bounds the old keys of its mode, in one transaction.
 * - `findByPhoneNumberId` routes an operator webhook: the store owning that number and which
 *   of its accounts it is. A number owned by no store answers `None`.
 */
export class StoreRepo extends Context.Tag("@switchboard/domain/StoreRepo")<
  StoreRepo,
  {
    readonly create: (store: Store, keys: ReadonlyArray<ApiKeyRecord>) => Effect.Effect<void>
    readonly findById: (id: StoreId) => Effect.Effect<Option.Option<Store>>
    readonly findByKeyHash: (
      hash: string
    ) => Effect.Effect<Option.Option<{ readonly store: Store; readonly mode: Mode; readonly expiresAt: Millis | null }>>
    /** The store's keys, expired ones included, oldest first. */
    readonly listKeys: (storeId: StoreId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>>
    /**
     * Inserts `key` and makes every other key of the store in `key.mode` expire at
     * `oldKeysExpireAt` at the latest (a key that expires sooner keeps its expiry). Answers
     * how many old keys now expire then.
     */
    readonly rotateKey: (key: ApiKeyRecord, oldKeysExpireAt: Millis) => Effect.Effect<number>
    readonly findByPhoneNumberId: (phoneNumberId: string) => Effect.Effect<Option.Option<{ readonly store: Store; readonly kind: AccountKind }>>
    /** The store whose live or sandbox account has this WABA id (template webhooks). */
    readonly findByWabaId: (wabaId: string) => Effect.Effect<Option.Option<{ readonly store: Store; readonly kind: AccountKind }>>
    readonly list: () => Effect.Effect<ReadonlyArray<Store>>
  }
>() {}
