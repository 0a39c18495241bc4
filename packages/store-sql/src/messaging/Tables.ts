/**
 * The messaging backbone's tables (migration 0002) and their column maps: customers,
 * opt-outs, outbound and inbound messages. Every row belongs to a tenant (store and mode).
 */
import type { Customer, InboundMessage, Message, OptOut } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface CustomersTable extends Columns.OwnedRow {
  readonly phone: string
  readonly wa_id: string
  readonly profile_name: string | null
  readonly last_inbound_at: number | null
  readonly created_at: number
  readonly updated_at: number
}

export interface OptOutsTable extends Columns.TenantRow {
  readonly phone: string
  readonly source: string
  readonly created_at: number
}

export interface MessagesTable extends Columns.OwnedRow {
  readonly to_phone: string
  readonly type: string
  /** JSON. */
  readonly content: string
  readonly status: string
  readonly operator_message_id: string | null
  readonly error_code: number | null
  readonly error_title: string | null
  readonly flow_token: string | null
  readonly created_at: number
  readonly updated_at: number
}

export interface InboundMessagesTable extends Columns.OwnedRow {
  readonly operator_message_id: string
  readonly from_phone: string
  readonly type: string
  readonly text: string | null
  readonly received_at: number
}

export interface MessagingTables {
  readonly customers: CustomersTable
  readonly opt_outs: OptOutsTable
  readonly messages: MessagesTable
  readonly inbound_messages: InboundMessagesTable
}

export const customerColumns = Columns.map<Customer.Customer, CustomersTable>("customers", {
  ...Columns.owned,
  phone: ["phone", Columns.text],
  waId: ["wa_id", Columns.text],
  profileName: ["profile_name", Columns.text],
  lastInboundAt: ["last_inbound_at", Columns.nullable(Columns.epoch)],
  ...Columns.stamps
})

export const customerSelect = ["id", "store_id", "mode", "phone", "wa_id", "profile_name", "last_inbound_at", "created_at", "updated_at"] as const

/** An opt-out row but for its tenant columns (the tenant is the list's). */
export const optOutColumns = Columns.map<OptOut.OptOut, Pick<OptOutsTable, "phone" | "source" | "created_at">>("opt_outs", {
  phone: ["phone", Columns.text],
  source: ["source", Columns.text],
  createdAt: ["created_at", Columns.epoch]
})

const messageFields = Columns.map<Omit<Message.Message, "error">, Omit<MessagesTable, "error_code" | "error_title">>("messages", {
  ...Columns.owned,
  to: ["to_phone", Columns.text],
  type: ["type", Columns.text],
  content: ["content", Columns.anyJson],
  status: ["status", Columns.text],
  operatorMessageId: ["operator_message_id", Columns.text],
  flowToken: ["flow_token", Columns.text],
  ...Columns.stamps
})

/** A message row, both ways: the operator's error spans `error_code` and `error_title`. */
export const messageColumns: Columns.ColumnMap<Message.Message, MessagesTable> = {
  toRow: ({ error, ...fields }) => ({
    ...messageFields.toRow(fields),
    error_code: error?.code ?? null,
    error_title: error?.title ?? null
  }),
  fromRow: (row) => ({
    ...messageFields.fromRow(row),
    error: row.error_code === null ? null : { code: Number(row.error_code), title: row.error_title ?? "" }
  }),
  column: { ...messageFields.column, error: "error_code" }
}

export const messageSelect = [
  "id",
  "store_id",
  "mode",
  "to_phone",
  "type",
  "content",
  "status",
  "operator_message_id",
  "error_code",
  "error_title",
  "flow_token",
  "created_at",
  "updated_at"
] as const

export const inboundMessageColumns = Columns.map<InboundMessage.InboundMessage, InboundMessagesTable>("inbound_messages", {
  ...Columns.owned,
  operatorMessageId: ["operator_message_id", Columns.text],
  from: ["from_phone", Columns.text],
  type: ["type", Columns.text],
  text: ["text", Columns.text],
  receivedAt: ["received_at", Columns.epoch]
})
