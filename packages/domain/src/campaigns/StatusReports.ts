/**
 * Status reports for campaign sends: the operator's message status webhooks whose callback
 * data is a recipient id (`rcp_…`, the callback prefix campaigns own).
 */
import { Effect, Option } from "effect"
import * as OperatorErrorCode from "../operator/ErrorCode.js"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import * as Time from "../shared/Time.js"
import type * as Store from "../stores/Store.js"
import { CampaignLaneRepo } from "./CampaignRepo.js"
import * as Events from "./Events.js"
import * as Recipient from "./Recipient.js"
import type { Counters } from "./Campaign.js"
import type { RecipientChange, RecipientRef } from "./CampaignRepo.js"
import type { Routed } from "../shared/Module.js"

/** Compare-and-set rounds against concurrent reports of the same recipient before giving up (each lost round means another report moved it). */
const ROUNDS = 20

/**
 * A status report for a campaign send, matched by our callback data (the recipient id)
 * within the store that owns the sending number. Moves the recipient forward and adds
 * exactly what changed to the campaign's counters, in one transaction with a
 * compare-and-set: the same report delivered 1,000 times changes state once. A failure
 * with 131050 also puts the phone on the opt-out list. Answers whether it matched.
 */
export const onRecipientStatus = (store: Store.Store, event: WebhookEvent.MessageStatus) =>
  Effect.gen(function* () {
    const id = event.callbackData
    if (id === null || !Recipient.RecipientId.is(id)) return false
    const lanes = yield* CampaignLaneRepo
    let found = yield* lanes.findRecipient(store.id, id)
    if (Option.isNone(found)) return false
    const report: Recipient.Report = { status: event.status, at: event.timestamp, error: event.error }
    for (let round = 0; round < ROUNDS && Option.isSome(found); round++) {
      const ref = found.value
      const next = Recipient.advance(ref.progress, report)
      if (next === undefined) return true
      const changed = yield* lanes.advanceRecipient(ref, next, event.messageId, Recipient.counterDelta(ref.progress, next), yield* Time.now)
      if (changed) {
        yield* afterAdvance(ref, next)
        return true
      }
      found = yield* lanes.findRecipient(store.id, id)
    }
    yield* recordPricing([event])
    return true
  })

/** What follows a change: a failure with 131050 puts the phone on the opt-out list. */
const afterAdvance = (ref: RecipientRef, next: Recipient.Advanced) =>
  next.status === "failed" && next.failure?.code === OperatorErrorCode.USER_STOPPED_MARKETING && ref.phone !== null
    ? Events.optOut({ storeId: ref.storeId, mode: ref.mode }, ref.phone)
    : Effect.void

/**
 * Status reports of campaign sends, a batch at a time (the inbox's): the batch's recipients
 * are read (and locked, in the order of their ids) in one query per store, each recipient's
 * reports are folded in memory in the order received, all of them are written in one
 * statement of compare-and-sets (`advanceRecipients`), and the counters move by one row of
 * deltas per campaign for the whole batch. The effect is the one of `onRecipientStatus` for
 * each report in turn (the fold's delta is the sum of the steps'); a recipient another batch
 * moved meanwhile is applied one report at a time.
 */
export const onRecipientStatuses = (items: ReadonlyArray<Routed<WebhookEvent.MessageStatus>>) =>
  Effect.gen(function* () {
    const lanes = yield* CampaignLaneRepo
    const byStore = new Map<Store.Store["id"], Array<Recipient.RecipientId>>()
    for (const { store, event } of items) {
      if (event.callbackData === null || !Recipient.RecipientId.is(event.callbackData)) continue
      const ids = byStore.get(store.id) ?? []
      ids.push(event.callbackData)
      byStore.set(store.id, ids)
    }
    const refs = new Map<string, RecipientRef>()
    // stores in the order of their ids, each one's recipients in theirs: one lock order for every batch
    for (const [storeId, ids] of [...byStore].sort(([a], [b]) => (a < b ? -1 : 1)))
      for (const ref of yield* lanes.findRecipients(storeId, [...new Set(ids)])) refs.set(`${storeId} ${ref.id}`, ref)
    const runs = new Map<string, { readonly store: Store.Store; readonly ref: RecipientRef; readonly events: Array<WebhookEvent.MessageStatus> }>()
    for (const { store, event } of items) {
      const ref = refs.get(`${store.id} ${event.callbackData}`)
      if (ref === undefined) continue
      const run = runs.get(ref.id)
      if (run === undefined) runs.set(ref.id, { store, ref, events: [event] })
      else run.events.push(event)
    }
    const now = yield* Time.now
    const planned: Array<{
      readonly store: Store.Store
      readonly events: ReadonlyArray<WebhookEvent.MessageStatus>
      readonly change: RecipientChange
    }> = []
    for (const { store, ref, events } of [...runs.values()].sort((a, b) => (a.ref.id < b.ref.id ? -1 : 1))) {
      let progress: Recipient.Advanced | undefined
      let wamid: string | null = null
      for (const event of events) {
        const next = Recipient.advance(progress ?? ref.progress, { status: event.status, at: event.timestamp, error: event.error })
        if (next === undefined) continue
        progress = next
        wamid = event.messageId
      }
      if (progress !== undefined) planned.push({ store, events, change: { ref, next: progress, operatorMessageId: wamid } })
    }
    const changed =
      planned.length === 0
        ? new Set<string>()
        : yield* lanes.advanceRecipients(
            planned.map((p) => p.change),
            now
          )
    const deltas = new Map<RecipientRef["campaignId"], { -readonly [K in keyof Counters]?: number }>()
    for (const { store, events, change } of planned) {
      const { ref, next } = change
      if (!changed.has(ref.id)) {
        yield* Effect.forEach(events, (event) => onRecipientStatus(store, event), { discard: true })
        continue
      }
      const sum = deltas.get(ref.campaignId) ?? {}
      for (const [key, n] of Object.entries(Recipient.counterDelta(ref.progress, next)) as Array<[keyof Counters, number]>)
        sum[key] = (sum[key] ?? 0) + n
      deltas.set(ref.campaignId, sum)
      yield* afterAdvance(ref, next)
    }
    for (const [campaignId, delta] of deltas) yield* lanes.addCounterDelta(campaignId, delta)
    yield* recordPricing(items.map((item) => item.event))
  })

/** The `pricing` the reports carry, on their recipients (the first one a recipient reports stays). */
const recordPricing = (events: ReadonlyArray<WebhookEvent.MessageStatus>) =>
  Effect.gen(function* () {
    const priced: Array<{ readonly id: Recipient.RecipientId; readonly category: string; readonly billable: boolean }> = []
    for (const event of events)
      if (event.pricing !== undefined && event.callbackData !== null && Recipient.RecipientId.is(event.callbackData))
        priced.push({ id: event.callbackData, category: event.pricing.category, billable: event.pricing.billable })
    if (priced.length > 0) yield* (yield* CampaignLaneRepo).recordPricing(priced)
  })
