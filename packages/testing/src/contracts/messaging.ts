/**
 * The contract of the messaging backbone's storage ports (customers, opt-outs, outbound and
 * inbound messages, caller webhooks), listed in `storageContracts` so that every store
 * runs it unchanged. Each test works in stores it creates, so tests never see each other's
 * rows; every port is checked to hide another store's and the other mode's rows. The
 * module's whole contract (these, the list, caller webhooks, status batches) is put together
 * in `messaging-contract.ts`.
 */
import { Customer, Id, InboundMessage, Message, MessagingRepo, Transactor } from "@switchboard/domain"
import { Duration, Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { message, nowMillis, phone, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

/** Customers, opt-outs, outbound and inbound messages. */
export const messageTests = (it: ContractIt): void => {
  describe("CustomerRepo", () => {
    it.effect("is scoped by store and mode", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.CustomerRepo
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const p = phone()
        const at = 1_700_000_000_000
        const customer = yield* inbound.recordInbound(aLive, {
          phone: p,
          waId: p.slice(1),
          profileName: "Ann",
          at,
          newId: yield* Customer.CustomerId.generate
        })
        expect(customer).toMatchObject({ storeId: aLive.storeId, mode: "live", phone: p, waId: p.slice(1), profileName: "Ann", lastInboundAt: at })

        expect(yield* repo.findById(aLive, customer.id)).toEqual(Option.some(customer))
        expect(yield* repo.findByPhone(aLive, p)).toEqual(Option.some(customer))
        expect(yield* repo.findManyByIds(aLive, [customer.id])).toEqual([customer])
        expect((yield* repo.list(aLive, { limit: 10 })).items).toEqual([customer])

        for (const other of [aTest, bLive]) {
          expect(yield* repo.findById(other, customer.id)).toEqual(Option.none())
          expect(yield* repo.findByPhone(other, p)).toEqual(Option.none())
          expect(yield* repo.findManyByIds(other, [customer.id])).toEqual([])
          expect(yield* repo.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
        }

        // the same phone in the other mode is another customer
        const inTest = yield* inbound.recordInbound(aTest, {
          phone: p,
          waId: p.slice(1),
          profileName: null,
          at,
          newId: yield* Customer.CustomerId.generate
        })
        expect(inTest.id).not.toBe(customer.id)
        expect(inTest.profileName).toBeNull()
        expect(yield* repo.findByPhone(aLive, p)).toEqual(Option.some(customer))
      })
    )

    it.effect("recordInbound upserts: keeps the latest last inbound time and the profile name unless a new one is given", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.CustomerRepo
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const { aLive } = yield* threeTenants
        const p = phone()
        const t1 = 1_700_000_000_000
        const t2 = 1_700_000_060_000
        const t3 = 1_700_000_120_000
        const first = yield* inbound.recordInbound(aLive, {
          phone: p,
          waId: "wa",
          profileName: "Ann",
          at: t2,
          newId: yield* Customer.CustomerId.generate
        })
        expect(first.lastInboundAt).toEqual(t2)

        yield* TestClock.adjust(Duration.seconds(5))
        // an older event arriving later: the time stays, the name stays (none given)
        const older = yield* inbound.recordInbound(aLive, {
          phone: p,
          waId: "wa",
          profileName: null,
          at: t1,
          newId: yield* Customer.CustomerId.generate
        })
        expect(older).toMatchObject({ id: first.id, profileName: "Ann", lastInboundAt: t2, createdAt: first.createdAt })
        expect(older.updatedAt).toBe(first.updatedAt + 5_000)

        const newer = yield* inbound.recordInbound(aLive, {
          phone: p,
          waId: "wa",
          profileName: "Annie",
          at: t3,
          newId: yield* Customer.CustomerId.generate
        })
        expect(newer).toMatchObject({ id: first.id, profileName: "Annie", lastInboundAt: t3 })
        expect(yield* repo.findById(aLive, first.id)).toEqual(Option.some(newer))
      })
    )

    it.effect("concurrent first messages of one phone create one customer", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.CustomerRepo
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const { aLive } = yield* threeTenants
        const p = phone()
        const results = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            Effect.flatMap(Customer.CustomerId.generate, (newId) =>
              inbound.recordInbound(aLive, { phone: p, waId: "wa", profileName: null, at: 1_700_000_000_000 + i * 1_000, newId })
            )
          ),
          { concurrency: "unbounded" }
        )
        expect(new Set(results.map((c) => c.id)).size).toBe(1)
        const stored = Option.getOrThrow(yield* repo.findByPhone(aLive, p))
        expect(stored.lastInboundAt).toBe(1_700_000_000_000 + 19 * 1_000)
      })
    )

    it.effect("lists newest first, strictly before the cursor; findManyByIds ignores unknown ids", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.CustomerRepo
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const { aLive } = yield* threeTenants
        const created = []
        for (let i = 0; i < 5; i++) {
          const at = yield* nowMillis
          created.push(
            yield* inbound.recordInbound(aLive, { phone: phone(), waId: "wa", profileName: null, at, newId: yield* Customer.CustomerId.generate })
          )
        }
        const newestFirst = [...created].reverse()
        const page1 = yield* repo.list(aLive, { limit: 2 })
        expect(page1).toEqual({ items: newestFirst.slice(0, 2), hasMore: true })
        const page2 = yield* repo.list(aLive, { limit: 2, after: page1.items[1].id })
        expect(page2).toEqual({ items: newestFirst.slice(2, 4), hasMore: true })
        const page3 = yield* repo.list(aLive, { limit: 2, after: page2.items[1].id })
        expect(page3).toEqual({ items: newestFirst.slice(4), hasMore: false })

        const found = yield* repo.findManyByIds(aLive, [created[1].id, yield* Customer.CustomerId.generate, created[3].id, created[1].id])
        expect(found.map((c) => c.id).sort()).toEqual([created[1].id, created[3].id].sort())
        expect(yield* repo.findManyByIds(aLive, [])).toEqual([])
      })
    )
  })

  describe("OptOutRepo", () => {
    it.effect("is scoped by store and mode", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.OptOutRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const p = phone()
        expect(yield* repo.add(aLive, p, "keyword")).toBe(true)
        expect(yield* repo.isOptedOut(aLive, p)).toBe(true)
        for (const other of [aTest, bLive]) {
          expect(yield* repo.isOptedOut(other, p)).toBe(false)
          expect(yield* repo.filterOptedOut(other, [p])).toEqual(new Set())
          expect(yield* repo.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.remove(other, p)).toBe(false)
        }
        expect(yield* repo.isOptedOut(aLive, p)).toBe(true)
        // the other mode keeps its own list
        expect(yield* repo.add(aTest, p, "api")).toBe(true)
        expect(yield* repo.remove(aTest, p)).toBe(true)
        expect(yield* repo.isOptedOut(aLive, p)).toBe(true)
      })
    )

    it.effect("add answers true then false and keeps the first source; remove answers true then false", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.OptOutRepo
        const { aLive } = yield* threeTenants
        const p = phone()
        expect(yield* repo.add(aLive, p, "keyword")).toBe(true)
        expect(yield* repo.add(aLive, p, "api")).toBe(false)
        const listed = yield* repo.list(aLive, { limit: 10 })
        expect(listed.items).toEqual([{ phone: p, source: "keyword", createdAt: yield* nowMillis }])

        expect(yield* repo.remove(aLive, p)).toBe(true)
        expect(yield* repo.isOptedOut(aLive, p)).toBe(false)
        expect(yield* repo.remove(aLive, p)).toBe(false)
        expect(yield* repo.add(aLive, p, "operator_error")).toBe(true)
        expect((yield* repo.list(aLive, { limit: 10 })).items.map((o) => o.source)).toEqual(["operator_error"])

        const concurrent = yield* Effect.all(
          Array.from({ length: 10 }, () => repo.add(aLive, `${p}9`, "api")),
          { concurrency: "unbounded" }
        )
        expect(concurrent.filter(Boolean)).toHaveLength(1)
      })
    )

    it.effect("filterOptedOut answers the subset of 10,000 phones on the list", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.OptOutRepo
        const { aLive, aTest } = yield* threeTenants
        const phones = Array.from({ length: 10_000 }, (_, i) => `+4477009${String(i).padStart(5, "0")}`)
        const optedOut = phones.filter((_, i) => i % 8 === 3) // 1,250 of them
        yield* (yield* Transactor.Transactor).withTransaction(Effect.forEach(optedOut, (p) => repo.add(aLive, p, "api"), { discard: true }))
        yield* repo.add(aTest, phones[0], "api")

        const found = yield* repo.filterOptedOut(aLive, [...phones, ...phones.slice(0, 100)])
        expect(found.size).toBe(1_250)
        expect([...found].sort()).toEqual(optedOut)
        expect(yield* repo.filterOptedOut(aLive, [])).toEqual(new Set())
        expect(yield* repo.filterOptedOut(aTest, phones)).toEqual(new Set([phones[0]]))
      })
    )

    it.effect("lists by phone, strictly after the cursor phone", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.OptOutRepo
        const { aLive } = yield* threeTenants
        const phones = ["+15550000003", "+15550000001", "+15550000005", "+15550000002", "+15550000004"]
        for (const p of phones) yield* repo.add(aLive, p, "api")
        const sorted = [...phones].sort()
        const page1 = yield* repo.list(aLive, { limit: 2 })
        expect(page1.items.map((o) => o.phone)).toEqual(sorted.slice(0, 2))
        expect(page1.hasMore).toBe(true)
        const page2 = yield* repo.list(aLive, { limit: 2, after: page1.items[1].phone })
        expect(page2.items.map((o) => o.phone)).toEqual(sorted.slice(2, 4))
        const page3 = yield* repo.list(aLive, { limit: 2, after: page2.items[1].phone })
        expect(page3).toMatchObject({ hasMore: false })
        expect(page3.items.map((o) => o.phone)).toEqual(sorted.slice(4))
      })
    )
  })

  describe("MessageRepo", () => {
    it.effect("is scoped by store and mode; the wamid and callback lookups span the store's modes only", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const status = yield* MessagingRepo.MessageStatusRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const wamid = `wamid.${Id.randomToken(20)}`
        const m = yield* message(aTest, { status: "accepted", operatorMessageId: wamid, flowToken: "ft_1" })
        yield* repo.insert(aTest, m)
        expect(yield* repo.findById(aTest, m.id)).toEqual(Option.some(m))
        expect(yield* repo.findById(aLive, m.id)).toEqual(Option.none())
        expect(yield* repo.findById(bLive, m.id)).toEqual(Option.none())
        expect(yield* status.findByOperatorId(aLive.storeId, wamid)).toEqual(Option.some(m))
        expect(yield* status.findByOperatorId(bLive.storeId, wamid)).toEqual(Option.none())
        expect(yield* status.findByOperatorId(aLive.storeId, `wamid.${Id.randomToken(20)}`)).toEqual(Option.none())
        expect(yield* status.findInStore(aLive.storeId, m.id)).toEqual(Option.some(m))
        expect(yield* status.findInStore(bLive.storeId, m.id)).toEqual(Option.none())
        // another tenant's writes change nothing
        expect(yield* repo.markAccepted(aLive, m.id, "wamid.other")).toBe(false)
        expect(yield* repo.advanceStatus(bLive, m.id, { to: "read", from: Message.predecessors("read") })).toBe(false)
        expect(yield* repo.findById(aTest, m.id)).toEqual(Option.some(m))
      })
    )

    it.effect("markAccepted moves only a pending message and records the wamid", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive } = yield* threeTenants
        const m = yield* message(aLive)
        yield* repo.insert(aLive, m)
        yield* TestClock.adjust(Duration.seconds(3))
        expect(yield* repo.markAccepted(aLive, m.id, "wamid.A")).toBe(true)
        const accepted = Option.getOrThrow(yield* repo.findById(aLive, m.id))
        expect(accepted).toMatchObject({ status: "accepted", operatorMessageId: "wamid.A" })
        expect(accepted.updatedAt).toBe(yield* nowMillis)
        expect(yield* repo.markAccepted(aLive, m.id, "wamid.B")).toBe(false)
        expect(Option.getOrThrow(yield* repo.findById(aLive, m.id)).operatorMessageId).toBe("wamid.A")
        expect(yield* repo.markAccepted(aLive, yield* Message.MessageId.generate, "wamid.C")).toBe(false)
      })
    )

    it.effect("of 50 concurrent identical status reports exactly one changes the message", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive } = yield* threeTenants
        const m = yield* message(aLive, { status: "accepted", operatorMessageId: "wamid.race" })
        yield* repo.insert(aLive, m)
        const results = yield* Effect.all(
          Array.from({ length: 50 }, () =>
            repo.advanceStatus(aLive, m.id, { to: "delivered", from: Message.predecessors("delivered"), operatorMessageId: "wamid.race" })
          ),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Boolean)).toHaveLength(1)
        expect(Option.getOrThrow(yield* repo.findById(aLive, m.id)).status).toBe("delivered")
      })
    )

    it.effect("moves forward only; failed is final and keeps its error", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive } = yield* threeTenants
        const advance = (id: Message.MessageId, to: Message.Status) => repo.advanceStatus(aLive, id, { to, from: Message.predecessors(to) })

        const read = yield* message(aLive, { status: "sent", operatorMessageId: "wamid.r" })
        yield* repo.insert(aLive, read)
        expect(yield* advance(read.id, "read")).toBe(true)
        expect(yield* advance(read.id, "delivered")).toBe(false) // read arrived first
        expect(yield* advance(read.id, "failed")).toBe(false)
        expect(Option.getOrThrow(yield* repo.findById(aLive, read.id))).toMatchObject({ status: "read", error: null })

        const failed = yield* message(aLive, { status: "accepted", operatorMessageId: "wamid.f" })
        yield* repo.insert(aLive, failed)
        const error = { code: 131026, title: "Message undeliverable" }
        expect(yield* repo.advanceStatus(aLive, failed.id, { to: "failed", from: Message.predecessors("failed"), error })).toBe(true)
        for (const to of ["sent", "delivered", "read", "failed"] as const) {
          expect(yield* advance(failed.id, to)).toBe(false)
        }
        expect(yield* repo.markAccepted(aLive, failed.id, "wamid.x")).toBe(false)
        expect(Option.getOrThrow(yield* repo.findById(aLive, failed.id))).toMatchObject({ status: "failed", error, operatorMessageId: "wamid.f" })

        expect(yield* advance(yield* Message.MessageId.generate, "sent")).toBe(false)
        expect(yield* repo.advanceStatus(aLive, read.id, { to: "read", from: [] })).toBe(false)
      })
    )

    it.effect("sets the wamid when it was unknown and never replaces it", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.MessageRepo
        const { aLive } = yield* threeTenants
        const m = yield* message(aLive)
        yield* repo.insert(aLive, m)
        expect(yield* repo.advanceStatus(aLive, m.id, { to: "sent", from: Message.predecessors("sent") })).toBe(true)
        expect(Option.getOrThrow(yield* repo.findById(aLive, m.id)).operatorMessageId).toBeNull()
        expect(
          yield* repo.advanceStatus(aLive, m.id, { to: "delivered", from: Message.predecessors("delivered"), operatorMessageId: "wamid.first" })
        ).toBe(true)
        expect(yield* repo.advanceStatus(aLive, m.id, { to: "read", from: Message.predecessors("read"), operatorMessageId: "wamid.second" })).toBe(
          true
        )
        const stored = Option.getOrThrow(yield* repo.findById(aLive, m.id))
        expect(stored).toMatchObject({ status: "read", operatorMessageId: "wamid.first", error: null })
        expect(yield* (yield* MessagingRepo.MessageStatusRepo).findByOperatorId(aLive.storeId, "wamid.first")).toEqual(Option.some(stored))
      })
    )
  })

  describe("InboundMessageRepo", () => {
    it.effect("records a wamid once per store and mode", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.InboundMessageRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const wamid = `wamid.${Id.randomToken(20)}`
        const input = Effect.gen(function* () {
          return {
            id: yield* InboundMessage.InboundMessageId.generate,
            operatorMessageId: wamid,
            from: phone(),
            type: "text",
            text: "STOP" as string | null,
            receivedAt: yield* nowMillis
          }
        })
        expect(yield* repo.record(aLive, yield* input)).toBe(true)
        expect(yield* repo.record(aLive, yield* input)).toBe(false)
        expect(yield* repo.record(aTest, yield* input)).toBe(true)
        expect(yield* repo.record(bLive, { ...(yield* input), text: null, type: "image" })).toBe(true)

        const other = `wamid.${Id.randomToken(20)}`
        const concurrent = yield* Effect.all(
          Array.from({ length: 20 }, () => Effect.flatMap(input, (i) => repo.record(aLive, { ...i, operatorMessageId: other }))),
          { concurrency: "unbounded" }
        )
        expect(concurrent.filter(Boolean)).toHaveLength(1)
      })
    )

    it.effect("CustomerRepo.findByInboundMessage finds the sender once message and customer are recorded, in the tenant only", () =>
      Effect.gen(function* () {
        const repo = yield* MessagingRepo.InboundMessageRepo
        const customers = yield* MessagingRepo.CustomerRepo
        const inbound = yield* MessagingRepo.CustomerInboundRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const p = phone()
        const wamid = `wamid.${Id.randomToken(20)}`
        const at = yield* nowMillis
        expect(yield* customers.findByInboundMessage(aTest, wamid)).toEqual(Option.none())
        yield* repo.record(aTest, {
          id: yield* InboundMessage.InboundMessageId.generate,
          operatorMessageId: wamid,
          from: p,
          type: "text",
          text: "hi",
          receivedAt: at
        })
        // a notice is recorded without a customer: nobody sent it
        expect(yield* customers.findByInboundMessage(aTest, wamid)).toEqual(Option.none())
        const customer = yield* inbound.recordInbound(aTest, {
          phone: p,
          waId: p.slice(1),
          profileName: null,
          at,
          newId: yield* Customer.CustomerId.generate
        })
        expect(yield* customers.findByInboundMessage(aTest, wamid)).toEqual(Option.some(customer))
        for (const other of [aLive, bLive]) expect(yield* customers.findByInboundMessage(other, wamid)).toEqual(Option.none())
      })
    )
  })
}
