/**
 * Caller webhook events emitted a batch at a time. Inside `batched` (the inbox runs each
 * batch of operator webhooks in one), every `emit` records its event in the batch, in
 * order, with its id and time taken then, as an emit outside a batch would; the batch's
 * subscribers are looked up once per tenant and event type; when the batch's work is done,
 * its events are written in one multi-row INSERT per tenant and their deliveries queued in
 * one statement. The batch runs in its caller's transaction, so an event is recorded (and
 * delivered) exactly when the change it reports commits, as with one `emit` at a time.
 *
 * Outside `batched`, an `emit` is a batch of its own, written at once.
 */
import { Cause, Effect, Exit, FiberRef } from "effect"
import { JobQueue, type NewJob } from "../jobs/JobQueue.js"
import * as Module from "../shared/Module.js"
import type { Tenant } from "../shared/Tenant.js"
import { deliverJob } from "./Deliveries.js"
import * as Endpoint from "./WebhookEndpoint.js"
import { WebhookRepo } from "./WebhookRepo.js"

interface Pending {
  readonly tenant: Tenant
  readonly event: Endpoint.Event
  readonly endpoints: ReadonlyArray<Endpoint.WebhookEndpoint>
}

/** The events of one batch so far, and the subscribers it looked up. */
interface Batch {
  readonly subscribers: Map<string, ReadonlyArray<Endpoint.WebhookEndpoint>>
  readonly pending: Array<Pending>
  /** Written: a fiber that outlives the batch emits as if there were none. */
  written: boolean
}

const newBatch = (): Batch => ({ subscribers: new Map(), pending: [], written: false })

/** The batch open in the current fiber (inherited by the fibers it forks), if any. */
const current = FiberRef.unsafeMake<Batch | undefined>(undefined)

/** Adds an event to the batch, unless no endpoint of the tenant wants its type. */
const record = (batch: Batch, tenant: Tenant, type: string, data: unknown) =>
  Effect.gen(function* () {
    const key = `${tenant.storeId}\u0000${tenant.mode}\u0000${type}`
    let endpoints = batch.subscribers.get(key)
    if (endpoints === undefined) {
      endpoints = yield* (yield* WebhookRepo).subscribers(tenant, type)
      batch.subscribers.set(key, endpoints)
    }
    if (endpoints.length === 0) return
    const event = yield* Endpoint.newEvent(tenant, type, data)
    batch.pending.push({ tenant, event, endpoints })
  })

/** Writes the batch's events (one statement per tenant) and queues their deliveries (one statement). */
const write = (batch: Batch) =>
  Effect.gen(function* () {
    batch.written = true
    const pending = batch.pending.splice(0)
    if (pending.length === 0) return
    const byTenant = new Map<string, { readonly tenant: Tenant; readonly events: Array<Endpoint.Event> }>()
    const jobs: Array<NewJob> = []
    for (const { tenant, event, endpoints } of pending) {
      const key = `${tenant.storeId}\u0000${tenant.mode}`
      const group = byTenant.get(key) ?? { tenant, events: [] }
      group.events.push(event)
      byTenant.set(key, group)
      for (const endpoint of endpoints) {
        const payload = { eventId: event.id, endpointId: endpoint.id }
        jobs.push(Module.job(deliverJob, payload, { dedupeKey: `${deliverJob.kind}:${event.id}:${endpoint.id}`, storeId: tenant.storeId }))
      }
    }
    const repo = yield* WebhookRepo
    for (const { tenant, events } of byTenant.values()) yield* repo.insertEvents(tenant, events)
    yield* (yield* JobQueue).enqueueAll(jobs)
  })

/** Whether a batch's work ended so that its transaction may still commit: succeeded, or failed with an error (not a defect nor an interruption). */
const mayCommit = <A, E>(exit: Exit.Exit<A, E>) => Exit.isSuccess(exit) || !(Cause.isDie(exit.cause) || Cause.isInterrupted(exit.cause))

/**
 * Runs `effect` with a batch open; inside an open batch, joins it. The events it emits are
 * written when it ends, succeeded or failed with an error. When it dies or is interrupted
 * nothing more is written and the defect goes on as it was (a deadlock stays a deadlock):
 * run it in a transaction, which then rolls back.
 */
export const batched = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | WebhookRepo | JobQueue> =>
  Effect.flatMap(FiberRef.get(current), (open) => {
    if (open !== undefined && !open.written) return effect
    const batch = newBatch()
    return Effect.flatMap(Effect.exit(Effect.locally(effect, current, batch)), (exit) =>
      mayCommit(exit) ? Effect.zipRight(write(batch), exit) : exit
    )
  })

/**
 * Records an event of `tenant` and queues one delivery per subscribed endpoint, in the open
 * batch or at once. Nothing is recorded when no endpoint wants the type.
 */
export const emit = (tenant: Tenant, type: string, data: unknown): Effect.Effect<void, never, WebhookRepo | JobQueue> =>
  Effect.flatMap(FiberRef.get(current), (open) => {
    if (open !== undefined && !open.written) return record(open, tenant, type, data)
    const batch = newBatch()
    return Effect.zipRight(record(batch, tenant, type, data), write(batch))
  })
