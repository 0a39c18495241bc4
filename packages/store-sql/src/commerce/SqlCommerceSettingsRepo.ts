/** The CommerceSettingsRepo port over `commerce_settings`: one row per tenant, upserted. */
import { CommerceSettingsRepo } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { findOne, scoped } from "../internal/Scoped.js"
import { commerceSettingsColumns as columns } from "./Tables.js"

export const make: Effect.Effect<CommerceSettingsRepo.CommerceSettingsRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return CommerceSettingsRepo.CommerceSettingsRepo.of({
    find: (tenant) => findOne(db, (k) => scoped(k, "commerce_settings", tenant).selectAll(), columns.fromRow),
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
