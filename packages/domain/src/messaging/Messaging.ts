/**
 * The messaging routes besides sending (`Sending.ts`): reading a message, the customers,
 * the opt-out list, and the sandbox customer (test keys only). Every route works in the
 * caller's tenant; an id of another store or mode answers exactly as an unknown one.
 */
import { Duration, Effect, Option, Schedule } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import * as Customer from "./Customer.js"
import type * as InboundMessage from "./InboundMessage.js"
import * as Message from "./Message.js"
import { CustomerRepo, MessageRepo, OptOutRepo } from "./MessagingRepo.js"
import * as OptOut from "./OptOut.js"
import { optIn, optOut } from "./OptOuts.js"

/** `GET /chat/messages/:id`. */
export const getMessage = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* MessageRepo
    return yield* Id.lookup(Message.MessageId, "message", id, (messageId) => repo.findById(tenant, messageId))
  })

/** `GET /chat/messages`: the tenant's messages newest first, filtered by status and recipient. */
export const listMessages = (query: typeof Message.ListMessages.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const to = query.to === undefined ? undefined : yield* phoneOrFail(query.to, "to")
    const slice = yield* (yield* MessageRepo).list(tenant, { limit: query.limit, after: query.cursor, status: query.status, to })
    return Pagination.pageOf(slice, Message.MessageId.schema, (m) => m.id)
  })

// ---------------------------------------------------------------------------------------
// customers

/** `GET /chat/customers`: newest first, each with its window and opt-out now. */
export const listCustomers = (query: { readonly limit: number; readonly cursor?: Customer.CustomerId | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* CustomerRepo).list(tenant, { limit: query.limit, after: query.cursor })
    const optedOut = yield* (yield* OptOutRepo).filterOptedOut(
      tenant,
      slice.items.map((c) => c.phone)
    )
    const now = yield* Time.now
    const views = { items: slice.items.map((c) => Customer.view(c, optedOut.has(c.phone), now)), hasMore: slice.hasMore }
    return Pagination.pageOf(views, Customer.CustomerId.schema, (c) => c.id)
  })

/** `GET /chat/customers/:id`. */
export const getCustomer = (id: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const repo = yield* CustomerRepo
    const customer = yield* Id.lookup(Customer.CustomerId, "customer", id, (customerId) => repo.findById(tenant, customerId))
    const optedOut = yield* (yield* OptOutRepo).isOptedOut(tenant, customer.phone)
    return Customer.view(customer, optedOut, yield* Time.now)
  })

// ---------------------------------------------------------------------------------------
// the opt-out list

/** `GET /chat/opt-outs`: ordered by phone; the cursor is the last phone of the previous page. */
export const listOptOuts = (query: { readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const slice = yield* (yield* OptOutRepo).list(tenant, { limit: query.limit, after: query.cursor })
    return Pagination.pageOf(slice, OptOut.Position, (o) => o.phone)
  })

const phoneOrFail = (raw: string, path: string) => {
  const phone = Phone.normalize(raw)
  return phone === undefined
    ? Effect.fail(Errors.ValidationFailed.of(path, "must be a phone number in E.164 form, e.g. +15551230001"))
    : Effect.succeed(phone)
}

/** `POST /chat/opt-outs`: `created` is false when the phone was on the list already. */
export const addOptOut = (input: typeof OptOut.AddOptOut.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const phone = yield* phoneOrFail(input.phone, "phone")
    const added = yield* optOut(tenant, phone, "api")
    return { phone, opted_out: true as const, created: added }
  })

/** `DELETE /chat/opt-outs/:phone`: 404 when the phone is not on the list. */
export const removeOptOut = (rawPhone: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const phone = yield* phoneOrFail(rawPhone, "phone")
    if (!(yield* optIn(tenant, phone))) return yield* new Errors.ResourceNotFound({ resource: "opt-out", id: phone })
    return { phone, opted_out: false as const }
  })

// ---------------------------------------------------------------------------------------
// sandbox

/** How long the sandbox route waits for the inbound message to be applied (the worker polls every 100 ms). */
export const SANDBOX_APPLY_TIMEOUT = Duration.seconds(10)

/**
 * The customer of an inbound message once the inbox has applied it, checked every 25 ms;
 * none when it was not applied within `SANDBOX_APPLY_TIMEOUT` (no worker running, say).
 */
const appliedCustomer = (tenant: Tenant, operatorMessageId: string) =>
  Effect.gen(function* () {
    const repo = yield* CustomerRepo
    const found = yield* repo
      .findByInboundMessage(tenant, operatorMessageId)
      .pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail("not yet applied" as const), onSome: Effect.succeed })),
        Effect.retry(Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(SANDBOX_APPLY_TIMEOUT))),
        Effect.option
      )
    if (Option.isNone(found)) {
      yield* Effect.logWarning("the sandbox inbound message was delivered but not applied in time: is a worker running?", { operatorMessageId })
    }
    return found
  })

/**
 * A sandbox customer writes to the store's sandbox number (test keys only). Answers once the
 * message has been applied, so the customer exists and its window is open: a reply sent right
 * after the answer is inside the window. `customer_id` is null only when it was not applied
 * within `SANDBOX_APPLY_TIMEOUT`.
 */
export const sandboxInbound = (input: typeof InboundMessage.SandboxInbound.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const from = yield* phoneOrFail(input.from, "from")
    if (input.text.length === 0 || input.text.length > Message.TEXT_LIMIT) {
      return yield* Errors.ValidationFailed.of("text", `must be 1 to ${Message.TEXT_LIMIT} characters`)
    }
    const sent = yield* (yield* SandboxCustomer).sendInbound(store.sandbox, { from, text: input.text, profileName: input.profile_name })
    const customer = sent.messageId === "" ? Option.none() : yield* appliedCustomer(tenant, sent.messageId)
    return {
      accepted: true as const,
      operator_message_id: sent.messageId,
      customer_id: Option.match(customer, { onNone: () => null, onSome: (c) => c.id })
    }
  })
