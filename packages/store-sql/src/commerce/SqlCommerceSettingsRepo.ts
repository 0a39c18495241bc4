/** The CommerceSettingsRepo port over `commerce_settings`: one row per tenant, upserted. */
import { CommerceSettingsRepo } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { prepare } from "../internal/Prepared.js"
import { scoped } from "../internal/Scoped.js"
import { commerceSettingsColumns as columns } from "./Tables.js"

export const make: Effect.Effect<CommerceSettingsRepo.CommerceSettingsRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  // compiled once: each batch of carts reads its tenants' settings (a payment request on each cart?)
  const byTenant = prepare((p: { storeId: string; mode: string }) => scoped(db.kysely, "commerce_settings", p).selectAll())
  return CommerceSettingsRepo.CommerceSettingsRepo.of({
    find: (tenant) =>
      Effect.map(db.execute(byTenant({ storeId: tenant.storeId, mode: tenant.mode })), ({ rows }) =>
        rows.length === 0 ? Option.none() : Option.some(columns.fromRow(rows[0]))
      ),
    save: (tenant, settings) => {
      const row = columns.toRow({ ...settings, storeId: tenant.storeId, mode: tenant.mode })
      return db
        .query((k) =>
          k
            .insertInto("commerce_settings")
            .values(row)
            .onConflict((oc) =>
              oc.columns(["store_id", "mode"]).doUpdateSet({
                is_cart_enabled: row.is_cart_enabled,
                is_catalog_visible: row.is_catalog_visible,
                country: row.country,
                currency: row.currency,
                payments: row.payments,
                order_updates_template: row.order_updates_template,
                updated_at: row.updated_at
              })
            )
            .execute()
        )
        .pipe(Effect.asVoid)
    }
  })
})

export const layer = Layer.effect(CommerceSettingsRepo.CommerceSettingsRepo, make)
