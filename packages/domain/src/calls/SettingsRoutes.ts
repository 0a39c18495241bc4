/**
 * `GET` and `PATCH /chat/calls/settings`: the tenant's call settings, each change a mirrored
 * write (`settingsMirror`): made at the operator (the number's `settings`, with the SIP passwords) before it is recorded here, so
 * what we show is what the operator has. SIP passwords are never answered nor logged.
 */
import { Effect, Option, type Schema } from "effect"
import * as Mirror from "../shared/Mirror.js"
import { CallOperator } from "./CallOperator.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import { CallSettingsRepo } from "./CallRepo.js"
import * as CallSettings from "./CallSettings.js"

/** The tenant's settings, or the defaults when none were set. */
export const current = (tenant: Tenant) =>
  Effect.gen(function* () {
    const found = yield* (yield* CallSettingsRepo).find(tenant)
    return Option.getOrElse(
      found,
      (): CallSettings.CallSettings => ({
        storeId: tenant.storeId,
        mode: tenant.mode,
        calling: CallSettings.DEFAULTS,
        sipSecrets: {},
        updatedAt: null
      })
    )
  })

const shown = (s: CallSettings.CallSettings) => ({ ...s.calling, updated_at: s.updatedAt })

/** `GET /chat/calls/settings`. */
export const get = Effect.gen(function* () {
  const { tenant } = yield* CurrentStore
  return shown(yield* current(tenant))
})

/** `PATCH /chat/calls/settings`: fields left out stay (holidays excepted, as the operator clears them when `call_hours` leaves them out). */
export const update = (input: CallSettings.UpdateCallSettings) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const before = yield* current(tenant)
    const next = CallSettings.apply(before, input)
    const saved: CallSettings.CallSettings = { storeId: tenant.storeId, mode: tenant.mode, ...next, updatedAt: yield* Time.now }
    return yield* Mirror.run(settingsMirror, { tenant, account: Store.accountFor(store, tenant.mode), prepare: Effect.succeed(saved) })
  })

/** The settings set at the operator (outside any transaction), then saved here: a mirrored write (`shared/Mirror.ts`). */
export const settingsMirror = Mirror.kind({
  kind: "calls.settings",
  // the schema keeps `calling` as the operator's object, unchecked (as the settings' repository does)
  payload: CallSettings.CallSettings as unknown as Schema.Schema<CallSettings.CallSettings, unknown>,
  call: (saved: CallSettings.CallSettings, { account }) =>
    Effect.flatMap(CallOperator, (op) => op.setSettings(account, CallSettings.toOperator(saved.calling, saved.sipSecrets))),
  settle: (saved, _answer, { tenant }) =>
    Effect.as(
      Effect.flatMap(CallSettingsRepo, (repo) => repo.save(tenant, saved)),
      shown(saved)
    )
})
