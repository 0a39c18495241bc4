/**
 * What the `stores` commands do, loaded only when one of them runs (the store's modules are
 * not needed for `--help` or other commands).
 */
import { Errors, type Store, Stores, Time } from "@switchboard/domain"
import { Console, Duration, Effect, Option } from "effect"
import * as AppConfig from "../../Config.js"
import { CliError } from "../../Startup.js"
import * as Storage from "../../Storage.js"

/** A store's and its keys' public facts, as `stores list --json` prints them. */
const listed = ({ store, keys }: { readonly store: Store.Store; readonly keys: ReadonlyArray<Store.ApiKeyRecord> }, now: number) => ({
  id: store.id,
  name: store.name,
  created_at: Time.toIso(store.createdAt),
  live_account: store.live === null ? null : { waba_id: store.live.wabaId, phone_number_id: store.live.phoneNumberId },
  keys: keys.map((k) => ({
    id: k.id,
    mode: k.mode,
    hint: `${k.hint}…`,
    created_at: Time.toIso(k.createdAt),
    expires_at: k.expiresAt === null ? null : Time.toIso(k.expiresAt),
    active: k.expiresAt === null || now < k.expiresAt
  }))
})

export const create = (input: {
  readonly name: string
  readonly liveWabaId: Option.Option<string>
  readonly livePhoneNumberId: Option.Option<string>
  readonly liveDisplayPhone: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const { liveDisplayPhone, liveWabaId, livePhoneNumberId, name } = input
    if (name.trim().length === 0) return yield* new CliError({ message: "--name must not be empty" })
    if (Option.isSome(liveWabaId) !== Option.isSome(livePhoneNumberId)) {
      return yield* new CliError({ message: "--live-waba-id and --live-phone-number-id go together: give both or neither" })
    }
    const live: Store.OperatorAccount | null =
      Option.isSome(liveWabaId) && Option.isSome(livePhoneNumberId)
        ? {
            kind: "live",
            wabaId: liveWabaId.value,
            phoneNumberId: livePhoneNumberId.value,
            displayPhoneNumber: Option.getOrElse(liveDisplayPhone, () => "")
          }
        : null
    const created = yield* Stores.create({ name: name.trim(), live })
    yield* Console.log(JSON.stringify({ id: created.store.id, live_key: created.liveKey, test_key: created.testKey }))
  }).pipe(Effect.provide(Storage.layer))

export const list = (input: { readonly json: boolean }) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const stores = (yield* Stores.list).map((s) => listed(s, now))
    if (input.json) return yield* Console.log(JSON.stringify(stores, null, 2))
    if (stores.length === 0) return yield* Console.log('No stores yet. Create one: switchboard stores create --name "My shop"')
    for (const store of stores) {
      yield* Console.log(
        `${store.id}  ${store.name}  (created ${store.created_at}${store.live_account === null ? ", sandbox only" : `, live number ${store.live_account.phone_number_id}`})`
      )
      for (const key of store.keys) {
        const state = key.expires_at === null ? "" : key.active ? `  expires ${key.expires_at}` : `  expired ${key.expires_at}`
        yield* Console.log(`  ${key.mode.padEnd(4)}  ${key.hint.padEnd(14)}  created ${key.created_at}${state}`)
      }
    }
  }).pipe(Effect.provide(Storage.layer))

export const rotateKey = (input: { readonly store: string; readonly mode: "live" | "test"; readonly grace: string }) =>
  Effect.gen(function* () {
    const { grace, mode, store } = input
    const duration = AppConfig.parseDuration(grace)
    if (Option.isNone(duration)) {
      return yield* new CliError({ message: `--grace ${JSON.stringify(grace)} is not a duration: use 0, 30m, 24h or 7d` })
    }
    const rotated = yield* Stores.rotateKey({ storeId: store, mode, graceMs: Duration.toMillis(duration.value) }).pipe(
      Effect.catchIf(
        (e): e is Errors.ResourceNotFound => e instanceof Errors.ResourceNotFound,
        () => new CliError({ message: `No store ${store}: see the ids with \`switchboard stores list\`` })
      ),
      Effect.catchIf(
        (e): e is Errors.ValidationFailed => e instanceof Errors.ValidationFailed,
        (e) => new CliError({ message: e.message })
      )
    )
    yield* Console.log(
      JSON.stringify({
        store: rotated.store.id,
        mode,
        key: rotated.key,
        old_keys_expire_at: Time.toIso(rotated.oldKeysExpireAt),
        old_keys: rotated.expiring
      })
    )
  }).pipe(Effect.provide(Storage.layer))
