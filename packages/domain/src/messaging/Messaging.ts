/**
 * The messaging backbone's use cases: what inbound operator events do (customers, the
 * 24-hour window, opt-outs, message statuses), sending a message, and the customer and
 * opt-out routes.
 */
import { Effect, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Pagination from "../shared/Pagination.js"
import * as Phone from "../shared/Phone.js"
import { CurrentTenant, type Mode } from "../shared/Tenant.js"
import { USER_STOPPED_MARKETING } from "../operator/ErrorCode.js"
import { MessageOperator, type OutboundMessage } from "../operator/MessageOperator.js"
import { SandboxCustomer } from "../operator/SandboxCustomer.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Store from "../stores/Store.js"
import type { AccountKind } from "../stores/Store.js"
import * as Template from "../templates/Template.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import { currentStore } from "../templates/Templates.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Customer from "./Customer.js"
import * as Message from "./Message.js"
import { CustomerRepo, InboundMessageRepo, MessageRepo, OptOutRepo, type Scope } from "./MessagingRepo.js"
import * as OptOut from "./OptOut.js"

/**
 * The modes an event on this account belongs to: a live number serves live data; a sandbox
 * number serves test data, and live data too when the store has no live account (the
 * embedded default, where the emulator is the operator for both keys).
 */
export const modesOf = (store: Store.Store, kind: AccountKind): ReadonlyArray<Mode> =>
  kind === "live" ? ["live"] : store.live === null ? ["test", "live"] : ["test"]

const scopeOf = Effect.map(CurrentTenant, (t): Scope => ({ storeId: t.storeId, mode: t.mode }))

/** A customer wrote: record the message once (by wamid), the customer and its window, and keywords. */
export const onInboundMessage = (store: Store.Store, kind: AccountKind, event: WebhookEvent.InboundMessage) =>
  Effect.gen(function* () {
    const phone = Phone.fromWaId(event.from)
    if (phone === undefined) return yield* Effect.logWarning("inbound message from an invalid wa_id", { from: event.from })
    for (const mode of modesOf(store, kind)) {
      const scope: Scope = { storeId: store.id, mode }
      const fresh = yield* (yield* InboundMessageRepo).record(scope, {
        id: Id.make("inm"),
        operatorMessageId: event.messageId,
        from: phone,
        type: event.type,
        text: event.text,
        receivedAt: event.timestamp
      })
      if (!fresh) continue
      const customer = yield* (yield* CustomerRepo).recordInbound(scope, {
        phone,
        waId: event.from,
        profileName: event.profileName,
        at: event.timestamp,
        newId: Id.make("cus")
      })
      yield* Webhooks.emit(scope, "message.received", {
        customer_id: customer.id,
        from: phone,
        type: event.type,
        text: event.text,
        operator_message_id: event.messageId,
        received_at: event.timestamp.toISOString()
      })
      const intent = OptOut.keywordIntent(event.type === "text" ? event.text : null)
      if (intent === "stop") yield* optOut(scope, phone, "keyword")
      if (intent === "start") yield* optIn(scope, phone)
    }
  })

const optOut = (scope: Scope, phone: string, source: OptOut.Source) =>
  Effect.gen(function* () {
    if (yield* (yield* OptOutRepo).add(scope, phone, source)) {
      yield* Webhooks.emit(scope, "customer.opted_out", { phone, source })
    }
  })

const optIn = (scope: Scope, phone: string) =>
  Effect.gen(function* () {
    if (yield* (yield* OptOutRepo).remove(scope, phone)) {
      yield* Webhooks.emit(scope, "customer.opted_in", { phone })
    }
  })

/** The operator's marketing preference signal (`user_preferences`). */
export const onMarketingPreference = (store: Store.Store, kind: AccountKind, event: WebhookEvent.MarketingPreference) =>
  Effect.gen(function* () {
    const phone = Phone.fromWaId(event.waId)
    if (phone === undefined) return
    for (const mode of modesOf(store, kind)) {
      const scope: Scope = { storeId: store.id, mode }
      yield* event.optedOut ? optOut(scope, phone, "operator_preference") : optIn(scope, phone)
    }
  })

/**
 * A status report for a message sent through `POST /chat/messages`, matched by our callback
 * data (the message id) or by the wamid. Moves the status forward only; a duplicate or an
 * older report changes nothing and emits nothing. Answers whether it matched a message.
 */
export const onMessageStatus = (store: Store.Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const repo = yield* MessageRepo
    const byCallback =
      event.callbackData !== null && event.callbackData.startsWith("msg_")
        ? yield* repo.findByOperatorId(store.id, event.messageId).pipe(
            Effect.flatMap((m) =>
              Option.isSome(m)
                ? Effect.succeed(m)
                : Effect.flatMap(
                    Effect.all([repo.findById({ storeId: store.id, mode: "test" }, event.callbackData!), repo.findById({ storeId: store.id, mode: "live" }, event.callbackData!)]),
                    ([a, b]) => Effect.succeed(Option.orElse(a, () => b))
                  )
            )
          )
        : yield* repo.findByOperatorId(store.id, event.messageId)
    if (Option.isNone(byCallback)) return false
    const message = byCallback.value
    const to = Message.advance(message.status, event.status)
    if (to === undefined) return true
    const changed = yield* repo.advanceStatus(message.id, {
      to,
      from: Message.predecessors(to),
      operatorMessageId: event.messageId,
      error: event.error ?? undefined
    })
    if (!changed) return true
    const scope: Scope = { storeId: message.storeId, mode: message.mode }
    yield* Webhooks.emit(scope, "message.status", {
      message_id: message.id,
      to: message.to,
      status: to,
      operator_message_id: event.messageId,
      error: event.error ? { code: event.error.code, message: event.error.title } : null,
      at: event.timestamp.toISOString()
    })
    if (to === "failed" && event.error?.code === USER_STOPPED_MARKETING) yield* optOut(scope, message.to, "operator_error")
    return true
  })

// ---------------------------------------------------------------------------
// POST /chat/messages

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const To = Schema.String

export const SendMessage = Schema.Union(
  Schema.Struct({
    to: To,
    type: Schema.Literal("text"),
    text: Schema.Struct({ body: Schema.String, preview_url: Schema.optional(Schema.Boolean) }).annotations(strict)
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("template"),
    template: Schema.Struct({
      name: Schema.String,
      language: Schema.String,
      parameters: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
    }).annotations(strict)
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("interactive"),
    interactive: Schema.Struct({ type: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }).annotations(strict),
  Schema.Struct({
    to: To,
    type: Schema.Literal("flow"),
    flow: Schema.Struct({
      id: Schema.String,
      flow_token: Schema.String,
      cta: Schema.String,
      body: Schema.String,
      screen: Schema.optional(Schema.String),
      data: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
      mode: Schema.optional(Schema.Literal("published", "draft"))
    }).annotations(strict)
  }).annotations(strict)
).annotations({ identifier: "SendMessage" })
export type SendMessage = typeof SendMessage.Type

const TEXT_LIMIT = 4096

const outbound = (input: SendMessage, to: string, callbackData: string): OutboundMessage => {
  switch (input.type) {
    case "text":
      return { type: "text", to, text: input.text, callbackData }
    case "template":
      return { type: "template", to, template: input.template, callbackData }
    case "interactive":
      return { type: "interactive", to, interactive: input.interactive, callbackData }
    case "flow":
      return {
        type: "interactive",
        to,
        callbackData,
        interactive: {
          type: "flow",
          body: { text: input.flow.body },
          action: {
            name: "flow",
            parameters: {
              flow_message_version: "3",
              flow_token: input.flow.flow_token,
              flow_id: input.flow.id,
              flow_cta: input.flow.cta,
              mode: input.flow.mode ?? "published",
              flow_action: "navigate",
              ...(input.flow.screen ? { flow_action_payload: { screen: input.flow.screen, ...(input.flow.data ? { data: input.flow.data } : {}) } } : {})
            }
          }
        }
      }
  }
}

/**
 * Sends one message. Outside the 24-hour window only an approved template may go; an
 * opted-out contact only receives UTILITY or AUTHENTICATION templates. The message is
 * recorded before the operator is called (its id travels as callback data), so a status
 * report reaches it even if the process dies before the operator's answer is written.
 */
export const send = (input: SendMessage) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const to = Phone.normalize(input.to)
    if (to === undefined) return yield* Errors.ValidationFailed.of("to", "must be a phone number in E.164 form, e.g. +15551230001")
    if (input.type === "text" && (input.text.body.length === 0 || input.text.body.length > TEXT_LIMIT)) {
      return yield* Errors.ValidationFailed.of("text.body", `must be 1 to ${TEXT_LIMIT} characters`)
    }
    const store = yield* currentStore
    let category: Template.Category | undefined
    if (input.type === "template") {
      const found = yield* (yield* TemplateRepo).find(scope.storeId, input.template.name, input.template.language)
      if (Option.isNone(found)) {
        return yield* new Errors.ResourceNotFound({ resource: "template", id: `${input.template.name} (${input.template.language})` })
      }
      const template = found.value
      if (template.status !== "APPROVED") {
        return yield* new Errors.InvalidState({ resource: "template", status: template.status, operation: "send" })
      }
      const expected = Template.bodyParameterCount(template.components)
      if (input.template.parameters.length !== expected) {
        return yield* Errors.ValidationFailed.of("template.parameters", `the template takes ${expected} parameter(s), got ${input.template.parameters.length}`)
      }
      category = template.category
    }
    const customer = yield* (yield* CustomerRepo).findByPhone(scope, to)
    if (input.type !== "template" && !Customer.windowOpen(Option.getOrUndefined(customer), new Date())) {
      return yield* new Errors.OutsideCustomerWindow({ to })
    }
    if (category !== "UTILITY" && category !== "AUTHENTICATION" && (yield* (yield* OptOutRepo).isOptedOut(scope, to))) {
      return yield* new Errors.RecipientOptedOut({ to })
    }
    const now = new Date()
    const message: Message.Message = {
      id: Id.make("msg"),
      storeId: scope.storeId,
      mode: scope.mode,
      to,
      type: input.type,
      content: input.type === "text" ? input.text : input.type === "template" ? input.template : input.type === "flow" ? input.flow : input.interactive,
      status: "pending",
      operatorMessageId: null,
      error: null,
      flowToken: input.type === "flow" ? input.flow.flow_token : null,
      createdAt: now,
      updatedAt: now
    }
    const repo = yield* MessageRepo
    yield* repo.insert(message)
    const result = yield* Effect.either((yield* MessageOperator).sendMessage(Store.accountFor(store, scope.mode), outbound(input, to, message.id)))
    if (result._tag === "Left") {
      const error = result.left
      if (error._tag === "OperatorRejected") {
        yield* repo.advanceStatus(message.id, { to: "failed", from: ["pending"], error: { code: error.code, title: error.reason } })
        if (error.code === USER_STOPPED_MARKETING) yield* optOut(scope, to, "operator_error")
      }
      // OperatorUnavailable: the operator may have taken it; a status report will tell (callback data)
      return yield* Effect.fail(error)
    }
    yield* repo.markAccepted(message.id, result.right.messageId)
    return Message.toResource({ ...message, status: "accepted", operatorMessageId: result.right.messageId })
  })

export const getMessage = (id: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* MessageRepo).findById(yield* scopeOf, id)
    if (Option.isNone(found)) return yield* new Errors.ResourceNotFound({ resource: "message", id })
    return Message.toResource(found.value)
  })

// ---------------------------------------------------------------------------
// customers and opt-outs

export const listCustomers = (query: { readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const after = yield* Pagination.afterCursor(query.cursor)
    const slice = yield* (yield* CustomerRepo).list(scope, { limit: query.limit, after })
    const optedOut = yield* (yield* OptOutRepo).filterOptedOut(scope, slice.items.map((c) => c.phone))
    const now = new Date()
    return Pagination.toPage(slice, (c) => c.id, (c) => Customer.toResource(c, optedOut.has(c.phone), now))
  })

export const getCustomer = (id: string) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const found = yield* (yield* CustomerRepo).findById(scope, id)
    if (Option.isNone(found)) return yield* new Errors.ResourceNotFound({ resource: "customer", id })
    const optedOut = yield* (yield* OptOutRepo).isOptedOut(scope, found.value.phone)
    return Customer.toResource(found.value, optedOut, new Date())
  })

/** Opt-out cursors are the phone number itself (the list is ordered by phone). */
export const listOptOuts = (query: { readonly limit: number; readonly cursor?: string | undefined }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    let after: string | undefined
    if (query.cursor !== undefined) {
      try {
        after = atob(query.cursor.replace(/-/g, "+").replace(/_/g, "/"))
      } catch {
        after = undefined
      }
      if (after === undefined || Phone.normalize(after) === undefined) return yield* Errors.ValidationFailed.of("cursor", "is not a cursor this API issued")
    }
    const slice = yield* (yield* OptOutRepo).list(scope, { limit: query.limit, after })
    return Pagination.toPage(slice, (o) => o.phone, OptOut.toResource)
  })

const phoneOrFail = (raw: string, path: string) => {
  const phone = Phone.normalize(raw)
  return phone === undefined ? Effect.fail(Errors.ValidationFailed.of(path, "must be a phone number in E.164 form, e.g. +15551230001")) : Effect.succeed(phone)
}

export const addOptOut = (input: { readonly phone: string }) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const phone = yield* phoneOrFail(input.phone, "phone")
    const added = yield* (yield* OptOutRepo).add(scope, phone, "api")
    if (added) yield* Webhooks.emit(scope, "customer.opted_out", { phone, source: "api" })
    return { phone, opted_out: true as const, created: added }
  })

export const removeOptOut = (rawPhone: string) =>
  Effect.gen(function* () {
    const scope = yield* scopeOf
    const phone = yield* phoneOrFail(rawPhone, "phone")
    const removed = yield* (yield* OptOutRepo).remove(scope, phone)
    if (!removed) return yield* new Errors.ResourceNotFound({ resource: "opt-out", id: phone })
    yield* Webhooks.emit(scope, "customer.opted_in", { phone })
    return { phone, opted_out: false as const }
  })

// ---------------------------------------------------------------------------
// sandbox

/** A sandbox customer writes to the store's sandbox number (test keys only). */
export const sandboxInbound = (input: { readonly from: string; readonly text: string; readonly profile_name?: string | undefined }) =>
  Effect.gen(function* () {
    const tenant = yield* CurrentTenant
    if (tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
    const from = yield* phoneOrFail(input.from, "from")
    if (input.text.length === 0 || input.text.length > TEXT_LIMIT) return yield* Errors.ValidationFailed.of("text", `must be 1 to ${TEXT_LIMIT} characters`)
    const store = yield* currentStore
    const sent = yield* (yield* SandboxCustomer).sendInbound(store.sandbox, { from, text: input.text, profileName: input.profile_name })
    return { accepted: true as const, operator_message_id: sent.messageId }
  })
