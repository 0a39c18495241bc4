/**
 * What the operator's webhooks do to the messaging backbone (run by the inbox, never by a
 * route): inbound messages (customers, the 24-hour window, STOP/START keywords), the
 * marketing preference signal, and status reports of messages sent through
 * `POST /chat/messages`. Every handler is idempotent on the event's natural key: a replayed
 * webhook changes nothing and emits nothing.
 */
import { Effect, Option } from "effect"
import * as Phone from "../shared/Phone.js"
import type { Mode, Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { USER_STOPPED_MARKETING } from "../operator/ErrorCode.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import { CustomerId } from "./Customer.js"
import { InboundMessageId } from "./InboundMessage.js"
import * as Message from "./Message.js"
import { CustomerInboundRepo, type InboundCustomer, InboundMessageRepo, MessageRepo, MessageStatusRepo } from "./MessagingRepo.js"
import * as OptOut from "./OptOut.js"
import { optIn, optOut } from "./OptOuts.js"

/**
 * The mode an event on this account belongs to: a live number's events are live data, the
 * sandbox number's are test data, always. Test keys never touch live data: on a store without
 * live credentials (the embedded default, where the emulator is the operator for both keys)
 * a sandbox customer's message, STOP or preference still reaches only the test side.
 */
export const modesOf = (_store: Store, kind: AccountKind): ReadonlyArray<Mode> => (kind === "live" ? ["live"] : ["test"])

/** A customer wrote: record the message once (by wamid), the customer and its window, and keywords. */
export const onInboundMessage = (store: Store, kind: AccountKind, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    const phone = Phone.fromWaId(event.from)
    if (phone === undefined) return yield* Effect.logWarning("inbound message from an invalid wa_id", { from: event.from })
    for (const mode of modesOf(store, kind)) {
      const tenant: Tenant = { storeId: store.id, mode }
      const fresh = yield* (yield* InboundMessageRepo).record(tenant, yield* recordOf(event, phone))
      if (!fresh) continue
      const customer = yield* (yield* CustomerInboundRepo).recordInbound(tenant, yield* customerOf(event, phone))
      yield* received(tenant, customer.id, phone, event)
    }
  })

/** The inbound message row of a customer's message or an operator notice (of its notice kind as its type). */
export const recordOf = (event: WebhookEvent.InboundMessage | WebhookEvent.OperatorNotice, phone: string) =>
  Effect.map(InboundMessageId.generate, (id) => ({
    id,
    operatorMessageId: event.messageId,
    from: phone,
    type: event._tag === "OperatorNotice" ? event.kind : event.type,
    text: event.text,
    receivedAt: event.timestamp
  }))

/** What a customer's message does to the customer (a new one's id drawn now). */
export const customerOf = (event: WebhookEvent.InboundMessage, phone: string) =>
  Effect.map(
    CustomerId.generate,
    (newId): InboundCustomer => ({ phone, waId: event.from, profileName: event.profileName, at: event.timestamp, newId })
  )

/** What follows a fresh customer message: the caller's `message.received`, then the STOP/START keyword it carries. */
export const received = (tenant: Tenant, customerId: CustomerId, phone: string, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    yield* Webhooks.emit(tenant, "message.received", {
      customer_id: customerId,
      from: phone,
      type: event.type,
      text: event.text,
      operator_message_id: event.messageId,
      received_at: Time.toIso(event.timestamp),
      ...(event.reply === null ? {} : { reply: { id: event.reply.id, title: event.reply.title, description: event.reply.description } })
    })
    const intent = OptOut.keywordIntent(event.type === "text" ? event.text : null)
    if (intent === "stop") yield* optOut(tenant, phone, "keyword")
    if (intent === "start") yield* optIn(tenant, phone)
  })

/**
 * An operator notice (`system`, `revoke`, `edit`, `unsupported`): recorded once (by its
 * wamid) as an inbound message of its own type, so it is kept for what it is. It is not a
 * customer message: no customer is created or touched (the window neither opens nor
 * renews), no keyword is read, no `message.received` is emitted.
 */
export const onOperatorNotice = (store: Store, kind: AccountKind, event: WebhookEvent.OperatorNotice) =>
  Effect.gen(function* () {
    const phone = event.from === null ? undefined : Phone.fromWaId(event.from)
    if (phone === undefined)
      return yield* Effect.logInfo(`operator ${event.kind} notice without a customer's number; not recorded`, { id: event.messageId })
    for (const mode of modesOf(store, kind)) {
      yield* (yield* InboundMessageRepo).record({ storeId: store.id, mode }, yield* recordOf(event, phone))
    }
  })

/** The operator's marketing preference signal (`user_preferences`). */
export const onMarketingPreference = (store: Store, kind: AccountKind, event: WebhookEvent.MarketingPreference) =>
  Effect.gen(function* () {
    const phone = Phone.fromWaId(event.waId)
    if (phone === undefined) return
    for (const mode of modesOf(store, kind)) {
      const tenant: Tenant = { storeId: store.id, mode }
      yield* event.optedOut ? optOut(tenant, phone, "operator_preference") : optIn(tenant, phone)
    }
  })

/** The message a status report names: by our callback data (a message id) first, else by the wamid. */
const findReported = (store: Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const repo = yield* MessageStatusRepo
    const byOperatorId = yield* repo.findByOperatorId(store.id, event.messageId)
    if (Option.isSome(byOperatorId) || event.callbackData === null || !Message.MessageId.is(event.callbackData)) return byOperatorId
    return yield* repo.findInStore(store.id, event.callbackData)
  })

/**
 * A status report for a message sent through `POST /chat/messages`, matched by our callback
 * data (the message id) or by the wamid. Moves the status forward only; a duplicate or an
 * older report changes nothing and emits nothing. Answers whether it matched a message.
 */
export const onMessageStatus = (store: Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const found = yield* findReported(store, event)
    if (Option.isNone(found)) return false
    const message = found.value
    const to = Message.advance(message.status, event.status)
    if (to === undefined) return true
    const tenant: Tenant = { storeId: message.storeId, mode: message.mode }
    const changed = yield* (yield* MessageRepo).advanceStatus(tenant, message.id, {
      to,
      from: Message.predecessors(to),
      operatorMessageId: event.messageId,
      error: event.error ?? undefined
    })
    if (!changed) return true
    yield* statusChanged(tenant, message, to, event)
    return true
  })

/** What follows a status change: the caller's `message.status` event, and the opt-out a 131050 failure means. */
export const statusChanged = (tenant: Tenant, message: Message.Message, to: Message.Status, event: WebhookEvent.MessageStatus) => {
  // no generator: a batch of statuses runs this once per status change
  const emitted = Webhooks.emit(tenant, "message.status", {
    message_id: message.id,
    to: message.to,
    status: to,
    operator_message_id: event.messageId,
    error: event.error ? { code: event.error.code, message: event.error.title } : null,
    at: Time.toIso(event.timestamp)
  })
  return to === "failed" && event.error?.code === USER_STOPPED_MARKETING
    ? Effect.zipRight(emitted, optOut(tenant, message.to, "operator_error"))
    : emitted
}
