/**
 * `GET /chat/account`: the caller's store and mode, with the store's keys of that mode
 * (first characters and expiry, never the keys). What the console shows after a key signs in.
 */
import { HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Store, StoreRepo, Tenant, Time } from "@switchboard/domain"
import { Effect, Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { apiOf } from "../internal/Handlers.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"

const Account = Schema.Struct({
  storeId: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("store_id")),
  name: Schema.String,
  mode: Tenant.Mode,
  displayPhoneNumber: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("display_phone_number")),
  keys: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      hint: Schema.String,
      createdAt: Schema.propertySignature(Time.IsoDateTime).pipe(Schema.fromKey("created_at")),
      expiresAt: Schema.propertySignature(Schema.NullOr(Time.IsoDateTime)).pipe(Schema.fromKey("expires_at"))
    })
  )
}).annotations({ identifier: "Account" })

export class AccountGroup extends HttpApiGroup.make("account")
  .add(HttpApiEndpoint.get("get", "/account").addSuccess(Account))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { account: "The caller's store and mode" },
    operations: {
      "account.get": {
        summary: "The caller's store, mode and keys",
        response: {
          store_id: "str_01M859WX3D5Q6Y2V0K8E7B1C4A",
          name: "Shop A",
          mode: "test",
          display_phone_number: "15550783881",
          keys: [{ id: "key_01M859WX3D5Q6Y2V0K8E7B1C4B", hint: "sk_test_Ab3d", created_at: time, expires_at: null }]
        }
      }
    }
  }) {}

export const AccountLive = HttpApiBuilder.group(apiOf(AccountGroup), "account", (h) =>
  h.handle("get", () =>
    Effect.gen(function* () {
      const { store, tenant } = yield* Tenant.CurrentStore
      const keys = yield* (yield* StoreRepo.StoreRepo).listKeys(store.id)
      return {
        storeId: store.id,
        name: store.name,
        mode: tenant.mode,
        displayPhoneNumber: Store.accountFor(store, tenant.mode).displayPhoneNumber,
        keys: keys.filter((k) => k.mode === tenant.mode).map((k) => ({ id: k.id, hint: k.hint, createdAt: k.createdAt, expiresAt: k.expiresAt }))
      }
    })
  )
)
