/** The commerce tables (migration 0008) and their column maps. */
import type { Catalog, CommerceSettings, ShippingProfile } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface ShippingProfilesTable {
  readonly id: string
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly name: string
  /** JSON array of destinations. */
  readonly destinations: string
  /** JSON `{ min_days, max_days }`. */
  readonly handling_time: string
  /** 0/1; at most one 1 per (store_id, mode), by a partial unique index. */
  readonly is_default: number | boolean
  readonly created_at: number | string
  readonly updated_at: number | string
}

/** One row per tenant (migration 0009). */
export interface CommerceSettingsTable {
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly is_cart_enabled: number | boolean
  readonly is_catalog_visible: number | boolean
  readonly country: string | null
  readonly currency: string | null
  readonly updated_at: number | string | null
}

/** Catalogs (migration 0010); (store_id, mode, operator_catalog_id) is unique. */
export interface CatalogsTable {
  readonly id: string
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly name: string
  readonly operator_catalog_id: string
  readonly origin: "created" | "connected"
  readonly connected: number | boolean
  readonly created_at: number | string
  readonly updated_at: number | string
}

export const catalogColumns = Columns.map<Catalog.Catalog, CatalogsTable>({
  id: ["id", Columns.text],
  storeId: ["store_id", Columns.text],
  mode: ["mode", Columns.text],
  name: ["name", Columns.text],
  operatorCatalogId: ["operator_catalog_id", Columns.text],
  origin: ["origin", Columns.text],
  connected: ["connected", Columns.bool],
  createdAt: ["created_at", Columns.epoch],
  updatedAt: ["updated_at", Columns.epoch]
})

export interface CommerceTables {
  readonly catalogs: CatalogsTable
  readonly shipping_profiles: ShippingProfilesTable
  readonly commerce_settings: CommerceSettingsTable
}

export const commerceSettingsColumns = Columns.map<CommerceSettings.CommerceSettings, CommerceSettingsTable>({
  storeId: ["store_id", Columns.text],
  mode: ["mode", Columns.text],
  isCartEnabled: ["is_cart_enabled", Columns.bool],
  isCatalogVisible: ["is_catalog_visible", Columns.bool],
  country: ["country", Columns.text],
  currency: ["currency", Columns.text],
  updatedAt: ["updated_at", Columns.nullable(Columns.epoch)]
})

export const shippingProfileColumns = Columns.map<ShippingProfile.ShippingProfile, ShippingProfilesTable>({
  id: ["id", Columns.text],
  storeId: ["store_id", Columns.text],
  mode: ["mode", Columns.text],
  name: ["name", Columns.text],
  destinations: ["destinations", Columns.json<ShippingProfile.ShippingProfile["destinations"]>()],
  handlingTime: ["handling_time", Columns.json<ShippingProfile.HandlingTime>()],
  isDefault: ["is_default", Columns.bool],
  createdAt: ["created_at", Columns.epoch],
  updatedAt: ["updated_at", Columns.epoch]
})

export const shippingProfileSelect = [
  "id",
  "store_id",
  "mode",
  "name",
  "destinations",
  "handling_time",
  "is_default",
  "created_at",
  "updated_at"
] as const
