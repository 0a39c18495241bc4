import { Context, type Effect, Schema } from "effect"
import * as Id from "../shared/Id.js"
import type { Millis } from "../shared/Time.js"
import { AccountKind } from "../stores/Store.js"

export const InboxEntryId = Id.kind("ibx", "InboxEntryId")
export type InboxEntryId = Id.Of<typeof InboxEntryId>

/** One verified operator webhook POST, stored before it is acknowledged. */
export const InboxEntry = Schema.Struct({
  id: InboxEntryId.schema,
  /** Which app secret signed it; routing refuses numbers of the other kind. */
  kind: AccountKind,
  /** The raw body as received (UTF-8 JSON). */
  body: Schema.String,
  receivedAt: Schema.Number
}).annotations({ identifier: "InboxEntry" })
export interface InboxEntry extends Schema.Schema.Type<typeof InboxEntry> {
  readonly receivedAt: Millis
}

/**
 * The inbox of operator webhooks: written on receipt, a batch at a time (with the job that
 * processes the batch, in one transaction), read by that job, kept for audit. Only the
 * operator webhook intake and the inbox job use it.
 */
export class Inbox extends Context.Tag("@switchboard/domain/Inbox")<
  Inbox,
  {
    readonly insert: (entries: ReadonlyArray<InboxEntry>) => Effect.Effect<void>
    /** The entries found of `ids`, in the order of `ids`. */
    readonly find: (ids: ReadonlyArray<InboxEntryId>) => Effect.Effect<ReadonlyArray<InboxEntry>>
    /** Records the outcome of processing and when (the `Clock`'s time). */
    readonly markProcessed: (ids: ReadonlyArray<InboxEntryId>, outcome: string) => Effect.Effect<void>
  }
>() {}
