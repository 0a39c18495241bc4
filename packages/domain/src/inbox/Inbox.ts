import { Context, type Effect, type Option } from "effect"
import type { AccountKind } from "../stores/Store.js"

/** One verified operator webhook POST, stored before it is acknowledged. */
export interface InboxEntry {
  readonly id: string
  /** Which app secret signed it; routing refuses numbers of the other kind. */
  readonly kind: AccountKind
  /** The raw body as received (UTF-8 JSON). */
  readonly body: string
  readonly receivedAt: Date
}

/**
 * The inbox of operator webhooks: written on receipt (with the job that processes it, in
 * one transaction), read by that job, kept for audit.
 */
export class Inbox extends Context.Tag("@switchboard/domain/Inbox")<
  Inbox,
  {
    readonly insert: (entry: InboxEntry) => Effect.Effect<void>
    readonly find: (id: string) => Effect.Effect<Option.Option<InboxEntry>>
    readonly markProcessed: (id: string, outcome: string) => Effect.Effect<void>
  }
>() {}
