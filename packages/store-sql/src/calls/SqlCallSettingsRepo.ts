/** The CallSettingsRepo port over `call_settings`: one row per tenant, SIP passwords in their own column. */
import { CallRepo, CallSettings } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import * as Columns from "../internal/Columns.js"
import { findOne, scoped } from "../internal/Scoped.js"

/** The SIP passwords, decoded through their Schema. (`calling` is the operator's object as it was set, which the domain keeps unchecked.) */
const sipSecrets = Columns.reader("call_settings", "sip_secrets", Columns.json(CallSettings.CallSettings.fields.sipSecrets))

export const make: Effect.Effect<CallRepo.CallSettingsRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return CallRepo.CallSettingsRepo.of({
    find: (tenant) =>
      findOne(
        db,
        (k) => scoped(k, "call_settings", tenant).select(["settings", "sip_secrets", "updated_at"]),
        (r): CallSettings.CallSettings => ({
          storeId: tenant.storeId,
          mode: tenant.mode,
          calling: JSON.parse(r.settings),
          sipSecrets: sipSecrets(r.sip_secrets),
          updatedAt: Number(r.updated_at)
        })
      ),
    save: (tenant, settings) =>
      Effect.gen(function* () {
        const row = {
          store_id: tenant.storeId,
          mode: tenant.mode,
          settings: JSON.stringify(settings.calling),
          sip_secrets: JSON.stringify(settings.sipSecrets),
          updated_at: settings.updatedAt ?? 0
        }
        yield* db.query((k) =>
          k
            .insertInto("call_settings")
            .values(row)
            .onConflict((oc) =>
              oc.columns(["store_id", "mode"]).doUpdateSet({ settings: row.settings, sip_secrets: row.sip_secrets, updated_at: row.updated_at })
            )
            .execute()
        )
      })
  })
})

export const layer = Layer.effect(CallRepo.CallSettingsRepo, make)
