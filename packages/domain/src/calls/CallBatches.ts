/**
 * The operator's call webhooks a batch at a time (the inbox's), with the effect of applying
 * each in turn (`CallWebhooks.onCallEvent`): the same rows, the same caller events in the
 * same order.
 *
 * Per tenant, the calls the batch names (by operator call id, and by our id in the callback
 * data) are read in one query, locked where the store can. The events are then applied in
 * the order of the batch to those calls in memory, through the same state machine and with
 * the same patches as one at a time: a user's `connect` of a call the tenant does not have
 * makes a new call (once per operator call id; a replay changes nothing). Then each tenant's
 * new calls are inserted in one statement that skips those another writer stored meanwhile,
 * and its changed calls written in one, each conditional on the status and update time it
 * was read with. Last, in the order of the batch: the caller events and the permission budgets
 * an answer resets; the customers' inbound time of each new call in one upsert per tenant. A call another writer
 * got to first (its insert skipped, its write refused) has its events applied one at a time
 * instead, as before.
 */
import { Effect, Either } from "effect"
import { modesOf } from "../messaging/InboundEvents.js"
import { CustomerId } from "../messaging/Customer.js"
import { CustomerInboundRepo, type InboundCustomer } from "../messaging/MessagingRepo.js"
import type { CallEvent } from "../operator/CallWebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import * as Phone from "../shared/Phone.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import * as Call from "./Call.js"
import { type CallPatch, CallRepo } from "./CallRepo.js"
import * as CallWebhooks from "./CallWebhooks.js"
import * as Events from "./Events.js"
import * as Permissions from "./Permissions.js"

/** One call of the batch: as read (none for a new one) and as the batch's events leave it. */
interface Run {
  readonly tenant: Tenant
  readonly read: Call.Call | undefined
  current: Call.Call
  /** The events applied to it, in order (applied again one at a time if the call cannot be written). */
  readonly events: Array<Step>
}

/** One event in one mode of its account. */
interface Step {
  readonly tenant: Tenant
  readonly event: CallEvent
  readonly phone: Phone.E164 | undefined
}

/** What the batch does after its writes, in the order of its events. */
type After =
  | { readonly _tag: "emit"; readonly run: Run; readonly call: Call.Call }
  | { readonly _tag: "inbound"; readonly run: Run; readonly phone: Phone.E164; readonly at: Time.Millis }
  | { readonly _tag: "reset"; readonly run: Run; readonly phone: string; readonly at: Time.Millis }

const tenantKey = (t: Tenant) => `${t.storeId} ${t.mode}`

/** The tenant's calls of the batch, by id and by operator call id (the lookups of `CallWebhooks.callOf`). */
class Calls {
  readonly byId = new Map<string, Run>()
  readonly byOperator = new Map<string, Run>()

  add(run: Run) {
    this.byId.set(run.current.id, run)
    if (run.current.operatorCallId !== null) this.byOperator.set(run.current.operatorCallId, run)
  }

  /** The call an event names: by the operator's call id, else by our id in the callback data. */
  of(event: CallEvent): Run | undefined {
    const byOperator = this.byOperator.get(event.callId)
    if (byOperator !== undefined || event.callbackData === null || !Call.CallId.is(event.callbackData)) return byOperator
    return this.byId.get(event.callbackData)
  }

  /** The run's call becomes `next`. */
  set(run: Run, next: Call.Call) {
    const before = run.current.operatorCallId
    run.current = next
    if (before === next.operatorCallId) return
    if (before !== null && this.byOperator.get(before) === run) this.byOperator.delete(before)
    if (next.operatorCallId !== null) this.byOperator.set(next.operatorCallId, run)
  }
}

export const onCallEvents = (items: ReadonlyArray<Routed<CallEvent>>) =>
  Effect.gen(function* () {
    const repo = yield* CallRepo
    const steps: Array<Step> = []
    for (const { store, kind, event } of items) {
      const phone = event.customer === null ? undefined : Phone.fromWaId(event.customer)
      for (const mode of modesOf(store, kind)) steps.push({ tenant: { storeId: store.id, mode }, event, phone })
    }

    // the calls each tenant's events name, read in one query per tenant, tenants in one order
    const tenants = new Map<string, { readonly tenant: Tenant; readonly operatorIds: Set<string>; readonly ids: Set<Call.CallId> }>()
    for (const { tenant, event } of steps) {
      const key = tenantKey(tenant)
      const entry = tenants.get(key) ?? { tenant, operatorIds: new Set<string>(), ids: new Set<Call.CallId>() }
      entry.operatorIds.add(event.callId)
      if (event.callbackData !== null && Call.CallId.is(event.callbackData)) entry.ids.add(event.callbackData)
      tenants.set(key, entry)
    }
    const calls = new Map<string, Calls>()
    for (const key of [...tenants.keys()].sort()) {
      const { tenant, operatorIds, ids } = tenants.get(key)!
      const known = new Calls()
      for (const call of yield* repo.findForEvents(tenant, [...operatorIds], [...ids])) known.add({ tenant, read: call, current: call, events: [] })
      calls.set(key, known)
    }

    // the events applied in memory, in order
    const now = yield* Time.now
    const after: Array<After> = []
    for (const step of steps) yield* plan(calls.get(tenantKey(step.tenant))!, step, now, after)

    // the writes: each tenant's new calls in one statement, its changed calls in another
    const lost = new Set<Run>()
    for (const key of [...calls.keys()].sort()) {
      const known = calls.get(key)!
      const runs = [...known.byId.values()].filter((r) => r.events.length > 0)
      const tenant = runs[0]?.tenant
      if (tenant === undefined) continue
      const created = runs.filter((r) => r.read === undefined).sort((a, b) => (a.current.operatorCallId! < b.current.operatorCallId! ? -1 : 1))
      if (created.length > 0) {
        const stored = yield* repo.insertManyFromOperator(
          tenant,
          created.map((r) => r.current)
        )
        for (const r of created) if (!stored.has(r.current.id)) lost.add(r)
      }
      const changed = runs.filter((r) => r.read !== undefined && r.current !== r.read)
      if (changed.length > 0) {
        const written = yield* repo.updateMany(
          tenant,
          changed.map((r) => ({ read: r.read!, next: r.current }))
        )
        for (const r of changed) if (!written.has(r.current.id)) lost.add(r)
      }
    }

    // what follows the writes, in the order of the events; a lost call's events again, one at a time.
    // The customers' inbound times are upserted together (per tenant, one input per phone, folded as
    // one upsert after another leaves the row: the first new id, the latest time), before any replay.
    const inbound = new Map<string, { readonly tenant: Tenant; readonly byPhone: Map<string, InboundCustomer> }>()
    const recordInbound = Effect.gen(function* () {
      if (inbound.size === 0) return
      const customers = yield* CustomerInboundRepo
      for (const { tenant, byPhone } of inbound.values()) yield* customers.recordInbounds(tenant, [...byPhone.values()])
      inbound.clear()
    })
    const replayed = new Set<Run>()
    for (const a of after) {
      if (lost.has(a.run)) {
        if (replayed.has(a.run)) continue
        replayed.add(a.run)
        yield* recordInbound
        yield* Effect.forEach(a.run.events, (s) => CallWebhooks.apply(s.tenant, s.event, s.phone), { discard: true })
        continue
      }
      switch (a._tag) {
        case "emit":
          yield* Events.emitStatus(a.call)
          break
        case "inbound": {
          const key = tenantKey(a.run.tenant)
          const ofTenant = inbound.get(key) ?? { tenant: a.run.tenant, byPhone: new Map<string, InboundCustomer>() }
          inbound.set(key, ofTenant)
          const before = ofTenant.byPhone.get(a.phone)
          ofTenant.byPhone.set(
            a.phone,
            before === undefined
              ? { phone: a.phone, waId: Phone.toWaId(a.phone), profileName: null, at: a.at, newId: yield* CustomerId.generate }
              : { ...before, at: Math.max(before.at, a.at) as Time.Millis }
          )
          break
        }
        case "reset":
          yield* Permissions.resetBudget(a.run.tenant, a.phone, a.at)
          break
      }
    }
    yield* recordInbound
    // a lost call whose events left nothing to do after the writes
    for (const run of lost) {
      if (!replayed.has(run)) yield* Effect.forEach(run.events, (s) => CallWebhooks.apply(s.tenant, s.event, s.phone), { discard: true })
    }
  }).pipe(Webhooks.batched)

/** One event applied in memory, as `CallWebhooks.apply` applies it to the stored calls. */
const plan = (calls: Calls, step: Step, now: Time.Millis, after: Array<After>) =>
  Effect.gen(function* () {
    const { tenant, event, phone } = step

    /** `CallWebhooks.advance`: `operation` with `patch`, and the new status's event when it changed. */
    const advance = (run: Run, operation: Call.Operation, patch: CallPatch): boolean => {
      const next = Call.transition(run.current.status, operation, run.current.direction)
      if (Either.isLeft(next)) return false
      const changed = next.right !== run.current.status
      const call: Call.Call = { ...run.current, ...patch, status: next.right, updatedAt: now }
      calls.set(run, call)
      if (changed) after.push({ _tag: "emit", run, call })
      return true
    }

    /** `CallWebhooks.answered`. */
    const answered = (run: Run) => {
      const call = run.current
      const startedAt = call.startedAt ?? event.timestamp
      const answerSdp = event.session?.sdp ?? call.answerSdp
      if (call.status === "accepted") {
        if (answerSdp !== call.answerSdp) calls.set(run, { ...call, answerSdp, updatedAt: now })
        return
      }
      if (advance(run, "answered", { answerSdp, startedAt, operatorCallId: event.callId }))
        after.push({ _tag: "reset", run, phone: call.phone, at: startedAt })
    }

    if (event.kind === "connect" && event.direction === "USER_INITIATED") {
      if (phone === undefined) return yield* Effect.logWarning("call connect from an invalid wa_id", { callId: event.callId })
      const existing = calls.byOperator.get(event.callId)
      if (existing !== undefined) return void existing.events.push(step)
      const fresh = yield* CallWebhooks.userCallOf(tenant, event, phone, now)
      const run: Run = { tenant, read: undefined, current: fresh, events: [step] }
      calls.add(run)
      after.push({ _tag: "inbound", run, phone, at: event.timestamp }, { _tag: "emit", run, call: fresh })
      return
    }
    const run = calls.of(event)
    if (run === undefined) return yield* Effect.logInfo("call event for a call we do not know; ignored", { callId: event.callId, kind: event.kind })
    run.events.push(step)
    const call = run.current
    switch (event.kind) {
      case "connect":
        return answered(run)
      case "status":
        if (event.status === "RINGING") advance(run, "ring", { operatorCallId: event.callId })
        else if (event.status === "ACCEPTED") answered(run)
        else if (event.status === "REJECTED") advance(run, "declined", { endedAt: event.timestamp, error: event.error })
        return
      case "terminate": {
        // a connected call whose ACCEPTED status has not been applied yet (webhooks may be applied out of order)
        let target = run
        if (event.status === "COMPLETED" && (call.status === "calling" || call.status === "ringing") && call.direction === "business_initiated") {
          answered(run)
          target = calls.of(event) ?? run
          if (target !== run) target.events.push(step)
        }
        const current = target.current
        advance(target, "end", CallWebhooks.endPatch(current, event))
        return
      }
    }
  })
