/**
 * The outbox of mirrored writes (`Mirror.ts`): one row per operator call a prepared local
 * write waits on, written in the prepare's transaction. Its status is the protocol:
 *
 *   pending ──(settled)──► done
 *      └────(refused, compensated)──► rolled_back
 *
 * Every move is a compare-and-set on (id, status pending, attempt): the inline path holds
 * attempt 1, and a sweep takes the row over by moving it to the next attempt (`claim`) before
 * it calls the operator, so the two never both settle.
 */
import { Context, type Effect, type Option } from "effect"
import type { Tenant } from "./Tenant.js"
import type { Millis } from "./Time.js"

export type Status = "pending" | "done" | "rolled_back"

export interface Entry {
  readonly id: string
  readonly storeId: string
  readonly mode: Tenant["mode"]
  /** The mirror kind (`Mirror.Kind.kind`) that rebuilds the call and the settle. */
  readonly kind: string
  /** The kind's payload, Schema-encoded. */
  readonly payload: unknown
  /** The idempotency key of the operator call (also the row's id). */
  readonly key: string
  /** 1 for the inline path; each sweep takes the row over at the next attempt. */
  readonly attempt: number
  readonly status: Status
  readonly createdAt: Millis
  readonly updatedAt: Millis
}

export class MirrorOutbox extends Context.Tag("@switchboard/domain/MirrorOutbox")<
  MirrorOutbox,
  {
    /** Writes a pending row. Joins the caller's transaction. */
    readonly insert: (entry: Entry) => Effect.Effect<void>
    /** The row by id, whatever its tenant (the sweep's read; ids are never shown to callers). */
    readonly find: (id: string) => Effect.Effect<Option.Option<Entry>>
    /** pending at `attempt` → pending at `attempt + 1`; false when the row moved meanwhile. */
    readonly claim: (id: string, attempt: number, now: Millis) => Effect.Effect<boolean>
    /** pending at `attempt` → `status`; false when the row moved meanwhile. Joins the caller's transaction. */
    readonly finish: (id: string, attempt: number, status: Exclude<Status, "pending">, now: Millis) => Effect.Effect<boolean>
    /** The tenant's rows of `kind` still pending, oldest first (what a crash left unfinished). */
    readonly pending: (tenant: Tenant, kind: string) => Effect.Effect<ReadonlyArray<Entry>>
  }
>() {}
