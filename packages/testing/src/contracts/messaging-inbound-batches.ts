/**
 * Customers' messages and operator notices applied a batch at a time (`InboundMessageBatches`,
 * the inbox's way) have the effect of applying each in turn (`MessagingEvents.onInboundMessage`,
 * `onOperatorNotice`): two copies of the same stores (a customer known before, a phone on
 * the opt-out list), one fed event by event and one in batches of random sizes, the same
 * random stream (replays, a wamid twice in one batch, several messages of one customer with
 * and without a profile name, older ones after newer, STOP then START and back, a wa_id that
 * is no phone, a sender with no customer yet), end with the same inbound messages recorded,
 * the same customers (a known customer keeps its id), the same opt-out list and the same
 * caller events in the same order (each store's). Also the storage side: `recordMany` and
 * `recordInbounds` against `record` and `recordInbound`.
 */
import {
  Customer,
  Id,
  InboundMessage,
  InboundMessageBatches,
  MessagingEvents,
  MessagingRepo,
  PreferenceBatches,
  type Store,
  type Tenant,
  Transactor,
  type WebhookEvent,
  WebhookRepo
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { type Paths, sameInBatches, sideLabels, type Written } from "./batch-fixtures.js"
import { createStore, endpoint, phone, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"
import { seededRandom as random } from "../random.js"

const AT = 1_700_000_000_000
const PHONES = ["15557300001", "15557300002", "15557300003", "15557300004"] as const

/** One store of a copy: a customer known before (the second phone), the third phone on the opt-out list. */
const storeWithCustomers = Effect.gen(function* () {
  const store = yield* createStore
  const tenant: Tenant.Tenant = { storeId: store.id, mode: "test" }
  yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(
    tenant,
    yield* endpoint(tenant, ["message.received", "customer.opted_out", "customer.opted_in"])
  )
  const known = yield* (yield* MessagingRepo.CustomerInboundRepo).recordInbound(tenant, {
    phone: `+${PHONES[1]}`,
    waId: PHONES[1],
    profileName: "Robert",
    at: AT + 2_500,
    newId: yield* Customer.CustomerId.generate
  })
  yield* (yield* MessagingRepo.OptOutRepo).add(tenant, `+${PHONES[2]}`, "operator_preference")
  return { store, tenant, known }
})

type Side = Effect.Effect.Success<typeof storeWithCustomers>
type Copy = { readonly a: Side; readonly b: Side }

const inbound = (
  store: Store.Store,
  messageId: string,
  from: string,
  at: number,
  text: string | null,
  fields: Partial<WebhookEvent.InboundMessage> = {}
): WebhookEvent.InboundMessage => ({
  _tag: "InboundMessage",
  phoneNumberId: store.sandbox.phoneNumberId,
  from,
  profileName: null,
  messageId,
  timestamp: AT + at,
  type: "text",
  text,
  reply: null,
  raw: { type: "text", text: { body: text } },
  ...fields
})

const messages = (s: Store.Store): ReadonlyArray<WebhookEvent.InboundMessage> => [
  inbound(s, "wamid.m1", PHONES[0], 1_000, "hi", { profileName: "Ann" }),
  inbound(s, "wamid.m2", PHONES[0], 2_000, "STOP"),
  inbound(s, "wamid.m3", PHONES[0], 1_500, "start", { profileName: "Annie" }),
  inbound(s, "wamid.m4", PHONES[1], 3_000, "hello", { profileName: "Bob" }),
  inbound(s, "wamid.m5", PHONES[1], 500, "Yes", {
    type: "interactive",
    reply: { id: "yes", title: "Yes", description: null },
    raw: { type: "interactive", interactive: { type: "button_reply", button_reply: { id: "yes", title: "Yes" } } }
  }),
  inbound(s, "wamid.m6", PHONES[2], 4_000, "Stop"),
  inbound(s, "wamid.m7", PHONES[2], 4_500, "START"),
  inbound(s, "wamid.m8", PHONES[3], 100, null, { type: "image", profileName: "Dee", raw: { type: "image", image: { id: "media.1" } } }),
  inbound(s, "wamid.m9", "not-a-phone", 200, "STOP"),
  inbound(s, "wamid.m10", PHONES[3], 200, "STOP"),
  inbound(s, "wamid.m11", PHONES[1], 3_500, "unsubscribe", { profileName: "Rob" })
]

const notice = (
  store: Store.Store,
  messageId: string,
  from: string | null,
  kind: WebhookEvent.NoticeKind,
  text: string | null
): WebhookEvent.OperatorNotice => ({
  _tag: "OperatorNotice",
  phoneNumberId: store.sandbox.phoneNumberId,
  from,
  messageId,
  timestamp: AT + 7_000,
  kind,
  text,
  originalMessageId: kind === "revoke" || kind === "edit" ? "wamid.m1" : null,
  raw: {}
})

const notices = (s: Store.Store): ReadonlyArray<WebhookEvent.OperatorNotice> => [
  notice(s, "wamid.n1", PHONES[0], "system", "User changed number"),
  notice(s, "wamid.n2", PHONES[0], "revoke", null),
  notice(s, "wamid.n3", PHONES[1], "edit", "hi again"),
  notice(s, "wamid.n4", null, "unsupported", "Message type unknown"),
  notice(s, "wamid.n5", "not-a-phone", "system", null),
  notice(s, "wamid.n6", PHONES[3], "unsupported", "Message type unknown")
]

type Recorded = Omit<InboundMessage.InboundMessage, "storeId" | "mode">

/** A copy's inbound messages (as recorded), customers, opt-outs and caller events, with its own ids replaced by labels. */
const state = (copy: Copy, recorded: ReadonlyArray<{ readonly tenant: Tenant.Tenant; readonly row: Recorded }>, events: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const customers: Array<unknown> = []
    const optOuts: Array<unknown> = []
    const labels = sideLabels(copy, (name, side, labels) => void labels.set(side.known.id, `${name}.known`))
    for (const [name, side] of [
      ["a", copy.a],
      ["b", copy.b]
    ] as const) {
      for (const c of (yield* (yield* MessagingRepo.CustomerRepo).list(side.tenant, { limit: 100 })).items) {
        if (!labels.has(c.id)) labels.set(c.id, `${name}.${c.phone}`)
        customers.push({ ...c, id: labels.get(c.id), storeId: name })
      }
      optOuts.push((yield* (yield* MessagingRepo.OptOutRepo).list(side.tenant, { limit: 100 })).items)
    }
    const label = (s: unknown) => (typeof s === "string" ? (labels.get(s) ?? s) : s)
    const sort = (xs: ReadonlyArray<unknown>) => xs.map((x) => JSON.stringify(x)).sort()
    return {
      recorded: sort(recorded.map(({ tenant, row }) => ({ ...row, id: null, store: label(tenant.storeId) }))),
      customers: sort(customers),
      optOuts,
      events: ["a", "b"].map((store) =>
        events.filter((e) => label(e.storeId) === store).map((e) => ({ type: e.type, data: { ...e.data, customer_id: label(e.data.customer_id) } }))
      )
    }
  })

/** Feeds one copy event by event and the other in batches of random sizes; both end the same. */
const same = <E>(seed: number, paths: Paths<E>) =>
  Effect.gen(function* () {
    const repo = yield* MessagingRepo.InboundMessageRepo
    const recorded: Array<{ readonly tenant: Tenant.Tenant; readonly row: Recorded }> = []
    // the rows the store answers it recorded (the storage contract below proves it recorded exactly those)
    const observe = <A, Er, R>(effect: Effect.Effect<A, Er, R>) =>
      Effect.provideService(effect, MessagingRepo.InboundMessageRepo, {
        record: (tenant, row) => Effect.tap(repo.record(tenant, row), (fresh) => fresh && recorded.push({ tenant, row })),
        recordMany: (tenant, rows) =>
          Effect.tap(repo.recordMany(tenant, rows), (stored) => {
            for (const row of rows) if (stored.has(row.operatorMessageId)) recorded.push({ tenant, row })
          })
      })
    const byOne = yield* sameInBatches({
      ...paths,
      seed,
      length: 40,
      side: () => storeWithCustomers,
      state: (copy, written) => state(copy, recorded, written),
      observe,
      reset: () => void recorded.splice(0)
    })
    expect(byOne.recorded.length).toBeGreaterThan(0)
    return byOne
  })

const inboundRow = (wamid: string, from: string, text: string | null) =>
  Effect.map(InboundMessage.InboundMessageId.generate, (id) => ({ id, operatorMessageId: wamid, from, type: "text", text, receivedAt: AT }))

export const inboundBatchTests = (it: ContractIt): void => {
  describe("InboundMessageBatches", () => {
    it.effect(
      "a batch of customer messages has the effect of each in turn: same messages, customers, opt-outs, caller events in the same order",
      () =>
        Effect.gen(function* () {
          const seen = { events: 0, keywords: 0 }
          for (const seed of [1, 2, 3, 4, 5, 6]) {
            const byOne = yield* same(seed, {
              pool: messages,
              one: (store, event) => MessagingEvents.onInboundMessage(store, "sandbox", event),
              batch: InboundMessageBatches.onInboundMessages
            })
            const events = byOne.events.flat()
            seen.events += events.length
            seen.keywords += events.filter((e) => e.type !== "message.received").length
          }
          // the streams did exercise what they are about
          expect(seen.events).toBeGreaterThan(0)
          expect(seen.keywords).toBeGreaterThan(0)
        }),
      120_000
    )

    it.effect("a batch of operator notices has the effect of each in turn: the same notices recorded, nothing else", () =>
      Effect.forEach(
        [1, 2, 3, 4],
        (seed) =>
          Effect.map(
            same(seed, {
              pool: notices,
              one: (store, event) => MessagingEvents.onOperatorNotice(store, "sandbox", event),
              batch: InboundMessageBatches.onOperatorNotices
            }),
            (byOne) => expect(byOne.events.flat()).toEqual([])
          ),
        { discard: true }
      )
    )
  })

  describe("PreferenceBatches", () => {
    const preference = (store: Store.Store, waId: string, optedOut: boolean): WebhookEvent.MarketingPreference => ({
      _tag: "MarketingPreference",
      phoneNumberId: store.sandbox.phoneNumberId,
      waId,
      optedOut
    })
    const preferences = (s: Store.Store): ReadonlyArray<WebhookEvent.MarketingPreference> => [
      ...PHONES.flatMap((p) => [preference(s, p, true), preference(s, p, false)]),
      preference(s, PHONES[2], true),
      preference(s, "not-a-phone", true)
    ]
    it.effect(
      "a batch of marketing preference signals has the effect of each in turn: the same opt-out list (sources and times), the same caller events in the same order",
      () =>
        Effect.gen(function* () {
          const seen = { out: 0, in: 0 }
          for (const seed of [1, 2, 3, 4, 5, 6]) {
            const byOne = yield* sameInBatches({
              seed,
              length: 40,
              pool: preferences,
              one: (store, event) => MessagingEvents.onMarketingPreference(store, "sandbox", event),
              batch: PreferenceBatches.onMarketingPreferences,
              side: () => storeWithCustomers,
              state: (copy, written) =>
                Effect.gen(function* () {
                  const labels = sideLabels(copy, () => undefined)
                  const optOuts: Array<unknown> = []
                  for (const side of [copy.a, copy.b])
                    optOuts.push((yield* (yield* MessagingRepo.OptOutRepo).list(side.tenant, { limit: 100 })).items)
                  return { optOuts, events: written.map((e) => ({ store: labels.get(e.storeId), type: e.type, data: e.data })) }
                })
            })
            seen.out += byOne.events.filter((e) => e.type === "customer.opted_out").length
            seen.in += byOne.events.filter((e) => e.type === "customer.opted_in").length
          }
          expect(seen.out).toBeGreaterThan(0)
          expect(seen.in).toBeGreaterThan(0)
        }),
      120_000
    )
  })

  describe("OptOutRepo.addMany and removeMany", () => {
    it.effect("add and remove each phone as add and remove do, answering the phones changed now, each tenant its own", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.OptOutRepo
        const { aLive, aTest } = yield* threeTenants
        const [p1, p2, p3] = [phone(), phone(), phone()]
        expect(yield* repo.add(aLive, p1, "keyword")).toBe(true)
        expect(yield* repo.addMany(aLive, [p1, p2, p2, p3], "operator_preference")).toEqual(new Set([p2, p3]))
        // the first source stays
        const listed = (yield* repo.list(aLive, { limit: 10 })).items
        expect(listed.find((o) => o.phone === p1)?.source).toBe("keyword")
        expect(listed.find((o) => o.phone === p2)?.source).toBe("operator_preference")
        expect(yield* repo.filterOptedOut(aTest, [p1, p2, p3])).toEqual(new Set())
        expect(yield* repo.removeMany(aTest, [p1, p2])).toEqual(new Set())
        expect(yield* repo.removeMany(aLive, [p1, p3, phone()])).toEqual(new Set([p1, p3]))
        expect(yield* repo.filterOptedOut(aLive, [p1, p2, p3])).toEqual(new Set([p2]))
        expect(yield* repo.addMany(aLive, [], "keyword")).toEqual(new Set())
        expect(yield* repo.removeMany(aLive, [])).toEqual(new Set())
        // more phones than one statement takes
        const many = Array.from({ length: 1_203 }, () => phone())
        expect((yield* repo.addMany(aTest, many, "keyword")).size).toBe(1_203)
        expect((yield* repo.removeMany(aTest, many)).size).toBe(1_203)
      })
    )
  })

  describe("InboundMessageBatches concurrently", () => {
    it.effect("batches applied concurrently, each in its own transaction, never deadlock and receive each message once", () =>
      Effect.gen(function* () {
        const tx = yield* Transactor.Transactor
        const webhooks = yield* WebhookRepo.WebhookRepo
        const side = yield* storeWithCustomers
        const received: Array<string> = []
        const observed = Effect.provideService(WebhookRepo.WebhookRepo, {
          ...webhooks,
          insertEvents: (tenant, events) => {
            for (const e of events) if (e.type === "message.received") received.push((e.data as { operator_message_id: string }).operator_message_id)
            return webhooks.insertEvents(tenant, events)
          }
        })
        const next = random(11)
        const pool = messages(side.store)
        // 8 batches over the same messages and customers, each in its own order: their locks would cross if not taken in one order
        const batches = Array.from({ length: 8 }, () =>
          Array.from({ length: 12 }, () => ({ store: side.store, kind: "sandbox" as const, event: pool[Math.floor(next() * pool.length)] }))
        )
        yield* Effect.all(
          batches.map((items) => tx.withTransaction(InboundMessageBatches.onInboundMessages(items)).pipe(observed)),
          { concurrency: "unbounded" }
        )
        const sent = new Set(batches.flat().map((i) => i.event.messageId))
        sent.delete("wamid.m9")
        expect(received.sort()).toEqual([...sent].sort())
        const customers = (yield* (yield* MessagingRepo.CustomerRepo).list(side.tenant, { limit: 100 })).items
        expect(customers.find((c) => c.phone === side.known.phone)?.id).toBe(side.known.id)
        expect(new Set(customers.map((c) => c.phone)).size).toBe(customers.length)
      })
    )
  })

  describe("InboundMessageRepo.recordMany", () => {
    it.effect("records each wamid once per tenant, answering the ones it stored now, as record does", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.InboundMessageRepo
        const { aLive, aTest } = yield* threeTenants
        const w = Array.from({ length: 4 }, () => `wamid.${Id.randomToken(20)}`)
        expect(yield* repo.record(aLive, yield* inboundRow(w[0], phone(), "before"))).toBe(true)
        const stored = yield* repo.recordMany(aLive, yield* Effect.forEach([w[0], w[1], w[2]], (wamid) => inboundRow(wamid, phone(), "hi")))
        expect([...stored].sort()).toEqual([w[1], w[2]].sort())
        // what it stored is stored: a second delivery of any of them is a duplicate
        for (const wamid of [w[0], w[1], w[2]]) expect(yield* repo.record(aLive, yield* inboundRow(wamid, phone(), null))).toBe(false)
        expect(yield* repo.recordMany(aLive, [yield* inboundRow(w[1], phone(), null), yield* inboundRow(w[3], phone(), null)])).toEqual(
          new Set([w[3]])
        )
        // another tenant's wamids are its own
        expect((yield* repo.recordMany(aTest, yield* Effect.forEach(w, (wamid) => inboundRow(wamid, phone(), null)))).size).toBe(4)
        expect(yield* repo.recordMany(aTest, [])).toEqual(new Set())
        // more rows than one statement takes
        const many = yield* Effect.forEach(Array.from({ length: 1_203 }), () => inboundRow(`wamid.${Id.randomToken(20)}`, phone(), null))
        expect((yield* repo.recordMany(aLive, many)).size).toBe(1_203)
      })
    )
  })

  describe("CustomerInboundRepo.recordInbounds", () => {
    it.effect("upserts each phone as recordInbound does: a known customer keeps its id, the latest time, the name unless none is given", () =>
      Effect.gen(function* () {
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const customers = yield* MessagingRepo.CustomerRepo
        const { aLive, aTest } = yield* threeTenants
        const [p1, p2, p3] = [phone(), phone(), phone()]
        const input = (p: string, profileName: string | null, at: number) =>
          Effect.map(
            Customer.CustomerId.generate,
            (newId): MessagingRepo.InboundCustomer => ({ phone: p, waId: p.slice(1), profileName, at: AT + at, newId })
          )
        const known = yield* inbound.recordInbound(aLive, yield* input(p1, "Ann", 2_000))
        const named = yield* inbound.recordInbound(aLive, yield* input(p2, "Bob", 1_000))
        const fresh = yield* input(p3, null, 500)
        const rows = yield* inbound.recordInbounds(aLive, [yield* input(p1, null, 1_000), yield* input(p2, "Bobby", 3_000), fresh])
        expect([...rows.keys()].sort()).toEqual([p1, p2, p3].sort())
        expect(rows.get(p1)).toMatchObject({ id: known.id, profileName: "Ann", lastInboundAt: AT + 2_000, createdAt: known.createdAt })
        expect(rows.get(p2)).toMatchObject({ id: named.id, profileName: "Bobby", lastInboundAt: AT + 3_000 })
        expect(rows.get(p3)).toMatchObject({ id: fresh.newId, phone: p3, waId: p3.slice(1), profileName: null, lastInboundAt: AT + 500 })
        for (const [p, row] of rows) expect(yield* customers.findByPhone(aLive, p)).toEqual(Option.some(row))
        // the other mode's customers are others
        expect(yield* customers.findByPhone(aTest, p1)).toEqual(Option.none())
        expect((yield* inbound.recordInbounds(aTest, [yield* input(p1, null, 0)])).get(p1)?.id).not.toBe(known.id)
        expect((yield* inbound.recordInbounds(aTest, [])).size).toBe(0)
        // more phones than one statement takes
        const many = yield* Effect.forEach(Array.from({ length: 1_203 }), () => input(phone(), null, 0))
        expect((yield* inbound.recordInbounds(aTest, many)).size).toBe(1_203)
      })
    )
  })
}
