/**
 * Call webhooks applied a batch at a time (`CallBatches.onCallEvents`, the inbox's way) have
 * the effect of applying each in turn (`CallWebhooks.onCallEvent`): two copies of the same
 * calls (in two stores each), one fed event by event and one in batches of random sizes, the
 * same random stream of events (new user calls and their replays, statuses and terminates in
 * any order, a terminate before its ACCEPTED, events for calls no store has, another store's
 * call id, an invalid wa_id), end with the same calls, customers and permission budgets, and
 * the same caller events in the same order (each store's: a batch writes its events a tenant
 * at a time).
 */
import {
  type Call,
  CallBatches,
  CallPermission,
  CallRepo,
  CallWebhooks,
  Customer,
  MessagingRepo,
  type Store,
  type Tenant,
  Time,
  type WebhookEvent,
  WebhookRepo
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { sideLabels } from "./batch-fixtures.js"
import { newCall } from "./calls-fixtures.js"
import { createStore, endpoint } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"
import { seededRandom as random } from "../random.js"

type CallEvent = Extract<WebhookEvent.WebhookEvent, { readonly _tag: "CallEvent" }>

const CALL_EVENTS = ["call.ringing", "call.accepted", "call.rejected", "call.ended", "call_permission.updated", "call.permission_updated"]

/** One store of a copy: its calls made before the stream, by label. */
const storeWithCalls = Effect.gen(function* () {
  const store = yield* createStore
  const tenant: Tenant.Tenant = { storeId: store.id, mode: "test" }
  yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(tenant, yield* endpoint(tenant, CALL_EVENTS))
  const repo = yield* CallRepo.CallRepo
  const calls: Record<string, Call.Call> = {
    b1: yield* newCall(tenant, { phone: "+15557000001", operatorCallId: "wacid.b1" }),
    b2: yield* newCall(tenant, { phone: "+15557000002" }),
    b3: yield* newCall(tenant, { phone: "+15557000003", status: "ringing", operatorCallId: "wacid.b3" }),
    u0: yield* newCall(tenant, { phone: "+15557000004", direction: "user_initiated", status: "accepted", operatorCallId: "wacid.u0" })
  }
  for (const call of Object.values(calls)) yield* repo.insert(tenant, call)
  // b3's customer was asked for permission: a connected call resets the budget
  const permission = CallPermission.fresh(tenant, "+15557000003", yield* Time.now)
  yield* (yield* CallRepo.CallPermissionRepo).compareAndSet(tenant, permission, { requestTimes: [permission.createdAt - 1000] })
  return { store, tenant, calls }
})

type Copy = { readonly a: Effect.Effect.Success<typeof storeWithCalls>; readonly b: Effect.Effect.Success<typeof storeWithCalls> }

const event = (store: Store.Store, fields: Partial<CallEvent> & Pick<CallEvent, "callId" | "kind">): CallEvent => ({
  _tag: "CallEvent",
  phoneNumberId: store.sandbox.phoneNumberId,
  customer: null,
  direction: null,
  timestamp: 1_700_000_000_000,
  session: null,
  status: null,
  startTime: null,
  endTime: null,
  durationSeconds: null,
  callbackData: null,
  payload: null,
  error: null,
  ...fields
})

/** The pool the stream draws from: event `i` for the store `to` of a copy (`other`: the copy's other store). */
const pool = (to: Copy["a"], other: Copy["a"]): ReadonlyArray<CallEvent> => {
  const s = to.store
  const offer = { sdpType: "offer", sdp: "v=0 offer" }
  const user = (callId: string, from: string) =>
    event(s, { callId, kind: "connect", direction: "USER_INITIATED", customer: from, session: offer, payload: "cta" })
  return [
    user("wacid.n1", "15557100001"),
    user("wacid.n2", "15557100002"),
    event(s, {
      callId: "wacid.n1",
      kind: "terminate",
      status: "COMPLETED",
      startTime: 1_700_000_001_000,
      endTime: 1_700_000_031_000,
      durationSeconds: 30
    }),
    event(s, { callId: "wacid.b1", kind: "status", status: "RINGING", callbackData: to.calls.b1.id }),
    event(s, { callId: "wacid.b1", kind: "status", status: "ACCEPTED", session: { sdpType: "answer", sdp: "v=0 answer b1" } }),
    event(s, { callId: "wacid.b1", kind: "status", status: "REJECTED", error: { code: 138_006, message: "declined" } }),
    event(s, {
      callId: "wacid.b2",
      kind: "connect",
      direction: "BUSINESS_INITIATED",
      callbackData: to.calls.b2.id,
      session: { sdpType: "answer", sdp: "v=0 b2" }
    }),
    event(s, { callId: "wacid.b3", kind: "terminate", status: "COMPLETED", endTime: 1_700_000_060_000 }),
    event(s, { callId: "wacid.b2", kind: "terminate", status: "FAILED" }),
    event(s, { callId: "wacid.unknown", kind: "terminate", status: "COMPLETED" }),
    user("wacid.bad", "not-a-number"),
    event(s, { callId: "wacid.other", kind: "status", status: "RINGING", callbackData: other.calls.b2.id }),
    event(s, { callId: "wacid.u0", kind: "terminate", status: "COMPLETED", durationSeconds: 12 }),
    event(s, { callId: "wacid.u0", kind: "status", status: "ACCEPTED" })
  ]
}

/** A copy's calls, customers, budgets and caller events, with its own ids replaced by labels. */
const state = (copy: Copy, events: ReadonlyArray<{ readonly storeId: string; readonly type: string; readonly data: unknown }>) =>
  Effect.gen(function* () {
    const labels = sideLabels(copy, (name, side, labels) => {
      for (const [label, call] of Object.entries(side.calls)) labels.set(call.id, `${name}.${label}`)
    })
    const calls = yield* CallRepo.CallRepo
    const rows: Array<unknown> = []
    const customers: Array<unknown> = []
    const budgets: Array<unknown> = []
    for (const side of [copy.a, copy.b]) {
      for (const call of (yield* calls.list(side.tenant, { limit: 100 })).items) {
        if (!labels.has(call.id)) labels.set(call.id, `${labels.get(side.store.id)}.new.${call.operatorCallId}`)
      }
    }
    const label = (s: string) => labels.get(s) ?? s
    for (const side of [copy.a, copy.b]) {
      for (const call of (yield* calls.list(side.tenant, { limit: 100 })).items)
        rows.push({ ...call, id: label(call.id), storeId: label(call.storeId) })
      for (const c of (yield* (yield* MessagingRepo.CustomerRepo).list(side.tenant, { limit: 100 })).items) {
        customers.push({ store: label(c.storeId), phone: c.phone, lastInboundAt: c.lastInboundAt, profileName: c.profileName })
      }
      const p = Option.getOrThrow(yield* (yield* CallRepo.CallPermissionRepo).find(side.tenant, "+15557000003"))
      budgets.push({ requestTimes: p.requestTimes, budgetResetAt: p.budgetResetAt, version: p.version })
    }
    const sort = (xs: Array<unknown>) => xs.map((x) => JSON.stringify(x)).sort()
    return {
      calls: sort(rows),
      customers: sort(customers),
      budgets,
      // a batch writes its events a tenant at a time: each store's in the order emitted
      events: ["a", "b"].map((store) =>
        events
          .filter((e) => label(e.storeId) === store)
          .map((e) => ({ type: e.type, data: { ...(e.data as object), id: label((e.data as { id: string }).id) } }))
      )
    }
  })

export const callBatchTests = (it: ContractIt): void => {
  describe("CallBatches", () => {
    it.effect(
      "a batch of call webhooks has the effect of each in turn: same calls, customers, budgets, caller events in the same order",
      () =>
        Effect.gen(function* () {
          const webhooks = yield* WebhookRepo.WebhookRepo
          const written: Array<{ readonly storeId: string; readonly type: string; readonly data: unknown }> = []
          const observed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
            Effect.provideService(effect, WebhookRepo.WebhookRepo, {
              ...webhooks,
              insertEvents: (tenant, events) => {
                for (const e of events) written.push({ storeId: tenant.storeId, type: e.type, data: e.data })
                return webhooks.insertEvents(tenant, events)
              }
            })
          for (const seed of [1, 2, 3, 4, 5, 6]) {
            const next = random(seed)
            const one: Copy = { a: yield* storeWithCalls, b: yield* storeWithCalls }
            const batched: Copy = { a: yield* storeWithCalls, b: yield* storeWithCalls }
            const size = pool(one.a, one.b).length
            const stream = Array.from({ length: 30 }, () => ({ toA: next() < 0.6, index: Math.floor(next() * size) }))
            const itemsOf = (copy: Copy) =>
              stream.map(({ toA, index }) => {
                const [to, other] = toA ? [copy.a, copy.b] : [copy.b, copy.a]
                return { store: to.store, kind: "sandbox" as const, event: pool(to, other)[index] }
              })

            written.length = 0
            for (const item of itemsOf(one)) yield* observed(CallWebhooks.onCallEvent(item.store, item.kind, item.event))
            const byOne = yield* state(one, written)

            written.length = 0
            const items = itemsOf(batched)
            for (let start = 0; start < items.length; ) {
              const n = 1 + Math.floor(next() * 12)
              yield* observed(CallBatches.onCallEvents(items.slice(start, start + n)))
              start += n
            }
            const byBatch = yield* state(batched, written)

            expect(byBatch).toEqual(byOne)
            expect(byOne.events.flat().length).toBeGreaterThan(0)
          }
        }),
      // six streams through both paths, on a shared machine
      120_000
    )

    it.effect(
      "new calls of one customer in a batch upsert it once, as one after another: the latest time, its other fields kept; other phones and stores their own",
      () =>
        Effect.gen(function* () {
          const customers = yield* MessagingRepo.CustomerRepo
          const inbound = yield* MessagingRepo.CustomerInboundRepo
          const items = (copy: Copy) => {
            const offer = { sdpType: "offer", sdp: "v=0 offer" }
            const user = (to: Copy["a"], callId: string, from: string, at: number) => ({
              store: to.store,
              kind: "sandbox" as const,
              event: event(to.store, {
                callId,
                kind: "connect",
                direction: "USER_INITIATED",
                customer: from,
                session: offer,
                payload: "cta",
                timestamp: at
              })
            })
            return [
              // a known customer of a (a name, an older time): three calls, the latest time in the middle
              user(copy.a, "wacid.k1", "15557200001", 1_700_000_050_000),
              user(copy.a, "wacid.k2", "15557200001", 1_700_000_090_000),
              user(copy.b, "wacid.k1", "15557200001", 1_700_000_070_000),
              user(copy.a, "wacid.k3", "15557200001", 1_700_000_060_000),
              // a new customer, twice, and a replay of its first call
              user(copy.a, "wacid.m1", "15557200002", 1_700_000_020_000),
              user(copy.a, "wacid.m2", "15557200002", 1_700_000_010_000),
              user(copy.a, "wacid.m1", "15557200002", 1_700_000_030_000),
              // an invalid wa_id writes no customer
              user(copy.b, "wacid.bad", "not-a-number", 1_700_000_040_000)
            ]
          }
          const known = (copy: Copy) =>
            Effect.flatMap(Customer.CustomerId.generate, (newId) =>
              inbound.recordInbound(copy.a.tenant, {
                phone: "+15557200001",
                waId: "15557200001",
                profileName: "Kim",
                at: 1_700_000_000_000 as Time.Millis,
                newId
              })
            )
          const customersOf = (copy: Copy) =>
            Effect.gen(function* () {
              const rows: Array<unknown> = []
              for (const [name, side] of [
                ["a", copy.a],
                ["b", copy.b]
              ] as const) {
                for (const c of (yield* customers.list(side.tenant, { limit: 100 })).items)
                  rows.push({ store: name, phone: c.phone, waId: c.waId, lastInboundAt: c.lastInboundAt, profileName: c.profileName })
              }
              return rows.map((r) => JSON.stringify(r)).sort()
            })

          const one: Copy = { a: yield* storeWithCalls, b: yield* storeWithCalls }
          const batched: Copy = { a: yield* storeWithCalls, b: yield* storeWithCalls }
          const kim = yield* known(one)
          const kimBatched = yield* known(batched)
          for (const item of items(one)) yield* CallWebhooks.onCallEvent(item.store, item.kind, item.event)
          yield* CallBatches.onCallEvents(items(batched))

          const byOne = yield* customersOf(one)
          expect(yield* customersOf(batched)).toEqual(byOne)
          expect(byOne).toEqual(
            [
              { store: "a", phone: "+15557200001", waId: "15557200001", lastInboundAt: 1_700_000_090_000, profileName: "Kim" },
              { store: "a", phone: "+15557200002", waId: "15557200002", lastInboundAt: 1_700_000_020_000, profileName: null },
              { store: "b", phone: "+15557200001", waId: "15557200001", lastInboundAt: 1_700_000_070_000, profileName: null }
            ]
              .map((r) => JSON.stringify(r))
              .sort()
          )
          // the known customer kept its row
          for (const [copy, before] of [
            [one, kim],
            [batched, kimBatched]
          ] as const) {
            const after = Option.getOrThrow(yield* customers.findByPhone(copy.a.tenant, "+15557200001"))
            expect(after.id).toBe(before.id)
            expect(after.createdAt).toBe(before.createdAt)
          }
        }),
      60_000
    )
  })
}
