/**
 * A store (shop) is the tenant: every resource belongs to exactly one. A store talks to the
 * operator through accounts: its sandbox account (the emulator, behind test keys) and,
 * when configured, its live account.
 */
import { Effect, Schema } from "effect"
import * as Id from "../shared/Id.js"
import { type Mode, Owned, StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

export const ApiKeyId = Id.kind("key", "ApiKeyId")
export type ApiKeyId = Id.Of<typeof ApiKeyId>

/** Which of a store's operator accounts: its live one, or its sandbox (the emulator). */
export const AccountKind = Schema.Literal("live", "sandbox")
export type AccountKind = typeof AccountKind.Type

/** An operator business account (WABA) and the phone number we send from. */
export const OperatorAccount = Schema.Struct({
  kind: AccountKind,
  wabaId: Schema.String,
  phoneNumberId: Schema.String,
  displayPhoneNumber: Schema.String
}).annotations({ identifier: "OperatorAccount" })
export interface OperatorAccount extends Schema.Schema.Type<typeof OperatorAccount> {}

export const Store = Schema.Struct({
  id: StoreId.schema,
  name: Schema.String,
  createdAt: Schema.Number,
  sandbox: OperatorAccount,
  live: Schema.NullOr(OperatorAccount)
}).annotations({ identifier: "StoreEntity" })
export interface Store extends Schema.Schema.Type<typeof Store> {}

/** The account that carries a tenant's messages: test keys always use the sandbox; a store without live credentials uses the sandbox for both. */
export const accountFor = (store: Store, mode: Mode): OperatorAccount => (mode === "test" ? store.sandbox : (store.live ?? store.sandbox))

/** Templates belong to the store's operator account, the same for both keys. */
export const templateAccount = (store: Store): OperatorAccount => store.live ?? store.sandbox

const digits = (n: number): string => {
  const bytes = new Uint8Array(n)
  globalThis.crypto.getRandomValues(bytes)
  return Array.from(bytes, (b, i) => (i === 0 ? 1 + (b % 9) : b % 10)).join("")
}

/** A new sandbox account with ids shaped like the operator's (numeric strings). */
export const newSandboxAccount = (): OperatorAccount => ({
  kind: "sandbox",
  wabaId: digits(15),
  phoneNumberId: digits(15),
  displayPhoneNumber: `1555${digits(7)}`
})

export interface NewStore {
  readonly store: Store
  readonly keys: ReadonlyArray<ApiKeyRecord>
  readonly liveKey: string
  readonly testKey: string
}

/** The stored form of an API key: never the key itself, only its SHA-256. */
export const ApiKeyRecord = Schema.Struct({
  id: ApiKeyId.schema,
  ...Owned,
  /** SHA-256 of the key, lower-case hex. */
  hash: Schema.String,
  /** First characters, to recognise a key in a list without revealing it. */
  hint: Schema.String,
  createdAt: Schema.Number,
  /** When the key stops working (the end of a rotated key's grace period); null: never. */
  expiresAt: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "ApiKeyRecord" })
export interface ApiKeyRecord extends Schema.Schema.Type<typeof ApiKeyRecord> {}

/** SHA-256 of a key, lower-case hex. */
export const hashKey = (key: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
  })

/** The mode a key claims by its prefix, or undefined when it is not shaped like one of ours. */
export const keyMode = (key: string): Mode | undefined =>
  /^sk_live_[A-Za-z0-9]{32}$/.test(key) ? "live" : /^sk_test_[A-Za-z0-9]{32}$/.test(key) ? "test" : undefined

/** A key is accepted until its expiry (exclusive); a key without one never expires. */
export const keyIsValid = (record: { readonly expiresAt: Time.Millis | null }, now: Time.Millis): boolean =>
  record.expiresAt === null || now < record.expiresAt

/** A new key of `mode` for the store: the key itself (shown once, never stored) and its record. */
export const newKey = (storeId: StoreId, mode: Mode): Effect.Effect<{ readonly key: string; readonly record: ApiKeyRecord }> =>
  Effect.gen(function* () {
    const key = `sk_${mode}_${Id.randomToken(32)}`
    const record: ApiKeyRecord = {
      id: yield* ApiKeyId.generate,
      storeId,
      mode,
      hash: yield* hashKey(key),
      hint: key.slice(0, 12),
      createdAt: yield* Time.now,
      expiresAt: null
    }
    return { key, record }
  })

/** A new store with its two keys (shown once) and a sandbox account. */
export const make = (input: { readonly name: string; readonly live?: OperatorAccount | null }): Effect.Effect<NewStore> =>
  Effect.gen(function* () {
    const store: Store = {
      id: yield* StoreId.generate,
      name: input.name,
      createdAt: yield* Time.now,
      sandbox: newSandboxAccount(),
      live: input.live ?? null
    }
    const live = yield* newKey(store.id, "live")
    const test = yield* newKey(store.id, "test")
    return { store, keys: [live.record, test.record], liveKey: live.key, testKey: test.key }
  })
