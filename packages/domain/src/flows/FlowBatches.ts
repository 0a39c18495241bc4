/**
 * The flows module's operator events a batch at a time (the inbox's), with the effect of
 * applying each in turn (`FlowResponses.onInboundMessage`, `FlowHealth.onFlowEvent`): the same
 * rows, the same caller events in the same order.
 *
 * - `onInboundMessages`: the batch's `nfm_reply` messages (every other inbound message is
 *   left to the modules that handle it). Per tenant, the sends their tokens name are read in
 *   one query and the responses written in one multi-row insert that skips the operator
 *   message ids already stored (a replay) and answers the ones it stored; a message id twice
 *   in the batch is stored once, for its first. Then `flow.response` for each stored, in the
 *   order of the batch.
 * - `onFlowEvents`: per tenant, the flows the batch names are read in one query; each flow's
 *   events are folded through the state machine in the order received, and each flow that
 *   changed is written once (compare-and-set on the status read). A flow another writer
 *   moved meanwhile has its events applied one at a time, as before.
 */
import { Effect, Option } from "effect"
import type { FlowEvent } from "../operator/FlowWebhookEvent.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
import { byTenant, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Webhooks from "../webhooks/Webhooks.js"
import type * as Flow from "./Flow.js"
import * as FlowHealth from "./FlowHealth.js"
import type * as FlowResponse from "./FlowResponse.js"
import { FlowRepo } from "./FlowRepo.js"
import { FlowResponseRepo } from "./FlowResponseRepo.js"
import * as FlowResponses from "./FlowResponses.js"

interface Submitted {
  readonly tenant: Tenant
  readonly event: WebhookEvent.InboundMessage
  readonly reply: FlowResponses.Reply
}

export const onInboundMessages = (items: ReadonlyArray<Routed<WebhookEvent.InboundMessage>>) =>
  Effect.gen(function* () {
    const submitted: Array<Submitted> = []
    for (const { store, kind, event } of items) {
      const reply = FlowResponses.replyOf(event)
      if (reply === undefined) continue
      for (const mode of FlowResponses.modesOf(kind)) submitted.push({ tenant: { storeId: store.id, mode }, event, reply })
    }
    if (submitted.length === 0) return
    const repo = yield* FlowResponseRepo
    const stored: Array<{ readonly response: FlowResponse.FlowResponse; readonly send: FlowResponse.FlowSend | undefined }> = []
    const order = new Map<Submitted, number>(submitted.map((s, i) => [s, i]))
    const outcomes = new Array<(typeof stored)[number] | undefined>(submitted.length)
    for (const { tenant, items: group } of byTenant(submitted)) {
      const tokens = group.flatMap((s) => (s.reply.token === null ? [] : [s.reply.token]))
      const sends = tokens.length === 0 ? new Map<string, FlowResponse.FlowSend>() : yield* repo.sendsByTokens(tenant, tokens)
      const firsts = new Map<
        string,
        { readonly at: number; readonly response: FlowResponse.FlowResponse; readonly send: FlowResponse.FlowSend | undefined }
      >()
      for (const s of group) {
        if (firsts.has(s.event.messageId)) continue
        const send = s.reply.token === null ? undefined : sends.get(s.reply.token)
        firsts.set(s.event.messageId, { at: order.get(s)!, response: yield* FlowResponses.responseOf(tenant, s.event, s.reply, send), send })
      }
      // inserted in the order of their message ids: concurrent batches take the unique index's locks in one order
      const responses = [...firsts.values()].map((f) => f.response).sort((a, b) => (a.operatorMessageId < b.operatorMessageId ? -1 : 1))
      const written = yield* repo.insertResponses(tenant, responses)
      for (const f of firsts.values()) if (written.has(f.response.operatorMessageId)) outcomes[f.at] = { response: f.response, send: f.send }
    }
    for (let i = 0; i < submitted.length; i++) {
      const outcome = outcomes[i]
      if (outcome !== undefined) yield* FlowResponses.emitResponse(submitted[i].tenant, outcome.response, outcome.send)
    }
  }).pipe(Webhooks.batched)

interface Run {
  readonly tenant: Tenant
  readonly flow: Flow.Flow
  readonly events: Array<FlowEvent>
}

export const onFlowEvents = (items: ReadonlyArray<Routed<FlowEvent>>) =>
  Effect.gen(function* () {
    const repo = yield* FlowRepo
    const routed = items.map(({ store, kind, event }) => ({ tenant: FlowHealth.tenantOf(store, kind), event }))
    const runs = new Map<string, Run>()
    /** Each event's run, or none for a flow the tenant does not have (the per-event path then logs it). */
    const runOf = new Array<Run | undefined>(routed.length)
    const index = new Map(routed.map((r, i) => [r, i]))
    for (const { tenant, items: group } of byTenant(routed)) {
      const flows = yield* repo.findByOperatorIds(
        tenant,
        group.map((r) => r.event.flowId)
      )
      for (const r of group) {
        const flow = flows.get(r.event.flowId)
        if (flow === undefined) continue
        const key = `${tenant.storeId} ${tenant.mode} ${flow.id}`
        const run = runs.get(key) ?? { tenant, flow, events: [] }
        run.events.push(r.event)
        runs.set(key, run)
        runOf[index.get(r)!] = run
      }
    }
    // each run folded: the statuses its status changes lead through, written once
    const at = yield* Time.now
    const steps = new Map<FlowEvent, { readonly from: Flow.Status; readonly to: Flow.Status }>()
    const replay = new Set<Run>()
    for (const run of [...runs.values()].sort((a, b) => (a.flow.id < b.flow.id ? -1 : 1))) {
      let status = run.flow.status
      for (const event of run.events) {
        if (event.event !== "FLOW_STATUS_CHANGE") continue
        const next = FlowHealth.nextStatus(event, status)
        if (next === undefined) continue
        steps.set(event, { from: status, to: next })
        status = next
      }
      if (!run.events.some((e) => steps.has(e))) continue
      const updated = yield* repo.update(run.tenant, run.flow.id, { status }, [run.flow.status], at)
      if (Option.isNone(updated)) replay.add(run)
    }
    const replayed = new Set<Run>()
    for (let i = 0; i < routed.length; i++) {
      const { tenant, event } = routed[i]
      const run = runOf[i]
      if (run === undefined || replay.has(run)) {
        if (run !== undefined && replayed.has(run)) continue
        if (run !== undefined) replayed.add(run)
        const { store, kind } = items[i]
        if (run === undefined) yield* FlowHealth.onFlowEvent(store, kind, event)
        else yield* Effect.forEach(run.events, (e) => FlowHealth.onFlowEvent(store, kind, e), { discard: true })
        continue
      }
      if (event.event !== "FLOW_STATUS_CHANGE") {
        yield* FlowHealth.emitAlert(tenant, run.flow, event, at)
        continue
      }
      const step = steps.get(event)
      if (step !== undefined) yield* FlowHealth.emitStatusChanged(tenant, run.flow, step.from, step.to, event, at)
    }
  }).pipe(Webhooks.batched)
