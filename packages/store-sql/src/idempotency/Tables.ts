/** The `idempotency_keys` table (migration 0001): first responses by (scope, key). */

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

export interface IdempotencyTables {
  readonly idempotency_keys: IdempotencyKeysTable
}
