/**
 * Storage ports of the messaging backbone. Every method is scoped by (storeId, mode):
 * another store's or the other mode's rows are invisible.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Mode } from "../shared/Tenant.js"
import type { Customer } from "./Customer.js"
import type { Message, MessageError, Status } from "./Message.js"
import type { OptOut, Source } from "./OptOut.js"

export interface Scope {
  readonly storeId: string
  readonly mode: Mode
}

export class CustomerRepo extends Context.Tag("@switchboard/domain/CustomerRepo")<
  CustomerRepo,
  {
    /**
     * Creates the customer of `phone` or updates it: profile name when given, and
     * `lastInboundAt` to the later of the stored and the given time. Answers the row.
     */
    readonly recordInbound: (
      scope: Scope,
      input: { readonly phone: string; readonly waId: string; readonly profileName: string | null; readonly at: Date; readonly newId: string }
    ) => Effect.Effect<Customer>
    readonly findById: (scope: Scope, id: string) => Effect.Effect<Option.Option<Customer>>
    readonly findByPhone: (scope: Scope, phone: string) => Effect.Effect<Option.Option<Customer>>
    /** The customers among `ids` that exist in this scope (unknown ids are simply absent). */
    readonly findManyByIds: (scope: Scope, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Customer>>
    /** Newest first. */
    readonly list: (scope: Scope, page: PageRequest) => Effect.Effect<Slice<Customer>>
  }
>() {}

export class OptOutRepo extends Context.Tag("@switchboard/domain/OptOutRepo")<
  OptOutRepo,
  {
    /** Adds the phone; answers false when it was already on the list (the first source stays). */
    readonly add: (scope: Scope, phone: string, source: Source) => Effect.Effect<boolean>
    /** Removes the phone; answers false when it was not on the list. */
    readonly remove: (scope: Scope, phone: string) => Effect.Effect<boolean>
    readonly isOptedOut: (scope: Scope, phone: string) => Effect.Effect<boolean>
    /** The subset of `phones` on the list. */
    readonly filterOptedOut: (scope: Scope, phones: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
    /** Ordered by phone; `after` is a phone. */
    readonly list: (scope: Scope, page: PageRequest) => Effect.Effect<Slice<OptOut>>
  }
>() {}

export class MessageRepo extends Context.Tag("@switchboard/domain/MessageRepo")<
  MessageRepo,
  {
    readonly insert: (message: Message) => Effect.Effect<void>
    readonly findById: (scope: Scope, id: string) => Effect.Effect<Option.Option<Message>>
    /** The message with this operator id (wamid) in the store, any mode. */
    readonly findByOperatorId: (storeId: string, operatorMessageId: string) => Effect.Effect<Option.Option<Message>>
    /** Records the operator's acceptance: status `accepted` (only from `pending`) and the wamid. */
    readonly markAccepted: (id: string, operatorMessageId: string) => Effect.Effect<boolean>
    /**
     * Moves the status to `to` only from one of `from` (see Message.predecessors), sets the
     * wamid when it was unknown and the error when given. Answers whether a row changed:
     * of many concurrent identical reports exactly one answers true.
     */
    readonly advanceStatus: (
      id: string,
      update: { readonly to: Status; readonly from: ReadonlyArray<Status>; readonly operatorMessageId?: string | undefined; readonly error?: MessageError | undefined }
    ) => Effect.Effect<boolean>
  }
>() {}

export class InboundMessageRepo extends Context.Tag("@switchboard/domain/InboundMessageRepo")<
  InboundMessageRepo,
  {
    /** Records an inbound message by its wamid; answers false when it was recorded before (a duplicate). */
    readonly record: (
      scope: Scope,
      input: { readonly id: string; readonly operatorMessageId: string; readonly from: string; readonly type: string; readonly text: string | null; readonly receivedAt: Date }
    ) => Effect.Effect<boolean>
  }
>() {}
