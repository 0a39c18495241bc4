/**
 * A store's commerce settings, one record per tenant (spec §4.7): whether customers see the
 * cart and the catalog in the conversation (mirrored to the operator's
 * `whatsapp_commerce_settings` of the tenant's phone number, GRAPH_API.md §8.1), and the
 * store's commerce country (ISO 3166-1) and currency (ISO 4217), which eligibility checks.
 */
import { Schema } from "effect"
import { Currency } from "../shared/Money.js"
import { Mode, StoreId } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { Country } from "./ShippingProfile.js"

export const CommerceSettings = Schema.Struct({
  storeId: StoreId.schema,
  mode: Mode,
  isCartEnabled: Schema.Boolean,
  isCatalogVisible: Schema.Boolean,
  country: Schema.NullOr(Schema.String),
  currency: Schema.NullOr(Schema.String),
  /** Null until the settings were first changed through the API. */
  updatedAt: Schema.NullOr(Schema.Number)
})
export interface CommerceSettings extends Schema.Schema.Type<typeof CommerceSettings> {}

/** `PATCH /chat/commerce/settings`: fields left out stay; `null` clears the country or the currency. */
export const UpdateCommerceSettings = Schema.Struct({
  is_cart_enabled: Schema.optional(Schema.Boolean),
  is_catalog_visible: Schema.optional(Schema.Boolean),
  country: Schema.optional(Schema.NullOr(Country)),
  currency: Schema.optional(Schema.NullOr(Currency))
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "UpdateCommerceSettings" })
export type UpdateCommerceSettings = typeof UpdateCommerceSettings.Type

/** The settings as the API shows them. */
export const CommerceSettingsResource = Schema.Struct({
  isCartEnabled: Wire.key(CommerceSettings.fields.isCartEnabled, "is_cart_enabled"),
  isCatalogVisible: Wire.key(CommerceSettings.fields.isCatalogVisible, "is_catalog_visible"),
  country: CommerceSettings.fields.country,
  currency: CommerceSettings.fields.currency,
  updatedAt: Wire.key(Schema.NullOr(Time.IsoDateTime), "updated_at")
}).annotations({ identifier: "CommerceSettings" })
