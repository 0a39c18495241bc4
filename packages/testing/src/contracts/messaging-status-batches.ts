/**
 * Status reports applied a batch at a time (`MessageStatusBatches`, the inbox's way) have the
 * effect of applying each in turn (`MessagingEvents.onMessageStatus`): for random streams of
 * reports (duplicates, out of order, failures, messages known only by our callback data),
 * two copies of the same messages, one fed report by report and one in batches of random
 * sizes, end in the same statuses with the same caller events in the same order, each
 * stored and with the same deliveries queued; a batch writes its events in one statement
 * and their deliveries in one.
 */
import {
  type Message,
  MessageStatusBatches,
  MessagingEvents,
  JobQueue,
  MessagingRepo,
  type Store,
  StoreRepo,
  type Tenant,
  Transactor,
  type WebhookEndpoint,
  WebhookRepo,
  type WebhookEvent
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { endpoint, message, threeTenants } from "./messaging-fixtures.js"
import { seededRandom as random } from "../random.js"
import type { ContractIt } from "./ModuleContract.js"

const STATUSES = ["sent", "delivered", "read", "failed", "sent", "delivered", "read"] as const
const MESSAGES = 10

/** One copy: messages of the tenant (two of them known only by callback data), and the caller events emitted for them. */
const copy = (tenant: Tenant.Tenant, label: string) =>
  Effect.gen(function* () {
    const repo = yield* MessagingRepo.MessageRepo
    const messages: Array<Message.Message> = []
    for (let i = 0; i < MESSAGES; i++) {
      const known = i >= 2
      const m = yield* message(tenant, { status: known ? "accepted" : "pending", operatorMessageId: known ? `wamid.${label}.${i}` : null })
      yield* repo.insert(tenant, m)
      messages.push(m)
    }
    return messages
  })

const report = (store: Store.Store, m: Message.Message, index: number, label: string, status: string): WebhookEvent.MessageStatus => ({
  _tag: "MessageStatus",
  phoneNumberId: store.sandbox.phoneNumberId,
  messageId: m.operatorMessageId ?? `wamid.${label}.${index}`,
  status,
  timestamp: 1_700_000_000_000 + index,
  recipientId: m.to.slice(1),
  callbackData: m.id,
  error: status === "failed" ? { code: 131_026, title: "Message undeliverable" } : null
})

interface Written {
  readonly event: WebhookEndpoint.Event
  /** `<endpoint id> <dedupe key>` of each delivery queued. */
  readonly deliveries: Array<string>
}

const dataOf = (w: Written) => w.event.data as { readonly message_id: string; readonly status: string }

/** Every event written is stored as written, in the order of their ids, each with one delivery per endpoint. */
const expectStored = (written: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const deliveries = yield* WebhookRepo.WebhookDeliveryRepo
    for (const w of written) {
      expect(yield* deliveries.getEvent(w.event.id)).toEqual(Option.some(w.event))
      expect(w.deliveries).toHaveLength(2)
    }
    const ids = written.map((w) => w.event.id)
    expect(ids).toEqual([...ids].sort())
  })

export const statusBatchTests = (it: ContractIt): void => {
  describe("MessageStatusBatches", () => {
    it.effect("a batch of reports has the effect of each report in turn: same statuses, same caller events in the same order", () =>
      Effect.gen(function* () {
        const { aTest } = yield* threeTenants
        const store = Option.getOrThrow(yield* (yield* StoreRepo.StoreRepo).findById(aTest.storeId))
        const webhooks = yield* WebhookRepo.WebhookRepo
        const queue = yield* JobQueue.JobQueue
        const endpoints = [yield* endpoint(aTest, ["message.status"]), yield* endpoint(aTest, ["message.status", "message.received"])]
        for (const e of endpoints) yield* webhooks.insertEndpoint(aTest, e)
        // what is written: the events (with the deliveries queued for each) and the statements that wrote them
        const written: Array<Written> = []
        const writes = { events: 0, jobs: 0 }
        const observed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          effect.pipe(
            Effect.provideService(WebhookRepo.WebhookRepo, {
              ...webhooks,
              insertEvents: (tenant, events) => {
                writes.events++
                for (const event of events) written.push({ event, deliveries: [] })
                return webhooks.insertEvents(tenant, events)
              }
            }),
            Effect.provideService(JobQueue.JobQueue, {
              ...queue,
              enqueueAll: (jobs) => {
                writes.jobs++
                for (const job of jobs) {
                  const { eventId, endpointId } = job.payload as { eventId: string; endpointId: string }
                  written.find((w) => w.event.id === eventId)?.deliveries.push(`${endpointId} ${job.dedupeKey}`)
                }
                return queue.enqueueAll(jobs)
              }
            })
          )
        const deliveriesOf = (w: Written) => w.deliveries.map((d) => d.replaceAll(w.event.id, "<event>"))
        for (const seed of [1, 2, 3, 4, 5]) {
          const next = random(seed)
          const one = yield* copy(aTest, `one${seed}`)
          const batched = yield* copy(aTest, `batch${seed}`)
          const stream = Array.from({ length: MESSAGES * 4 }, () => ({
            index: Math.floor(next() * MESSAGES),
            status: STATUSES[Math.floor(next() * STATUSES.length)]
          }))
          written.length = 0
          for (const { index, status } of stream) {
            yield* MessagingEvents.onMessageStatus(store, report(store, one[index], index, `one${seed}`, status)).pipe(observed)
          }
          const byOne = written.map((w) => ({
            index: one.findIndex((m) => m.id === dataOf(w).message_id),
            status: dataOf(w).status,
            deliveries: deliveriesOf(w)
          }))
          yield* expectStored(written)
          written.length = 0
          for (let start = 0; start < stream.length; ) {
            const size = 1 + Math.floor(next() * 12)
            const items = stream.slice(start, start + size).map(({ index, status }) => ({
              store,
              kind: "sandbox" as const,
              event: report(store, batched[index], index, `batch${seed}`, status)
            }))
            Object.assign(writes, { events: 0, jobs: 0 })
            yield* MessageStatusBatches.onMessageStatuses(items).pipe(observed)
            // a batch's events in one statement, their deliveries in one
            expect(writes.events).toBeLessThanOrEqual(1)
            expect(writes.jobs).toBe(writes.events)
            start += size
          }
          const byBatch = written.map((w) => ({
            index: batched.findIndex((m) => m.id === dataOf(w).message_id),
            status: dataOf(w).status,
            deliveries: deliveriesOf(w)
          }))
          yield* expectStored(written)
          // per message, the same events in the same order (across messages a batch groups them)
          for (let i = 0; i < MESSAGES; i++) {
            expect(
              byBatch.filter((e) => e.index === i),
              `seed ${seed}, message ${i}`
            ).toEqual(byOne.filter((e) => e.index === i))
          }
          expect(byOne.length).toBeGreaterThan(0)
          const repo = yield* MessagingRepo.MessageRepo
          for (let i = 0; i < MESSAGES; i++) {
            const a = Option.getOrThrow(yield* repo.findById(aTest, one[i].id))
            const b = Option.getOrThrow(yield* repo.findById(aTest, batched[i].id))
            expect(b.status, `seed ${seed}, message ${i}`).toBe(a.status)
            expect(b.error).toEqual(a.error)
          }
        }
      })
    )

    it.effect("batches applied concurrently, each in its own transaction, never deadlock and change each message once per status", () =>
      Effect.gen(function* () {
        const { aTest } = yield* threeTenants
        const store = Option.getOrThrow(yield* (yield* StoreRepo.StoreRepo).findById(aTest.storeId))
        const tx = yield* Transactor.Transactor
        const webhooks = yield* WebhookRepo.WebhookRepo
        yield* webhooks.insertEndpoint(aTest, yield* endpoint(aTest, ["message.status"]))
        const emitted: Array<{ readonly message_id: string; readonly status: string }> = []
        const observed = Effect.provideService(WebhookRepo.WebhookRepo, {
          ...webhooks,
          insertEvents: (tenant, events) => {
            for (const e of events) emitted.push(e.data as { message_id: string; status: string })
            return webhooks.insertEvents(tenant, events)
          }
        })
        const next = random(7)
        const messages = yield* copy(aTest, "concurrent")
        // 8 batches over the same messages, each in its own order: their locks would cross if not taken in one order
        const batches = Array.from({ length: 8 }, () =>
          Array.from({ length: MESSAGES * 2 }, () => {
            const index = 2 + Math.floor(next() * (MESSAGES - 2))
            return { store, kind: "sandbox" as const, event: report(store, messages[index], index, "concurrent", STATUSES[Math.floor(next() * 3)]) }
          })
        )
        yield* Effect.all(
          batches.map((items) => tx.withTransaction(MessageStatusBatches.onMessageStatuses(items)).pipe(observed)),
          { concurrency: "unbounded" }
        )
        const repo = yield* MessagingRepo.MessageRepo
        for (const m of messages.slice(2)) {
          const row = Option.getOrThrow(yield* repo.findById(aTest, m.id))
          const statuses = emitted.filter((e) => e.message_id === m.id).map((e) => e.status)
          // each status reached at most once, forward only, and the row is where the last one left it
          const ranks = statuses.map((s) => ["sent", "delivered", "read"].indexOf(s))
          expect(ranks).toEqual([...new Set(ranks)].sort())
          expect(ranks).not.toContain(-1)
          expect(row.status).toBe(statuses.at(-1) ?? "accepted")
        }
      })
    )
  })
}
