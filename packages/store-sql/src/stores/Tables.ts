/**
 * The `stores` and `api_keys` tables (migrations 0001, 0006) and their column maps. A store's two
 * operator accounts are spread over columns (`sandbox_*`, `live_*`); the live account is
 * there when its WABA and phone number ids are.
 */
import type { Store, Tenant } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface StoresTable {
  readonly id: string
  readonly name: string
  readonly created_at: number
  readonly sandbox_waba_id: string
  readonly sandbox_phone_number_id: string
  readonly sandbox_display_phone: string
  readonly live_waba_id: string | null
  readonly live_phone_number_id: string | null
  readonly live_display_phone: string | null
}

export interface ApiKeysTable extends Columns.OwnedRow {
  /** SHA-256 of the key, lower-case hex; unique. */
  readonly hash: string
  readonly hint: string
  readonly created_at: number
  /** Epoch ms after which the key is refused (a rotated key's grace period); null: never (migration 0006). */
  readonly expires_at: number | null
}

export interface StoreTables {
  readonly stores: StoresTable
  readonly api_keys: ApiKeysTable
}

/** A store row, both ways (its accounts span several columns, so this map is written out). */
export const storeColumns: Columns.ColumnMap<Store.Store, StoresTable> = {
  toRow: (store) => ({
    id: store.id,
    name: store.name,
    created_at: store.createdAt,
    sandbox_waba_id: store.sandbox.wabaId,
    sandbox_phone_number_id: store.sandbox.phoneNumberId,
    sandbox_display_phone: store.sandbox.displayPhoneNumber,
    live_waba_id: store.live?.wabaId ?? null,
    live_phone_number_id: store.live?.phoneNumberId ?? null,
    live_display_phone: store.live?.displayPhoneNumber ?? null
  }),
  fromRow: (row) => ({
    id: row.id as Tenant.StoreId,
    name: row.name,
    createdAt: Columns.epoch.fromRow(row.created_at),
    sandbox: {
      kind: "sandbox",
      wabaId: row.sandbox_waba_id,
      phoneNumberId: row.sandbox_phone_number_id,
      displayPhoneNumber: row.sandbox_display_phone
    },
    live:
      row.live_waba_id !== null && row.live_phone_number_id !== null
        ? { kind: "live", wabaId: row.live_waba_id, phoneNumberId: row.live_phone_number_id, displayPhoneNumber: row.live_display_phone ?? "" }
        : null
  }),
  column: { id: "id", name: "name", createdAt: "created_at", sandbox: "sandbox_waba_id", live: "live_waba_id" }
}

/** An API key row, both ways. */
export const apiKeyColumns = Columns.map<Store.ApiKeyRecord, ApiKeysTable>("api_keys", {
  ...Columns.owned,
  hash: ["hash", Columns.text],
  hint: ["hint", Columns.text],
  createdAt: ["created_at", Columns.epoch],
  expiresAt: ["expires_at", Columns.nullable(Columns.epoch)]
})

/** Every column of `stores`, qualified, for selects that join `api_keys`. */
export const storeSelect = [
  "stores.id",
  "stores.name",
  "stores.created_at",
  "stores.sandbox_waba_id",
  "stores.sandbox_phone_number_id",
  "stores.sandbox_display_phone",
  "stores.live_waba_id",
  "stores.live_phone_number_id",
  "stores.live_display_phone"
] as const
