/**
 * The flows module's operator events applied a batch at a time (`FlowBatches`, the inbox's
 * way) have the effect of applying each in turn (`FlowResponses.onInboundMessage`,
 * `FlowHealth.onFlowEvent`): two copies of the same flows and sends (in two stores each), one
 * fed event by event and one in batches of random sizes, the same random stream (`nfm_reply`
 * messages and their replays, tokens of no send and of the other store's send, a token sent
 * twice, messages that are not flow replies; status changes in any order, alerts, a flow no
 * store has), end with the same responses and flow statuses, and the same caller events in
 * the same order (each store's: a batch writes its events a tenant at a time).
 */
import {
  type Flow,
  FlowBatches,
  FlowHealth,
  FlowRepo,
  FlowResponse,
  FlowResponseRepo,
  FlowResponses,
  type Store,
  type Tenant,
  Time,
  type WebhookEvent,
  WebhookRepo
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { type Paths, sameInBatches, sideLabels, type Written } from "./batch-fixtures.js"
import { flow } from "./flows-fixtures.js"
import { createStore, endpoint } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

type InboundMessage = Extract<WebhookEvent.WebhookEvent, { readonly _tag: "InboundMessage" }>
type FlowEvent = Extract<WebhookEvent.WebhookEvent, { readonly _tag: "FlowEvent" }>

/** One store of a copy: two published flows, one throttled, and sends of their tokens. */
const storeWithFlows = (label: string) =>
  Effect.gen(function* () {
    const store = yield* createStore
    const tenant: Tenant.Tenant = { storeId: store.id, mode: "test" }
    yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(tenant, yield* endpoint(tenant, ["flow.response", "flow.status_changed", "flow.alert"]))
    const flows = {
      f1: yield* flow(tenant, { status: "PUBLISHED", operatorFlowId: "op.f1" }),
      f2: yield* flow(tenant, { status: "THROTTLED", operatorFlowId: "op.f2" })
    }
    for (const f of Object.values(flows)) yield* (yield* FlowRepo.FlowRepo).insert(tenant, f)
    const repo = yield* FlowResponseRepo.FlowResponseRepo
    const sends: Array<FlowResponse.FlowSend> = []
    for (const [f, token, at] of [
      [flows.f1, "tok-1", 0],
      [flows.f1, "tok-2", 1],
      [flows.f2, "tok-2", 2],
      [flows.f2, `tok-${label}`, 3]
    ] as const) {
      const send = {
        id: yield* FlowResponse.FlowSendId.generate,
        flowId: f.id,
        flowToken: token,
        messageId: `msg_${token}_${at}`,
        to: "+15557200001",
        createdAt: (yield* Time.now) + at
      }
      yield* repo.recordSend(tenant, send)
      sends.push(send)
    }
    return { store, tenant, flows, sends }
  })

type Side = Effect.Effect.Success<ReturnType<typeof storeWithFlows>>
type Copy = { readonly a: Side; readonly b: Side }

const reply = (store: Store.Store, messageId: string, response: unknown, type = "interactive"): InboundMessage => ({
  _tag: "InboundMessage",
  phoneNumberId: store.sandbox.phoneNumberId,
  from: "15557200001",
  profileName: null,
  messageId,
  timestamp: 1_700_000_000_000,
  type,
  text: null,
  reply: null,
  raw:
    type === "interactive"
      ? {
          type,
          interactive: {
            type: "nfm_reply",
            nfm_reply: { name: "flow", body: "Sent", response_json: typeof response === "string" ? response : JSON.stringify(response) }
          }
        }
      : { type, text: { body: "hi" } }
})

const replies = (s: Store.Store): ReadonlyArray<InboundMessage> => [
  reply(s, "wamid.m1", { flow_token: "tok-1", name: "Ana" }),
  reply(s, "wamid.m2", { flow_token: "tok-2", agree: true }),
  reply(s, "wamid.m3", { flow_token: "tok-none" }),
  reply(s, "wamid.m4", { flow_token: "tok-b" }),
  reply(s, "wamid.m5", { name: "no token" }),
  reply(s, "wamid.m6", "not json"),
  reply(s, "wamid.m7", {}, "text")
]

const flowEvent = (s: Store.Store, flowId: string, event: string, fields: Partial<FlowEvent> = {}): FlowEvent => ({
  _tag: "FlowEvent",
  wabaId: s.sandbox.wabaId,
  flowId,
  event,
  message: `${event} of ${flowId}`,
  oldStatus: null,
  newStatus: null,
  alertState: null,
  details: {},
  ...fields
})

const flowEvents = (s: Store.Store): ReadonlyArray<FlowEvent> => [
  flowEvent(s, "op.f1", "FLOW_STATUS_CHANGE", { newStatus: "THROTTLED" }),
  flowEvent(s, "op.f1", "FLOW_STATUS_CHANGE", { newStatus: "BLOCKED" }),
  flowEvent(s, "op.f1", "FLOW_STATUS_CHANGE", { newStatus: "PUBLISHED" }),
  flowEvent(s, "op.f2", "FLOW_STATUS_CHANGE", { newStatus: "PUBLISHED" }),
  flowEvent(s, "op.f2", "FLOW_STATUS_CHANGE", { newStatus: "BLOCKED" }),
  flowEvent(s, "op.f2", "FLOW_STATUS_CHANGE", { newStatus: "DEPRECATED" }),
  flowEvent(s, "op.f1", "ENDPOINT_ERROR_RATE", { alertState: "ACTIVATED", details: { error_rate: 12 } }),
  flowEvent(s, "op.unknown", "FLOW_STATUS_CHANGE", { newStatus: "BLOCKED" })
]

/** A copy's responses, flows and caller events, with its own ids replaced by labels. */
const state = (copy: Copy, events: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const labels = sideLabels(copy, (name, side, labels) => {
      for (const [label, f] of Object.entries(side.flows)) labels.set(f.id, `${name}.${label}`)
      side.sends.forEach((send, i) => void labels.set(send.id, `${name}.send${i}`))
    })
    const label = (s: unknown) => (typeof s === "string" ? (labels.get(s) ?? s) : s)
    const responses: Array<unknown> = []
    const flows: Array<unknown> = []
    const responseIds = new Map<string, string>()
    for (const side of [copy.a, copy.b]) {
      for (const r of (yield* (yield* FlowResponseRepo.FlowResponseRepo).list(side.tenant, { limit: 100 })).items) {
        responseIds.set(r.id, `${labels.get(side.store.id)}.${r.operatorMessageId}`)
        responses.push({ ...r, id: null, storeId: label(r.storeId), flowId: label(r.flowId), sendId: label(r.sendId) })
      }
      for (const f of Object.values(side.flows) as Array<Flow.Flow>) {
        const stored = Option.getOrThrow(yield* (yield* FlowRepo.FlowRepo).find(side.tenant, f.id))
        flows.push({ flow: label(f.id), status: stored.status, updatedAt: stored.updatedAt })
      }
    }
    const sort = (xs: Array<unknown>) => xs.map((x) => JSON.stringify(x)).sort()
    return {
      responses: sort(responses),
      flows,
      events: ["a", "b"].map((store) =>
        events
          .filter((e) => label(e.storeId) === store)
          .map((e) => ({
            type: e.type,
            data: { ...e.data, flow_id: label(e.data.flow_id), response_id: responseIds.get(e.data.response_id as string) ?? null }
          }))
      )
    }
  })

/** Feeds one copy event by event and the other in batches of random sizes; both end the same. */
const same = <E>(seed: number, paths: Paths<E>) =>
  Effect.map(sameInBatches({ ...paths, seed, length: 30, side: storeWithFlows, state }), (byOne) =>
    expect(byOne.events.flat().length).toBeGreaterThan(0)
  )

export const flowBatchTests = (it: ContractIt): void => {
  describe("FlowBatches", () => {
    /** Six seeded streams of `pool`'s events, applied one at a time and in batches, compared. */
    const equal = <E>(what: string, pool: Paths<E>["pool"], one: Paths<E>["one"], batch: Paths<E>["batch"]) =>
      it.effect(
        `a batch of ${what} has the effect of each in turn: same rows, same caller events in the same order`,
        () => Effect.forEach([1, 2, 3, 4, 5, 6], (seed) => same(seed, { pool, one, batch })),
        120_000
      )
    equal("nfm_reply messages", replies, (store, event) => FlowResponses.onInboundMessage(store, "sandbox", event), FlowBatches.onInboundMessages)
    equal("flow status webhooks", flowEvents, (store, event) => FlowHealth.onFlowEvent(store, "sandbox", event), FlowBatches.onFlowEvents)
  })
}
