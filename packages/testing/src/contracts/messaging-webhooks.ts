/**
 * The contract of `WebhookRepo` and `WebhookDeliveryRepo`: caller webhook endpoints, their
 * events and delivery attempts, scoped by store and mode.
 */
import { WebhookEndpoint, WebhookRepo } from "@switchboard/domain"
import { Duration, Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { attempt, endpoint, event, nowMillis, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

export const webhookTests = (it: ContractIt): void => {
  describe("WebhookRepo", () => {
    it.effect("creates, finds, lists newest first, updates and deletes endpoints", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const deliveries = yield* WebhookRepo.WebhookDeliveryRepo
        const { aLive } = yield* threeTenants
        const endpoints = [
          yield* endpoint(aLive, ["message.status"]),
          yield* endpoint(aLive, ["message.received", "customer.opted_out"]),
          yield* endpoint(aLive, ["campaign.completed"])
        ]
        for (const e of endpoints) yield* repo.insertEndpoint(aLive, e)
        expect(yield* repo.findEndpoint(aLive, endpoints[0].id)).toEqual(Option.some(endpoints[0]))
        expect(yield* deliveries.getEndpoint(endpoints[1].id)).toEqual(Option.some(endpoints[1]))
        expect(yield* deliveries.getEndpoint(yield* WebhookEndpoint.WebhookEndpointId.generate)).toEqual(Option.none())

        const page1 = yield* repo.listEndpoints(aLive, { limit: 2 })
        expect(page1).toEqual({ items: [endpoints[2], endpoints[1]], hasMore: true })
        expect(yield* repo.listEndpoints(aLive, { limit: 2, after: endpoints[1].id })).toEqual({ items: [endpoints[0]], hasMore: false })

        yield* TestClock.adjust(Duration.seconds(7))
        const updated = Option.getOrThrow(
          yield* repo.updateEndpoint(aLive, endpoints[0].id, {
            url: "https://example.com/new",
            events: ["message.status", "template.status"],
            status: "disabled",
            disabledReason: "disabled by the caller"
          })
        )
        expect(updated).toEqual({
          ...endpoints[0],
          url: "https://example.com/new",
          events: ["message.status", "template.status"],
          status: "disabled",
          disabledReason: "disabled by the caller",
          updatedAt: yield* nowMillis
        })
        expect(yield* repo.findEndpoint(aLive, endpoints[0].id)).toEqual(Option.some(updated))
        // a partial patch changes only what it names
        const enabled = Option.getOrThrow(yield* repo.updateEndpoint(aLive, endpoints[0].id, { status: "enabled", disabledReason: null }))
        expect(enabled).toMatchObject({
          url: "https://example.com/new",
          events: ["message.status", "template.status"],
          status: "enabled",
          disabledReason: null
        })
        const unknown = yield* WebhookEndpoint.WebhookEndpointId.generate
        expect(yield* repo.updateEndpoint(aLive, unknown, { url: "https://example.com/x" })).toEqual(Option.none())

        expect(yield* repo.deleteEndpoint(aLive, endpoints[1].id)).toBe(true)
        expect(yield* repo.deleteEndpoint(aLive, endpoints[1].id)).toBe(false)
        expect(yield* repo.findEndpoint(aLive, endpoints[1].id)).toEqual(Option.none())
        expect((yield* repo.listEndpoints(aLive, { limit: 10 })).items.map((e) => e.id)).toEqual([endpoints[2].id, endpoints[0].id])
      })
    )

    it.effect("is scoped by store and mode", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const deliveries = yield* WebhookRepo.WebhookDeliveryRepo
        const { aLive, aTest, bLive } = yield* threeTenants
        const e = yield* endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(aLive, e)
        const ev = yield* event(aLive, "message.status")
        yield* repo.insertEvents(aLive, [ev])
        yield* deliveries.recordAttempt(yield* attempt(e.id, ev.id, 1))
        for (const other of [aTest, bLive]) {
          expect(yield* repo.findEndpoint(other, e.id)).toEqual(Option.none())
          expect(yield* repo.listEndpoints(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.updateEndpoint(other, e.id, { status: "disabled" })).toEqual(Option.none())
          expect(yield* repo.subscribers(other, "message.status")).toEqual([])
          expect(yield* repo.listAttempts(other, { endpointId: e.id }, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.deleteEndpoint(other, e.id)).toBe(false)
        }
        expect(yield* repo.findEndpoint(aLive, e.id)).toEqual(Option.some(e))
        expect(yield* repo.subscribers(aLive, "message.status")).toEqual([e])
        expect((yield* repo.listAttempts(aLive, { endpointId: e.id }, { limit: 10 })).items).toHaveLength(1)
      })
    )

    it.effect("subscribers are the tenant's enabled endpoints that want the event type", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const { aLive, aTest } = yield* threeTenants
        const statusOnly = yield* endpoint(aLive, ["message.status"])
        const both = yield* endpoint(aLive, ["message.received", "message.status"])
        const disabled = yield* endpoint(aLive, ["message.status", "message.received"], { status: "disabled", disabledReason: "410" })
        const otherMode = yield* endpoint(aTest, ["message.status"])
        // a type whose name contains another's must not match it
        const campaign = yield* endpoint(aLive, ["campaign.progress"])
        for (const e of [statusOnly, both, disabled, campaign]) yield* repo.insertEndpoint(aLive, e)
        yield* repo.insertEndpoint(aTest, otherMode)

        const ids = (type: string) => Effect.map(repo.subscribers(aLive, type), (endpoints) => endpoints.map((e) => e.id).sort())
        expect(yield* ids("message.status")).toEqual([statusOnly.id, both.id].sort())
        expect(yield* ids("message.received")).toEqual([both.id])
        expect(yield* ids("campaign.progress")).toEqual([campaign.id])
        expect(yield* ids("campaign.completed")).toEqual([])
        expect(yield* ids("campaign")).toEqual([])
        expect(yield* repo.subscribers(aLive, "message.received")).toEqual([both])

        yield* repo.updateEndpoint(aLive, both.id, { status: "disabled", disabledReason: "the endpoint answered 410 Gone" })
        expect(yield* ids("message.status")).toEqual([statusOnly.id])
        yield* repo.updateEndpoint(aLive, disabled.id, { status: "enabled", disabledReason: null })
        expect(yield* ids("message.received")).toEqual([disabled.id])
        expect((yield* repo.subscribers(aTest, "message.status")).map((e) => e.id)).toEqual([otherMode.id])
      })
    )

    it.effect("stores events and lists an endpoint's attempts newest first with the event type", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const deliveries = yield* WebhookRepo.WebhookDeliveryRepo
        const { aLive } = yield* threeTenants
        const e = yield* endpoint(aLive, ["message.status", "customer.opted_out"])
        const other = yield* endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(aLive, e)
        yield* repo.insertEndpoint(aLive, other)
        const status = yield* event(aLive, "message.status", { message_id: "msg_1", status: "read", nested: { ok: true } })
        const optedOut = yield* event(aLive, "customer.opted_out", { phone: "+15550001111" })
        yield* repo.insertEvents(aLive, [])
        yield* repo.insertEvents(aLive, [status, optedOut])
        expect(yield* deliveries.getEvent(status.id)).toEqual(Option.some(status))
        expect(yield* deliveries.getEvent(optedOut.id)).toEqual(Option.some(optedOut))
        // more events than one statement binds on SQLite: every one is stored
        const many = yield* Effect.forEach(
          Array.from({ length: 1_100 }, (_, n) => n),
          (n) => event(aLive, "message.status", { n })
        )
        yield* repo.insertEvents(aLive, many)
        for (const ev of [many[0], many[499], many[500], many[1_099]]) expect(yield* deliveries.getEvent(ev.id)).toEqual(Option.some(ev))
        expect(yield* deliveries.getEvent(yield* WebhookEndpoint.EventId.generate)).toEqual(Option.none())

        const attempts = [
          yield* attempt(e.id, status.id, 1),
          yield* attempt(e.id, status.id, 2, { statusCode: null, error: "connection refused", durationMs: 5 }),
          yield* attempt(e.id, optedOut.id, 1, { statusCode: 200, error: null }),
          yield* attempt(e.id, status.id, 3, { statusCode: 204, error: null })
        ]
        for (const a of attempts) yield* deliveries.recordAttempt(a)
        yield* deliveries.recordAttempt(yield* attempt(other.id, status.id, 1))

        const types = [status.type, status.type, optedOut.type, status.type]
        const expected = attempts.map((a, i) => ({ ...a, eventType: types[i] })).reverse()
        const page1 = yield* repo.listAttempts(aLive, { endpointId: e.id }, { limit: 3 })
        expect(page1).toEqual({ items: expected.slice(0, 3), hasMore: true })
        const page2 = yield* repo.listAttempts(aLive, { endpointId: e.id }, { limit: 3, after: page1.items[2].id })
        expect(page2).toEqual({ items: expected.slice(3), hasMore: false })
        expect((yield* repo.listAttempts(aLive, { endpointId: other.id }, { limit: 10 })).items.map((a) => a.endpointId)).toEqual([other.id])
      })
    )

    it.effect("deleting an endpoint deletes its attempts; an attempt for a deleted endpoint is dropped", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const deliveries = yield* WebhookRepo.WebhookDeliveryRepo
        const { aLive } = yield* threeTenants
        const e = yield* endpoint(aLive, ["message.status"])
        const kept = yield* endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(aLive, e)
        yield* repo.insertEndpoint(aLive, kept)
        const ev = yield* event(aLive, "message.status")
        yield* repo.insertEvents(aLive, [ev])
        yield* deliveries.recordAttempt(yield* attempt(e.id, ev.id, 1))
        yield* deliveries.recordAttempt(yield* attempt(e.id, ev.id, 2))
        yield* deliveries.recordAttempt(yield* attempt(kept.id, ev.id, 1))

        expect(yield* repo.deleteEndpoint(aLive, e.id)).toBe(true)
        expect(yield* deliveries.getEndpoint(e.id)).toEqual(Option.none())
        // an attempt that finishes after the delete leaves nothing behind
        yield* deliveries.recordAttempt(yield* attempt(e.id, ev.id, 3))
        // re-created under the same id, the endpoint has no attempts: they are gone
        yield* repo.insertEndpoint(aLive, e)
        expect(yield* repo.listAttempts(aLive, { endpointId: e.id }, { limit: 10 })).toEqual({ items: [], hasMore: false })
        expect((yield* repo.listAttempts(aLive, { endpointId: kept.id }, { limit: 10 })).items).toHaveLength(1)
        // the event stays for the other endpoints
        expect(Option.isSome(yield* deliveries.getEvent(ev.id))).toBe(true)
      })
    )
  })
}
