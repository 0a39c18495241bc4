/** The `mirror_outbox` table (migration 0020) and its column map. */
import type { MirrorOutbox } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface MirrorOutboxTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly kind: string
  /** JSON: the kind's Schema-encoded payload. */
  readonly payload: string
  readonly idempotency_key: string
  readonly attempt: number | string
  readonly status: MirrorOutbox.Status
}

export interface MirrorTables {
  readonly mirror_outbox: MirrorOutboxTable
}

export const outboxColumns = Columns.map<MirrorOutbox.Entry, MirrorOutboxTable>("mirror_outbox", {
  ...Columns.owned,
  kind: ["kind", Columns.text],
  payload: ["payload", Columns.anyJson],
  key: ["idempotency_key", Columns.text],
  attempt: ["attempt", Columns.integer],
  status: ["status", Columns.text],
  ...Columns.stamps
})
