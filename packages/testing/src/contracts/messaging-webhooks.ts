/** The contract of `WebhookRepo`: caller webhook endpoints, their events and delivery attempts, scoped by store and mode. */
import { Id, WebhookEndpoint, WebhookRepo } from "@switchboard/domain"
import { Duration, Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { attempt, endpoint, event, message, nowMillis, phone, threeScopes } from "./messaging-fixtures.js"
import type { ContractIt } from "./StorageContracts.js"

export const webhookTests = (it: ContractIt): void => {
  describe("WebhookRepo", () => {
    it.effect("creates, finds, lists newest first, updates and deletes endpoints", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const { aLive } = yield* threeScopes
        const endpoints = [
          endpoint(aLive, ["message.status"]),
          endpoint(aLive, ["message.received", "customer.opted_out"]),
          endpoint(aLive, ["campaign.completed"])
        ]
        for (const e of endpoints) yield* repo.insertEndpoint(e)
        expect(yield* repo.findEndpoint(aLive, endpoints[0].id)).toEqual(Option.some(endpoints[0]))
        expect(yield* repo.getEndpoint(endpoints[1].id)).toEqual(Option.some(endpoints[1]))
        expect(yield* repo.getEndpoint(Id.make("we"))).toEqual(Option.none())

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
          updatedAt: new Date(yield* nowMillis)
        })
        expect(yield* repo.findEndpoint(aLive, endpoints[0].id)).toEqual(Option.some(updated))
        // a partial patch changes only what it names
        const enabled = Option.getOrThrow(yield* repo.updateEndpoint(aLive, endpoints[0].id, { status: "enabled", disabledReason: null }))
        expect(enabled).toMatchObject({ url: "https://example.com/new", events: ["message.status", "template.status"], status: "enabled", disabledReason: null })
        expect(yield* repo.updateEndpoint(aLive, Id.make("we"), { url: "https://example.com/x" })).toEqual(Option.none())

        expect(yield* repo.deleteEndpoint(aLive, endpoints[1].id)).toBe(true)
        expect(yield* repo.deleteEndpoint(aLive, endpoints[1].id)).toBe(false)
        expect(yield* repo.findEndpoint(aLive, endpoints[1].id)).toEqual(Option.none())
        expect((yield* repo.listEndpoints(aLive, { limit: 10 })).items.map((e) => e.id)).toEqual([endpoints[2].id, endpoints[0].id])
      })
    )

    it.effect("is scoped by store and mode", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const { aLive, aTest, bLive } = yield* threeScopes
        const e = endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(e)
        const ev = event(aLive, "message.status")
        yield* repo.insertEvent(ev)
        yield* repo.recordAttempt(attempt(e.id, ev.id, 1))
        for (const other of [aTest, bLive]) {
          expect(yield* repo.findEndpoint(other, e.id)).toEqual(Option.none())
          expect(yield* repo.listEndpoints(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.updateEndpoint(other, e.id, { status: "disabled" })).toEqual(Option.none())
          expect(yield* repo.subscribers(other, "message.status")).toEqual([])
          expect(yield* repo.listAttempts(other, e.id, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* repo.deleteEndpoint(other, e.id)).toBe(false)
        }
        expect(yield* repo.findEndpoint(aLive, e.id)).toEqual(Option.some(e))
        expect(yield* repo.subscribers(aLive, "message.status")).toEqual([e])
        expect((yield* repo.listAttempts(aLive, e.id, { limit: 10 })).items).toHaveLength(1)
      })
    )

    it.effect("subscribers are the scope's enabled endpoints that want the event type", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const { aLive, aTest } = yield* threeScopes
        const statusOnly = endpoint(aLive, ["message.status"])
        const both = endpoint(aLive, ["message.received", "message.status"])
        const disabled = endpoint(aLive, ["message.status", "message.received"], { status: "disabled", disabledReason: "410" })
        const otherMode = endpoint(aTest, ["message.status"])
        // a type whose name contains another's must not match it
        const campaign = endpoint(aLive, ["campaign.progress"])
        for (const e of [statusOnly, both, disabled, otherMode, campaign]) yield* repo.insertEndpoint(e)

        const ids = (type: WebhookEndpoint.EventType) =>
          Effect.map(repo.subscribers(aLive, type), (endpoints) => endpoints.map((e) => e.id).sort())
        expect(yield* ids("message.status")).toEqual([statusOnly.id, both.id].sort())
        expect(yield* ids("message.received")).toEqual([both.id])
        expect(yield* ids("campaign.progress")).toEqual([campaign.id])
        expect(yield* ids("campaign.completed")).toEqual([])
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
        const { aLive } = yield* threeScopes
        const e = endpoint(aLive, ["message.status", "customer.opted_out"])
        const other = endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(e)
        yield* repo.insertEndpoint(other)
        const status = event(aLive, "message.status", { message_id: "msg_1", status: "read", nested: { ok: true } })
        const optedOut = event(aLive, "customer.opted_out", { phone: "+15550001111" })
        yield* repo.insertEvent(status)
        yield* repo.insertEvent(optedOut)
        expect(yield* repo.getEvent(status.id)).toEqual(Option.some(status))
        expect(yield* repo.getEvent(Id.make("evt"))).toEqual(Option.none())

        const attempts = [
          attempt(e.id, status.id, 1),
          attempt(e.id, status.id, 2, { statusCode: null, error: "connection refused", durationMs: 5 }),
          attempt(e.id, optedOut.id, 1, { statusCode: 200, error: null }),
          attempt(e.id, status.id, 3, { statusCode: 204, error: null })
        ]
        for (const a of attempts) yield* repo.recordAttempt(a)
        yield* repo.recordAttempt(attempt(other.id, status.id, 1))

        const types = [status.type, status.type, optedOut.type, status.type]
        const expected = attempts.map((a, i) => ({ ...a, eventType: types[i] })).reverse()
        const page1 = yield* repo.listAttempts(aLive, e.id, { limit: 3 })
        expect(page1).toEqual({ items: expected.slice(0, 3), hasMore: true })
        const page2 = yield* repo.listAttempts(aLive, e.id, { limit: 3, after: page1.items[2].id })
        expect(page2).toEqual({ items: expected.slice(3), hasMore: false })
        expect((yield* repo.listAttempts(aLive, other.id, { limit: 10 })).items.map((a) => a.endpointId)).toEqual([other.id])
      })
    )

    it.effect("deleting an endpoint deletes its attempts; an attempt for a deleted endpoint is dropped", () =>
      Effect.gen(function* () {
        const repo = yield* WebhookRepo.WebhookRepo
        const { aLive } = yield* threeScopes
        const e = endpoint(aLive, ["message.status"])
        const kept = endpoint(aLive, ["message.status"])
        yield* repo.insertEndpoint(e)
        yield* repo.insertEndpoint(kept)
        const ev = event(aLive, "message.status")
        yield* repo.insertEvent(ev)
        yield* repo.recordAttempt(attempt(e.id, ev.id, 1))
        yield* repo.recordAttempt(attempt(e.id, ev.id, 2))
        yield* repo.recordAttempt(attempt(kept.id, ev.id, 1))

        expect(yield* repo.deleteEndpoint(aLive, e.id)).toBe(true)
        expect(yield* repo.getEndpoint(e.id)).toEqual(Option.none())
        // an attempt that finishes after the delete leaves nothing behind
        yield* repo.recordAttempt(attempt(e.id, ev.id, 3))
        // re-created under the same id, the endpoint has no attempts: they are gone
        yield* repo.insertEndpoint(e)
        expect(yield* repo.listAttempts(aLive, e.id, { limit: 10 })).toEqual({ items: [], hasMore: false })
        expect((yield* repo.listAttempts(aLive, kept.id, { limit: 10 })).items).toHaveLength(1)
        // the event stays for the other endpoints
        expect(Option.isSome(yield* repo.getEvent(ev.id))).toBe(true)
      })
    )
  })
}
