import { Context, type Effect, type Option } from "effect"

/** A stored first response, replayed for the same key and request. */
export interface StoredResponse {
  readonly status: number
  readonly body: string
}

export type Reservation =
  | { readonly _tag: "Reserved" }
  | { readonly _tag: "Completed"; readonly requestHash: string; readonly response: StoredResponse }
  | { readonly _tag: "InProgress"; readonly requestHash: string }

/**
 * Idempotency keys, scoped by store and mode. `reserve` atomically claims a key for a
 * request hash; a second caller sees the first's state. A reservation older than the
 * lock timeout whose request never completed is taken over.
 */
export class IdempotencyStore extends Context.Tag("@switchboard/domain/IdempotencyStore")<
  IdempotencyStore,
  {
    readonly reserve: (scope: string, key: string, requestHash: string, lockTimeoutMs: number) => Effect.Effect<Reservation>
    readonly complete: (scope: string, key: string, response: StoredResponse) => Effect.Effect<void>
    /** Forgets a reservation whose request failed before doing anything durable. */
    readonly release: (scope: string, key: string) => Effect.Effect<void>
    readonly find: (scope: string, key: string) => Effect.Effect<Option.Option<StoredResponse>>
  }
>() {}
