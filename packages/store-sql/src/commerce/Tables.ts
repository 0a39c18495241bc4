/** The commerce tables (migration 0008) and their column maps. */
import type { ShippingProfile } from "@switchboard/domain"
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

export interface CommerceTables {
  readonly shipping_profiles: ShippingProfilesTable
}

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
