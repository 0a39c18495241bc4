/** The `mirror_outbox` table (migration 0020) and its column map. */
import type { MirrorOutbox } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface MirrorOutboxTable {
  readonly id: string
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly kind: string
  /** JSON: the kind's Schema-encoded payload. */
  readonly payload: string
  readonly idempotency_key: string
  readonly attempt: number | string
  readonly status: MirrorOutbox.Status
  readonly created_at: number | string
  readonly updated_at: number | string
}

export interface MirrorTables {
  readonly mirror_outbox: MirrorOutboxTable
}

export const outboxColumns = Columns.map<MirrorOutbox.Entry, MirrorOutboxTable>("mirror_outbox", {
  id: ["id", Columns.text],
  storeId: ["store_id", Columns.text],
  mode: ["mode", Columns.text],
  kind: ["kind", Columns.text],
  payload: ["payload", Columns.anyJson],
  key: ["idempotency_key", Columns.text],
  attempt: ["attempt", Columns.integer],
  status: ["status", Columns.text],
  createdAt: ["created_at", Columns.epoch],
  updatedAt: ["updated_at", Columns.epoch]
})
