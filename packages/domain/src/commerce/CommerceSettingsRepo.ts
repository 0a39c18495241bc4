/** Storage of a tenant's commerce settings: one row per (store, mode), invisible to any other tenant. */
import { Context, type Effect, type Option } from "effect"
import type { Tenant } from "../shared/Tenant.js"
import type { CommerceSettings } from "./CommerceSettings.js"

export class CommerceSettingsRepo extends Context.Tag("@switchboard/domain/CommerceSettingsRepo")<
  CommerceSettingsRepo,
  {
    readonly find: (tenant: Tenant) => Effect.Effect<Option.Option<CommerceSettings>>
    /** Inserts or replaces the tenant's row. */
    readonly save: (tenant: Tenant, settings: CommerceSettings) => Effect.Effect<void>
  }
>() {}
