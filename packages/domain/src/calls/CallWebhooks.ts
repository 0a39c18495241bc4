/**
 * What the operator's call webhooks do (run by the inbox, never by a route; GRAPH_API.md
 * §6.4, §6.6): a user's `connect` makes a `ringing` call with the customer's offer (and opens
 * their window, as a message does); the statuses RINGING, ACCEPTED, REJECTED and a
 * business-initiated `connect` with the customer's answer move our calls; `terminate` ends a
 * live call with the operator's end status, times and duration. A connected call resets the
 * customer's permission-request budget. Every handler is idempotent: a replayed webhook finds
 * the status already changed and emits nothing.
 */
import { Effect, Either, Option } from "effect"
import { modesOf } from "../messaging/InboundEvents.js"
import { CustomerId } from "../messaging/Customer.js"
import { CustomerInboundRepo } from "../messaging/MessagingRepo.js"
import type { CallEvent } from "../operator/CallWebhookEvent.js"
import * as Phone from "../shared/Phone.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { Millis } from "../shared/Time.js"
import type { AccountKind, Store } from "../stores/Store.js"
import * as Call from "./Call.js"
import { type CallPatch, CallRepo } from "./CallRepo.js"
import * as Events from "./Events.js"
import * as Permissions from "./Permissions.js"

/** The call an event names: by the operator's call id, else by our id in the callback data. */
const callOf = (tenant: Tenant, event: CallEvent) =>
  Effect.gen(function* () {
    const repo = yield* CallRepo
    const byOperator = yield* repo.findByOperatorId(tenant, event.callId)
    if (Option.isSome(byOperator) || event.callbackData === null || !Call.CallId.is(event.callbackData)) return byOperator
    return yield* repo.find(tenant, event.callbackData)
  })

/**
 * Applies `operation` to the call with `patch`, emitting the new status's event when the
 * status changed. A write that loses to a concurrent one (webhooks of one call applied at
 * once) reads the call again and asks the state machine again.
 */
const advance = (tenant: Tenant, first: Call.Call, operation: Call.Operation, patch: CallPatch) =>
  Effect.gen(function* () {
    const repo = yield* CallRepo
    let call = first
    for (let attempt = 0; attempt < 5; attempt++) {
      const next = Call.transition(call.status, operation, call.direction)
      if (Either.isLeft(next)) return Option.none<Call.Call>()
      const after = yield* repo.update(tenant, call.id, [call.status], { ...patch, status: next.right, updatedAt: yield* Time.now })
      if (Option.isSome(after)) {
        if (next.right !== call.status) yield* Events.emitStatus(after.value)
        return after
      }
      const fresh = yield* repo.find(tenant, call.id)
      if (Option.isNone(fresh)) break
      call = fresh.value
    }
    return Option.none<Call.Call>()
  })

/** The customer answered a business-initiated call: accepted, its budget reset. */
const answered = (tenant: Tenant, call: Call.Call, event: CallEvent) =>
  Effect.gen(function* () {
    const startedAt = call.startedAt ?? event.timestamp
    const answerSdp = event.session?.sdp ?? call.answerSdp
    if (call.status === "accepted") {
      for (let attempt = 0; attempt < 5 && answerSdp !== call.answerSdp; attempt++) {
        const written = yield* (yield* CallRepo).update(tenant, call.id, ["accepted"], { answerSdp, updatedAt: yield* Time.now })
        if (Option.isSome(written)) break
      }
      return
    }
    const after = yield* advance(tenant, call, "answered", { answerSdp, startedAt, operatorCallId: event.callId })
    if (Option.isSome(after)) return yield* Permissions.resetBudget(tenant, call.phone, startedAt)
    // another webhook of this call accepted it meanwhile: keep the answer this one carries
    const fresh = yield* (yield* CallRepo).find(tenant, call.id)
    if (Option.isSome(fresh) && fresh.value.status === "accepted" && event.session !== null && fresh.value.answerSdp === null) {
      yield* (yield* CallRepo).update(tenant, call.id, ["accepted"], { answerSdp: event.session.sdp, updatedAt: yield* Time.now })
    }
  })

/** What a terminate webhook writes on the call it ends, as both paths write it. */
export const endPatch = (current: Call.Call, event: CallEvent) => {
  const startedAt = event.startTime ?? current.startedAt
  const endedAt = event.endTime ?? current.endedAt ?? event.timestamp
  const duration = event.durationSeconds ?? (startedAt === null ? 0 : Math.max(0, Math.round((endedAt - startedAt) / 1000)))
  return {
    endStatus: event.status === "COMPLETED" ? ("COMPLETED" as const) : ("FAILED" as const),
    startedAt,
    endedAt,
    durationSeconds: duration,
    error: current.error ?? event.error
  }
}

/** The call a customer's connect makes, ringing, as both paths create it. */
export const userCallOf = (tenant: Tenant, event: CallEvent, phone: Phone.E164, now: Millis) =>
  Call.fresh(
    tenant,
    {
      phone,
      direction: "user_initiated",
      status: "ringing",
      operatorCallId: event.callId,
      offerSdp: event.session?.sdp ?? "",
      payload: event.payload
    },
    now
  )

const userCall = (tenant: Tenant, event: CallEvent, phone: Phone.E164) =>
  Effect.gen(function* () {
    const fresh = yield* userCallOf(tenant, event, phone, yield* Time.now)
    const { call, created } = yield* (yield* CallRepo).insertFromOperator(tenant, fresh)
    if (!created) return
    yield* (yield* CustomerInboundRepo).recordInbound(tenant, {
      phone,
      waId: Phone.toWaId(phone),
      profileName: null,
      at: event.timestamp,
      newId: yield* CustomerId.generate
    })
    yield* Events.emitStatus(call)
  })

/** Applies one event to the tenant's calls (`phone`: the customer's, when their wa_id is valid). */
export const apply = (tenant: Tenant, event: CallEvent, phone: Phone.E164 | undefined) =>
  Effect.gen(function* () {
    if (event.kind === "connect" && event.direction === "USER_INITIATED") {
      if (phone === undefined) return yield* Effect.logWarning("call connect from an invalid wa_id", { callId: event.callId })
      return yield* userCall(tenant, event, phone)
    }
    const found = yield* callOf(tenant, event)
    if (Option.isNone(found))
      return yield* Effect.logInfo("call event for a call we do not know; ignored", { callId: event.callId, kind: event.kind })
    const call = found.value
    switch (event.kind) {
      case "connect":
        return yield* answered(tenant, call, event)
      case "status":
        if (event.status === "RINGING") yield* advance(tenant, call, "ring", { operatorCallId: event.callId })
        else if (event.status === "ACCEPTED") yield* answered(tenant, call, event)
        else if (event.status === "REJECTED") yield* advance(tenant, call, "declined", { endedAt: event.timestamp, error: event.error })
        return
      case "terminate": {
        // a connected call whose ACCEPTED status has not been applied yet (webhooks may be applied out of order)
        let current = call
        if (event.status === "COMPLETED" && (call.status === "calling" || call.status === "ringing") && call.direction === "business_initiated") {
          yield* answered(tenant, call, event)
          current = Option.getOrElse(yield* callOf(tenant, event), () => call)
        }
        yield* advance(tenant, current, "end", endPatch(current, event))
        return
      }
    }
  })

/** Applies one call event to the store's calls in each mode of the account. */
export const onCallEvent = (store: Store, kind: AccountKind, event: CallEvent) =>
  Effect.gen(function* () {
    const phone = event.customer === null ? undefined : Phone.fromWaId(event.customer)
    for (const mode of modesOf(store, kind)) yield* apply({ storeId: store.id, mode }, event, phone)
  })
