/** The `inbox` table (migration 0001): operator webhooks as received, and its column map. */
import type { Inbox } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface InboxTable {
  readonly id: string
  readonly kind: "live" | "sandbox"
  readonly body: string
  readonly received_at: number
  readonly processed_at: number | null
  readonly outcome: string | null
}

export interface InboxTables {
  readonly inbox: InboxTable
}

/** An entry's columns (processing is recorded apart, by `markProcessed`). */
export const inboxColumns = Columns.map<Inbox.InboxEntry, Pick<InboxTable, "id" | "kind" | "body" | "received_at">>("inbox", {
  id: ["id", Columns.text],
  kind: ["kind", Columns.text],
  body: ["body", Columns.text],
  receivedAt: ["received_at", Columns.epoch]
})
