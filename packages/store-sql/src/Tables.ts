/**
 * The tables as Kysely sees them. One schema serves both dialects: timestamps are integer
 * epoch milliseconds (`bigint` on PostgreSQL, INTEGER affinity on SQLite), JSON is TEXT,
 * booleans are integers 0/1. Later modules add their tables here and a migration for them.
 */

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

export interface ApiKeysTable {
  readonly id: string
  readonly store_id: string
  readonly mode: "live" | "test"
  /** SHA-256 of the key, lower-case hex; unique. */
  readonly hash: string
  readonly hint: string
  readonly created_at: number
}

export interface TemplatesTable {
  readonly id: string
  readonly store_id: string
  readonly name: string
  readonly language: string
  readonly category: string
  readonly status: string
  /** JSON array of components. */
  readonly components: string
  readonly rejected_reason: string | null
  readonly operator_id: string | null
  readonly created_at: number
  readonly updated_at: number
}

export type JobStatus = "queued" | "running" | "done" | "dead"

export interface JobsTable {
  readonly id: string
  readonly kind: string
  /** JSON. */
  readonly payload: string
  readonly status: JobStatus
  readonly run_at: number
  readonly attempt: number
  readonly locked_by: string | null
  readonly lease_expires_at: number | null
  readonly dedupe_key: string | null
  readonly last_error: string | null
  readonly created_at: number
  readonly updated_at: number
}

export interface InboxTable {
  readonly id: string
  readonly kind: "live" | "sandbox"
  readonly body: string
  readonly received_at: number
  readonly processed_at: number | null
  readonly outcome: string | null
}

export type IdempotencyStatus = "in_progress" | "completed"

export interface IdempotencyKeysTable {
  readonly scope: string
  readonly key: string
  readonly request_hash: string
  readonly status: IdempotencyStatus
  readonly response_status: number | null
  readonly response_body: string | null
  readonly created_at: number
  readonly updated_at: number
}

type Mode = "live" | "test"

export interface CustomersTable {
  readonly id: string
  readonly store_id: string
  readonly mode: Mode
  readonly phone: string
  readonly wa_id: string
  readonly profile_name: string | null
  readonly last_inbound_at: number | null
  readonly created_at: number
  readonly updated_at: number
}

export interface OptOutsTable {
  readonly store_id: string
  readonly mode: Mode
  readonly phone: string
  readonly source: string
  readonly created_at: number
}

export interface MessagesTable {
  readonly id: string
  readonly store_id: string
  readonly mode: Mode
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

export interface InboundMessagesTable {
  readonly id: string
  readonly store_id: string
  readonly mode: Mode
  readonly operator_message_id: string
  readonly from_phone: string
  readonly type: string
  readonly text: string | null
  readonly received_at: number
}

export interface WebhookEndpointsTable {
  readonly id: string
  readonly store_id: string
  readonly mode: Mode
  readonly url: string
  /** JSON array of event types. */
  readonly events: string
  readonly secret: string
  readonly status: string
  readonly disabled_reason: string | null
  readonly created_at: number
  readonly updated_at: number
}

export interface WebhookEventsTable {
  readonly id: string
  readonly store_id: string
  readonly mode: Mode
  readonly type: string
  /** JSON. */
  readonly data: string
  readonly created_at: number
}

export interface WebhookDeliveriesTable {
  readonly id: string
  readonly endpoint_id: string
  readonly event_id: string
  readonly attempt: number
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly created_at: number
}

export interface Tables {
  readonly stores: StoresTable
  readonly api_keys: ApiKeysTable
  readonly templates: TemplatesTable
  readonly jobs: JobsTable
  readonly inbox: InboxTable
  readonly idempotency_keys: IdempotencyKeysTable
  readonly customers: CustomersTable
  readonly opt_outs: OptOutsTable
  readonly messages: MessagesTable
  readonly inbound_messages: InboundMessagesTable
  readonly webhook_endpoints: WebhookEndpointsTable
  readonly webhook_events: WebhookEventsTable
  readonly webhook_deliveries: WebhookDeliveriesTable
}
