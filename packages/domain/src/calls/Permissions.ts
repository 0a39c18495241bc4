/**
 * Call permissions (spec §4.8): reading one, requesting one within the operator's budget,
 * the customer's reply (by webhook), and the reset of the budget by a connected call. Every
 * change is a compare-and-set on the record's version, retried from a fresh read when it
 * loses, so the budget holds under any concurrency.
 */
import { Effect, Option } from "effect"
import { CustomerRepo } from "../messaging/MessagingRepo.js"
import * as Customer from "../messaging/Customer.js"
import * as Sending from "../messaging/Sending.js"
import { Transactor } from "../jobs/Transactor.js"
import { CallOperator } from "./CallOperator.js"
import * as Errors from "../shared/Errors.js"
import * as Phone from "../shared/Phone.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import * as TemplateRepo from "../templates/TemplateRepo.js"
import { CallPermissionRequestLimited } from "./CallErrors.js"
import * as CallPermission from "./CallPermission.js"
import { CallPermissionRepo, type PermissionPatch } from "./CallRepo.js"
import * as Events from "./Events.js"

/** The phone of a request, or 400 naming `path`. */
export const phoneOrFail = (raw: string, path: string) => {
  const phone = Phone.normalize(raw)
  return phone === undefined
    ? Effect.fail(Errors.ValidationFailed.of(path, "must be a phone number in E.164 form, e.g. +15551230001"))
    : Effect.succeed(phone)
}

/** The tenant's record of `phone`, or a fresh one (version 0) when none was written. */
export const current = (tenant: Tenant, phone: string) =>
  Effect.gen(function* () {
    const found = yield* (yield* CallPermissionRepo).find(tenant, phone)
    return Option.isSome(found) ? found.value : CallPermission.fresh(tenant, phone, yield* Time.now)
  })

/**
 * Changes the record of `phone` with `change` (given the record read and the time), as one
 * compare-and-set; a lost race reads again and asks `change` again. `change` answers none to
 * leave the record as it is. Answers the record after the change (or as it was).
 */
export const modify = <E, R>(
  tenant: Tenant,
  phone: string,
  change: (p: CallPermission.Permission, now: Time.Millis) => Effect.Effect<Option.Option<PermissionPatch>, E, R>
) =>
  Effect.gen(function* () {
    const repo = yield* CallPermissionRepo
    for (let attempt = 0; ; attempt++) {
      const p = yield* current(tenant, phone)
      const now = yield* Time.now
      const patch = yield* change(p, now)
      if (Option.isNone(patch)) return p
      const written = yield* repo.compareAndSet(tenant, p, { ...patch.value, updatedAt: now })
      if (Option.isSome(written)) return written.value
      if (attempt >= 50) return yield* Effect.dieMessage(`call permission of ${phone}: too many concurrent changes`)
    }
  })

/** `GET /chat/calls/permissions/{phone}`: our record, refreshed from the operator where the account is live. */
export const get = (rawPhone: string) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const phone = yield* phoneOrFail(rawPhone, "phone")
    const account = Store.accountFor(store, tenant.mode)
    if (account.kind === "live") {
      const operator = yield* Effect.either((yield* CallOperator).getPermission(account, phone))
      if (operator._tag === "Left") {
        yield* Effect.logWarning("call permission not refreshed from the operator", { reason: operator.left.reason })
      } else {
        const seen = operator.right
        // the change and its event in one transaction: the caller hears of a status the API did not show
        return yield* (yield* Transactor).withTransaction(
          Effect.gen(function* () {
            let previous: string | undefined
            const p = yield* modify(tenant, phone, (p, now) => {
              if (p.status === seen.status && p.expiresAt === seen.expiresAt) return Effect.succeed(Option.none())
              previous = CallPermission.statusAt(p, now)
              return Effect.succeed(Option.some({ status: seen.status, expiresAt: seen.expiresAt }))
            })
            const view = CallPermission.view(p, yield* Time.now)
            if (previous !== undefined && previous !== view.status) {
              const change = Events.changeOf(previous, view.status)
              yield* Events.emitPermission(tenant, view, { previousStatus: previous, change, source: "operator" })
            }
            return view
          })
        )
      }
    }
    return CallPermission.view(yield* current(tenant, phone), yield* Time.now)
  })

/** Takes one request out of the budget at `now`, or fails with the time the next may go. */
const reserve = (tenant: Tenant, phone: string) =>
  Effect.gen(function* () {
    let sentAt = 0
    const p = yield* modify(tenant, phone, (p, now) => {
      const next = CallPermission.nextRequestAllowedAt(p, now)
      if (next !== null) return Effect.fail(new CallPermissionRequestLimited({ phone, nextAllowedAt: next }))
      sentAt = now
      return Effect.succeed(Option.some({ requestTimes: CallPermission.withRequest(p, now) }))
    })
    return { permission: p, sentAt }
  })

/** Gives back a request that was not sent. */
const release = (tenant: Tenant, phone: string, sentAt: Time.Millis) =>
  modify(tenant, phone, (p) =>
    Effect.succeed(p.requestTimes.includes(sentAt) ? Option.some({ requestTimes: p.requestTimes.filter((t) => t !== sentAt) }) : Option.none())
  )

/** Outside the window the request rides on a template: one of the store's, with a `CALL_PERMISSION_REQUEST` button (its approval is checked on sending). */
const requireCallPermissionButton = (tenant: Tenant, template: CallPermission.RequestPermission["template"] & {}) =>
  Effect.gen(function* () {
    const found = yield* (yield* TemplateRepo.TemplateRepo).find(tenant, template.name, template.language)
    if (Option.isNone(found)) return yield* Errors.ValidationFailed.of("template.name", `names no template of this store in ${template.language}`)
    const buttons = found.value.components.flatMap((c) => c.buttons ?? [])
    if (!buttons.some((b) => b.type === "CALL_PERMISSION_REQUEST")) {
      return yield* Errors.ValidationFailed.of("template.name", "names a template without a CALL_PERMISSION_REQUEST button")
    }
  })

/**
 * `POST /chat/calls/permissions`: sends the request, inside the customer's window as the
 * interactive `call_permission_request`, outside it through the named approved template
 * (409 `outside_customer_window` without one). Over the budget: 409
 * `call_permission_request_limited` with the time the next may go, and nothing is sent. A
 * request the operator refuses gives its place in the budget back.
 */
export const request = (input: CallPermission.RequestPermission) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const phone = yield* phoneOrFail(input.phone, "phone")
    const customer = yield* (yield* CustomerRepo).findByPhone(tenant, phone)
    const inWindow = Customer.windowOpen(Option.getOrUndefined(customer), yield* Time.now)
    if (!inWindow && input.template === undefined) return yield* new Errors.OutsideCustomerWindow({ to: phone })
    if (!inWindow) yield* requireCallPermissionButton(tenant, input.template!)
    const { sentAt } = yield* reserve(tenant, phone)
    const sent = yield* (
      inWindow
        ? Sending.send({
            to: phone,
            type: "interactive",
            interactive: {
              type: "call_permission_request",
              body: { text: input.body ?? CallPermission.DEFAULT_REQUEST_TEXT },
              action: { name: "call_permission_request" }
            }
          })
        : Sending.send({ to: phone, type: "template", template: { ...input.template!, header_parameters: [], buttons: [] } })
    ).pipe(Effect.tapError(() => release(tenant, phone, sentAt)))
    const messageId = sent.operatorMessageId ?? sent.id
    const after = yield* modify(tenant, phone, () => Effect.succeed(Option.some({ lastRequestMessageId: messageId })))
    return {
      phone,
      message_id: messageId,
      sent_via: inWindow ? ("interactive" as const) : ("template" as const),
      sent_at: sentAt,
      permission: CallPermission.view(after, yield* Time.now)
    }
  })

/**
 * The customer's reply (`call_permission_reply`, Appendix A.4): `accept` grants a temporary
 * permission until its `expiration_timestamp` (7 days from the reply when absent; permanent
 * when the operator says so), `reject` withdraws it. Emits `call_permission.updated` (see
 * `Events.emitPermission`): for an accept that changed the permission (a replayed accept
 * changes nothing and emits nothing), and for every decline, also of a customer who had no
 * permission to withdraw (the record notes it: its version moves).
 */
export const applyReply = (
  tenant: Tenant,
  phone: string,
  reply: {
    readonly response: string
    readonly expiresAt: Time.Millis | null
    readonly permanent: boolean
    readonly at: Time.Millis
    readonly messageId?: string | undefined
  }
) =>
  Effect.gen(function* () {
    const status = reply.response === "accept" ? (reply.permanent ? "permanent" : "temporary") : "no_permission"
    const expiresAt = status === "temporary" ? (reply.expiresAt ?? reply.at + CallPermission.TEMPORARY_MS) : null
    const declined = reply.response !== "accept"
    let changed = false
    let previous = "no_permission"
    const p = yield* modify(tenant, phone, (p, now) => {
      previous = CallPermission.statusAt(p, now)
      changed = declined || !(p.status === status && p.expiresAt === expiresAt)
      return Effect.succeed(changed ? Option.some({ status, expiresAt }) : Option.none())
    })
    if (!changed) return
    const view = CallPermission.view(p, yield* Time.now)
    yield* Events.emitPermission(tenant, view, {
      previousStatus: previous,
      change: declined ? "declined" : Events.changeOf(previous, view.status),
      source: `reply_${reply.response}`,
      ...(reply.messageId === undefined ? {} : { replyMessageId: reply.messageId })
    })
  })

/** A connected call resets the request budget, as the operator does (GRAPH_API.md §6.2). */
export const resetBudget = (tenant: Tenant, phone: string, at: Time.Millis) =>
  modify(tenant, phone, (p) => Effect.succeed(p.requestTimes.length === 0 ? Option.none() : Option.some({ requestTimes: [], budgetResetAt: at })))
