/**
 * Storage ports of the messaging backbone. Every method a route can reach takes the tenant
 * first and sees only the tenant's rows: another store's or the other mode's rows are
 * invisible. Methods only the operator's webhooks use (recording inbound messages and
 * customers, finding a message by the operator's id) live on their own tags, which routes
 * never receive.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { StoreId, Tenant } from "../shared/Tenant.js"
import type { Millis } from "../shared/Time.js"
import type { Customer, CustomerId } from "./Customer.js"
import type { InboundMessage } from "./InboundMessage.js"
import type { Message, MessageError, MessageId, Status } from "./Message.js"
import type { OptOut, Source } from "./OptOut.js"

export class CustomerRepo extends Context.Tag("@switchboard/domain/CustomerRepo")<
  CustomerRepo,
  {
    readonly findById: (tenant: Tenant, id: CustomerId) => Effect.Effect<Option.Option<Customer>>
    readonly findByPhone: (tenant: Tenant, phone: string) => Effect.Effect<Option.Option<Customer>>
    /**
     * The customer who sent the inbound message with this operator id (wamid), once the
     * inbox has applied it (the message and its customer are recorded in one transaction);
     * none before, and none for an operator notice (which makes no customer).
     */
    readonly findByInboundMessage: (tenant: Tenant, operatorMessageId: string) => Effect.Effect<Option.Option<Customer>>
    /** The customers among `ids` that exist in this tenant (unknown ids are simply absent). */
    readonly findManyByIds: (tenant: Tenant, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Customer>>
    /** Newest first, rows with id < `after` when given. */
    readonly list: (tenant: Tenant, page: PageRequest & { readonly after?: CustomerId | undefined }) => Effect.Effect<Slice<Customer>>
  }
>() {}

/** A customer's inbound message, as it touches the customer: who wrote, under which name, when; `newId` if it is new. */
export interface InboundCustomer {
  readonly phone: string
  readonly waId: string
  readonly profileName: string | null
  readonly at: Millis
  readonly newId: CustomerId
}

/** Customers as inbound messages make them (the inbox only). */
export class CustomerInboundRepo extends Context.Tag("@switchboard/domain/CustomerInboundRepo")<
  CustomerInboundRepo,
  {
    /**
     * Creates the customer of `phone` (with `newId`) or updates it: profile name when given,
     * and `lastInboundAt` to the later of the stored and the given time. One statement:
     * concurrent first messages of one phone make one row. Answers the row.
     */
    readonly recordInbound: (tenant: Tenant, input: InboundCustomer) => Effect.Effect<Customer>
    /**
     * `recordInbound` for several phones at once, one upsert per chunk: `inputs` name each
     * phone once (the caller folds several messages of one phone into one input). Answers
     * each phone's row.
     */
    readonly recordInbounds: (tenant: Tenant, inputs: ReadonlyArray<InboundCustomer>) => Effect.Effect<ReadonlyMap<string, Customer>>
  }
>() {}

export class OptOutRepo extends Context.Tag("@switchboard/domain/OptOutRepo")<
  OptOutRepo,
  {
    /** Adds the phone; answers false when it was already on the list (the first source stays). */
    readonly add: (tenant: Tenant, phone: string, source: Source) => Effect.Effect<boolean>
    /** Removes the phone; answers false when it was not on the list. */
    readonly remove: (tenant: Tenant, phone: string) => Effect.Effect<boolean>
    /** `add` of each of `phones` (any number) with one source; answers the phones added now. */
    readonly addMany: (tenant: Tenant, phones: ReadonlyArray<string>, source: Source) => Effect.Effect<ReadonlySet<string>>
    /** `remove` of each of `phones` (any number); answers the phones that were on the list. */
    readonly removeMany: (tenant: Tenant, phones: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
    readonly isOptedOut: (tenant: Tenant, phone: string) => Effect.Effect<boolean>
    /** The subset of `phones` on the list (any number of phones). */
    readonly filterOptedOut: (tenant: Tenant, phones: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
    /** Ordered by phone; `after` is a phone. */
    readonly list: (tenant: Tenant, page: PageRequest) => Effect.Effect<Slice<OptOut>>
  }
>() {}

export class MessageRepo extends Context.Tag("@switchboard/domain/MessageRepo")<
  MessageRepo,
  {
    /** Stores the message in the tenant. */
    readonly insert: (tenant: Tenant, message: Message) => Effect.Effect<void>
    readonly findById: (tenant: Tenant, id: MessageId) => Effect.Effect<Option.Option<Message>>
    /**
     * The tenant's messages newest first (by id), rows with id < `after` when given, only
     * those in `status` and to `to` (E.164) when given.
     */
    readonly list: (
      tenant: Tenant,
      page: PageRequest & {
        readonly after?: MessageId | undefined
        readonly status?: Status | undefined
        readonly to?: string | undefined
      }
    ) => Effect.Effect<Slice<Message>>
    /** Records the operator's acceptance: status `accepted` (only from `pending`) and the wamid. */
    readonly markAccepted: (tenant: Tenant, id: MessageId, operatorMessageId: string) => Effect.Effect<boolean>
    /**
     * Moves the status to `to` only from one of `from` (see Message.predecessors), sets the
     * wamid when it was unknown and the error when given. Answers whether a row changed:
     * of many concurrent identical reports exactly one answers true.
     */
    readonly advanceStatus: (
      tenant: Tenant,
      id: MessageId,
      update: {
        readonly to: Status
        readonly from: ReadonlyArray<Status>
        readonly operatorMessageId?: string | undefined
        readonly error?: MessageError | undefined
      }
    ) => Effect.Effect<boolean>
  }
>() {}

/** One message's change in `MessageStatusRepo.advanceStatuses`. */
export interface StatusChange {
  readonly id: MessageId
  readonly from: Status
  readonly to: Status
  readonly operatorMessageId: string
  readonly error?: MessageError | undefined
}

/** How the operator's status webhooks find and advance messages: in the store the number belongs to, either mode (the inbox only). */
export class MessageStatusRepo extends Context.Tag("@switchboard/domain/MessageStatusRepo")<
  MessageStatusRepo,
  {
    /** The message with this operator id (wamid) in the store, any mode. */
    readonly findByOperatorId: (storeId: StoreId, operatorMessageId: string) => Effect.Effect<Option.Option<Message>>
    /**
     * The messages with these operator ids (wamids) in the store, any mode, in any order.
     * Inside a transaction they stay locked until it ends, taken in the order of their ids
     * (PostgreSQL; SQLite has one writer): batches that read their messages here and then
     * advance them wait for each other instead of deadlocking, and read what the other wrote.
     */
    readonly findByOperatorIds: (storeId: StoreId, operatorMessageIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Message>>
    /**
     * Moves many messages of the store at once, each only from the status it was read in
     * (`from`) to `to`, filling in the wamid when it was unknown and setting the error when
     * given, as `MessageRepo.advanceStatus` does for one: in one statement (per few hundred).
     * Answers the ids of the messages that changed; one no longer in its `from` is left as is.
     */
    readonly advanceStatuses: (storeId: StoreId, changes: ReadonlyArray<StatusChange>) => Effect.Effect<ReadonlySet<MessageId>>
    /** The message with this id in the store, any mode (the callback data of our sends). */
    readonly findInStore: (storeId: StoreId, id: MessageId) => Effect.Effect<Option.Option<Message>>
  }
>() {}

export class InboundMessageRepo extends Context.Tag("@switchboard/domain/InboundMessageRepo")<
  InboundMessageRepo,
  {
    /** Records an inbound message by its wamid; answers false when it was recorded before (a duplicate). */
    readonly record: (tenant: Tenant, message: Omit<InboundMessage, "storeId" | "mode">) => Effect.Effect<boolean>
    /**
     * Records several inbound messages in one multi-row insert per chunk, each by its wamid
     * (the messages name each wamid once); answers the wamids recorded now (the others were
     * recorded before).
     */
    readonly recordMany: (tenant: Tenant, messages: ReadonlyArray<Omit<InboundMessage, "storeId" | "mode">>) => Effect.Effect<ReadonlySet<string>>
  }
>() {}
