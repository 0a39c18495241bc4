/**
 * Caller webhook events a batch at a time (`Webhooks.batched`): the same events in the same
 * order as one `emit` at a time, with one subscribers lookup per tenant and type, one insert
 * per tenant and one enqueue for the batch; nested batches join the outer one; a failed
 * batch still writes what it emitted (its transaction decides), one that dies writes nothing
 * more, and nothing is written for a type no endpoint wants.
 */
import { describe, expect, it } from "@effect/vitest"
import { JobQueue, type Tenant, type WebhookEndpoint, WebhookRepo, Webhooks } from "@switchboard/domain"
import { Cause, Effect, Layer } from "effect"

const live: Tenant.Tenant = { storeId: "str_a" as Tenant.StoreId, mode: "live" }
const test: Tenant.Tenant = { storeId: "str_a" as Tenant.StoreId, mode: "test" }

/** Ports that record every call; `live` has two endpoints for message.status, `test` one for everything. */
const recording = () => {
  const calls: Array<string> = []
  const events: Array<{ readonly tenant: string; readonly type: string; readonly data: unknown; readonly id: string }> = []
  const jobs: Array<string> = []
  const endpoint = (id: string) => ({ id }) as unknown as WebhookEndpoint.WebhookEndpoint
  const layer = Layer.mergeAll(
    Layer.succeed(WebhookRepo.WebhookRepo, {
      subscribers: (tenant: Tenant.Tenant, type: string) =>
        Effect.sync(() => {
          calls.push(`subscribers ${tenant.mode} ${type}`)
          if (tenant.mode === "test") return [endpoint("whe_t")]
          return type === "message.status" ? [endpoint("whe_1"), endpoint("whe_2")] : []
        }),
      insertEvents: (tenant: Tenant.Tenant, written: ReadonlyArray<WebhookEndpoint.Event>) =>
        Effect.sync(() => {
          calls.push(`insertEvents ${tenant.mode} ${written.length}`)
          for (const e of written) events.push({ tenant: tenant.mode, type: e.type, data: e.data, id: e.id })
        })
    } as unknown as WebhookRepo.WebhookRepo["Type"]),
    Layer.succeed(JobQueue.JobQueue, {
      enqueueAll: (queued: ReadonlyArray<JobQueue.NewJob>) =>
        Effect.sync(() => {
          calls.push(`enqueueAll ${queued.length}`)
          for (const job of queued) {
            const { eventId, endpointId } = job.payload as { eventId: string; endpointId: string }
            const data = JSON.stringify(events.find((e) => e.id === eventId)?.data)
            jobs.push(`${data} ${endpointId} ${job.dedupeKey === `webhook.deliver:${eventId}:${endpointId}`}`)
          }
        })
    } as unknown as JobQueue.JobQueue["Type"])
  )
  return { calls, events, jobs, layer }
}

const emitSome = Effect.gen(function* () {
  yield* Webhooks.emit(live, "message.status", { n: 1 })
  yield* Webhooks.emit(test, "message.status", { n: 2 })
  yield* Webhooks.emit(live, "message.received", { n: 3 })
  yield* Webhooks.emit(live, "message.status", { n: 4 })
  yield* Webhooks.batched(Webhooks.emit(test, "customer.opted_out", { n: 5 }))
})

describe("Webhooks.batched", () => {
  it.effect("one emit at a time: each event written with its deliveries at once", () =>
    Effect.gen(function* () {
      const r = recording()
      yield* Effect.provide(emitSome, r.layer)
      expect(r.events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }, { n: 5 }])
      expect(r.calls.filter((c) => c.startsWith("subscribers"))).toHaveLength(5)
      expect(r.calls.filter((c) => c.startsWith("insertEvents"))).toHaveLength(4)
    })
  )

  it.effect("in a batch: the same events in the same order and deliveries, one lookup per tenant and type, one insert per tenant, one enqueue", () =>
    Effect.gen(function* () {
      const one = recording()
      yield* Effect.provide(emitSome, one.layer)
      const batch = recording()
      yield* Effect.provide(Webhooks.batched(emitSome), batch.layer)
      // written a tenant at a time, the events keep the order of their emits in their ids
      const byId = [...batch.events].sort((a, b) => (a.id < b.id ? -1 : 1))
      expect(byId.map(({ tenant, type, data }) => ({ tenant, type, data }))).toEqual(
        one.events.map(({ tenant, type, data }) => ({ tenant, type, data }))
      )
      expect([...batch.jobs].sort()).toEqual([...one.jobs].sort())
      expect(batch.jobs).toHaveLength(6)
      expect(batch.jobs.every((j) => j.endsWith("true"))).toBe(true)
      expect(batch.calls).toEqual([
        "subscribers live message.status",
        "subscribers test message.status",
        "subscribers live message.received",
        "subscribers test customer.opted_out",
        "insertEvents live 2",
        "insertEvents test 2",
        "enqueueAll 6"
      ])
    })
  )

  it.effect("a batch that fails still writes what it emitted; nothing is written for a type no endpoint wants", () =>
    Effect.gen(function* () {
      const r = recording()
      const failing = Effect.zipRight(emitSome, Effect.fail("boom" as const))
      expect(yield* Effect.flip(Effect.provide(Webhooks.batched(failing), r.layer))).toBe("boom")
      expect(r.events).toHaveLength(4)
      // a batch that dies writes nothing more, and its defect goes on as it was
      const dying = recording()
      const defect = yield* Effect.exit(Effect.provide(Webhooks.batched(Effect.zipRight(emitSome, Effect.die("deadlock detected"))), dying.layer))
      expect(defect._tag === "Failure" && Cause.squash(defect.cause)).toBe("deadlock detected")
      expect(dying.calls.filter((c) => !c.startsWith("subscribers"))).toEqual([])
      const none = recording()
      yield* Effect.provide(Webhooks.batched(Webhooks.emit(live, "message.received", {})), none.layer)
      expect(none.calls).toEqual(["subscribers live message.received"])
    })
  )
})
