/**
 * Status reports applied a batch at a time (`MessageStatusBatches`, the inbox's way) have the
 * effect of applying each in turn (`MessagingEvents.onMessageStatus`): for random streams of
 * reports (duplicates, out of order, failures, messages known only by our callback data),
 * two copies of the same messages, one fed report by report and one in batches of random
 * sizes, end in the same statuses with the same caller events in the same order.
 */
import {
  type Message,
  MessageStatusBatches,
  MessagingEvents,
  MessagingRepo,
  type Store,
  StoreRepo,
  type Tenant,
  WebhookRepo,
  type WebhookEvent
} from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { endpoint, message, threeTenants } from "./messaging-fixtures.js"
import type { ContractIt } from "./StorageContracts.js"

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

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

export const statusBatchTests = (it: ContractIt): void => {
  describe("MessageStatusBatches", () => {
    it.effect("a batch of reports has the effect of each report in turn: same statuses, same caller events in the same order", () =>
      Effect.gen(function* () {
        const { aTest } = yield* threeTenants
        const store = Option.getOrThrow(yield* (yield* StoreRepo.StoreRepo).findById(aTest.storeId))
        const webhooks = yield* WebhookRepo.WebhookRepo
        yield* webhooks.insertEndpoint(aTest, yield* endpoint(aTest, ["message.status"]))
        const emitted: Array<{ readonly message: string; readonly status: string }> = []
        const observed = Effect.provideService(WebhookRepo.WebhookRepo, {
          ...webhooks,
          insertEvent: (tenant, event) => {
            const data = event.data as { message_id: string; status: string }
            emitted.push({ message: data.message_id, status: data.status })
            return webhooks.insertEvent(tenant, event)
          }
        })
        for (const seed of [1, 2, 3, 4, 5]) {
          const next = random(seed)
          const one = yield* copy(aTest, `one${seed}`)
          const batched = yield* copy(aTest, `batch${seed}`)
          const stream = Array.from({ length: MESSAGES * 4 }, () => ({
            index: Math.floor(next() * MESSAGES),
            status: STATUSES[Math.floor(next() * STATUSES.length)]
          }))
          emitted.length = 0
          for (const { index, status } of stream) {
            yield* MessagingEvents.onMessageStatus(store, report(store, one[index], index, `one${seed}`, status)).pipe(observed)
          }
          const byOne = emitted.map((e) => ({ index: one.findIndex((m) => m.id === e.message), status: e.status }))
          emitted.length = 0
          for (let start = 0; start < stream.length; ) {
            const size = 1 + Math.floor(next() * 12)
            const items = stream.slice(start, start + size).map(({ index, status }) => ({
              store,
              kind: "sandbox" as const,
              event: report(store, batched[index], index, `batch${seed}`, status)
            }))
            yield* MessageStatusBatches.onMessageStatuses(items).pipe(observed)
            start += size
          }
          const byBatch = emitted.map((e) => ({ index: batched.findIndex((m) => m.id === e.message), status: e.status }))
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
  })
}
