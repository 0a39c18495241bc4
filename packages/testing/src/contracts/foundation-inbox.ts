/**
 * The contract of the webhook inbox: `Inbox` (entries stored a batch at a time, found in the
 * order asked), the group-commit `InboxIntake` over it, and the batch processing of
 * `OperatorWebhooks.process` (routing by account, malformed bodies, a failed batch split).
 */
import { Inbox, InboxIntake, JobQueue, OperatorWebhooks, type Store, Transactor, type WebhookEvent } from "@switchboard/domain"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { boom, createStore, nowMillis, uniqueKind } from "./foundation-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

const entryOf = (body: unknown, kind: Store.AccountKind = "sandbox") =>
  Effect.gen(function* () {
    const entry: Inbox.InboxEntry = {
      id: yield* Inbox.InboxEntryId.generate,
      kind,
      body: typeof body === "string" ? body : JSON.stringify(body),
      receivedAt: yield* nowMillis
    }
    return entry
  })

/** An operator envelope with one status of a message from `account`'s number. */
const statusBody = (account: Store.OperatorAccount, wamid: string, status = "sent") => ({
  object: "whatsapp_business_account",
  entry: [
    {
      id: account.wabaId,
      changes: [
        {
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: account.displayPhoneNumber, phone_number_id: account.phoneNumberId },
            statuses: [{ id: wamid, status, timestamp: "1700000000", recipient_id: "15550001111" }]
          }
        }
      ]
    }
  ]
})

/** The `inbox.process` jobs waiting that name any of `ids`, claimed (other tests' jobs are completed untouched). */
const processJobsNaming = (ids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue.JobQueue
    const jobs = yield* queue.claim({ workerId: "inbox-contract", kinds: [OperatorWebhooks.PROCESS_JOB], limit: 10_000, leaseMs: 30_000 })
    const wanted = new Set(ids)
    const mine = jobs.filter((job) => ((job.payload as { inboxIds?: ReadonlyArray<string> }).inboxIds ?? []).some((id) => wanted.has(id)))
    yield* Effect.forEach(jobs, (job) => queue.complete({ id: job.id, attempt: job.attempt }), { discard: true })
    return mine.map((job) => (job.payload as { inboxIds: ReadonlyArray<string> }).inboxIds)
  })

export const inboxTests = (it: ContractIt): void => {
  describe("Inbox", () => {
    it.effect("stores entries as received, a batch at a time, and finds them by id in the order asked", () =>
      Effect.gen(function* () {
        const inbox = yield* Inbox.Inbox
        const entry: Inbox.InboxEntry = {
          id: yield* Inbox.InboxEntryId.generate,
          kind: "live",
          body: JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "1", text: "héllo ✓" }] }),
          receivedAt: 1_700_000_000_123
        }
        yield* inbox.insert([entry])
        expect(yield* inbox.find([entry.id])).toEqual([entry])
        expect(yield* inbox.find([yield* Inbox.InboxEntryId.generate])).toEqual([])
        yield* inbox.markProcessed([entry.id], "ok: 2 events")
        expect(yield* inbox.find([entry.id])).toEqual([entry])
        const sandbox = { ...entry, id: yield* Inbox.InboxEntryId.generate, kind: "sandbox" as const }
        const third = { ...entry, id: yield* Inbox.InboxEntryId.generate, body: "{}" }
        yield* inbox.insert([sandbox, third])
        yield* inbox.insert([])
        expect(yield* inbox.find([third.id, yield* Inbox.InboxEntryId.generate, sandbox.id, entry.id])).toEqual([third, sandbox, entry])
        expect(yield* inbox.find([])).toEqual([])
      })
    )

    it.effect("an entry written with its job in a failed transaction is not kept", () =>
      Effect.gen(function* () {
        const inbox = yield* Inbox.Inbox
        const entry: Inbox.InboxEntry = { id: yield* Inbox.InboxEntryId.generate, kind: "sandbox", body: "{}", receivedAt: yield* nowMillis }
        yield* Effect.flip(
          (yield* Transactor.Transactor).withTransaction(
            Effect.gen(function* () {
              yield* inbox.insert([entry])
              yield* (yield* JobQueue.JobQueue).enqueue({ kind: uniqueKind("inbox"), payload: { inboxIds: [entry.id] } })
              return yield* boom()
            })
          )
        )
        expect(yield* inbox.find([entry.id])).toEqual([])
      })
    )
  })

  describe("InboxIntake", () => {
    it.effect("stores concurrent webhooks in fewer transactions than webhooks, each entry once, each named by exactly one processing job", () =>
      Effect.gen(function* () {
        const entries = yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => ({ n: i })),
          (body) => entryOf(body)
        )
        const intake = yield* InboxIntake.Intake
        yield* Effect.forEach(entries, (entry) => intake.store(entry), { concurrency: "unbounded", discard: true })
        const ids = entries.map((e) => e.id)
        expect(yield* (yield* Inbox.Inbox).find(ids)).toEqual(entries)
        const batches = yield* processJobsNaming(ids)
        expect(batches.flat().sort()).toEqual([...ids].sort())
        expect(batches.length).toBeLessThan(entries.length)
        // alone, a webhook is stored at once, in a batch of its own
        const alone = yield* entryOf({ alone: true })
        yield* intake.store(alone)
        expect(yield* processJobsNaming([alone.id])).toEqual([[alone.id]])
      }).pipe(Effect.provide(InboxIntake.layer))
    )

    /** `offer` of `body` as `kind`, as the route calls it: the id once committed. */
    const offer = (intake: InboxIntake.Intake["Type"], kind: Store.AccountKind, body: Uint8Array) =>
      Effect.async<Inbox.InboxEntryId>((resume) => intake.offer(kind, body, resume))

    it.effect("offer stores what store stored of the same POST: the body decoded as UTF-8, the clock's time, an inbox id, its own job", () =>
      Effect.gen(function* () {
        const intake = yield* InboxIntake.Intake
        const inbox = yield* Inbox.Inbox
        const bodies = [
          new TextEncoder().encode(JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "1", text: "héllo ✓ 👋" }] })),
          // a byte-order mark, and bytes that are not UTF-8
          Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
          Uint8Array.from([0x7b, 0xff, 0xc3, 0x7d])
        ]
        for (const [i, bytes] of bodies.entries()) {
          const kind = i % 2 === 0 ? "live" : "sandbox"
          const before = yield* nowMillis
          const id = yield* offer(intake, kind, bytes)
          const after = yield* nowMillis
          // the first path: the entry built by the route, then `store`
          const first: Inbox.InboxEntry = {
            id: yield* Inbox.InboxEntryId.generate,
            kind,
            body: new TextDecoder().decode(bytes),
            receivedAt: yield* nowMillis
          }
          yield* intake.store(first)
          const [offered, stored] = yield* inbox.find([id, first.id])
          expect(Inbox.InboxEntryId.is(id)).toBe(true)
          expect(offered.receivedAt).toBeGreaterThanOrEqual(before)
          expect(offered.receivedAt).toBeLessThanOrEqual(after)
          expect({ ...offered, id: "", receivedAt: 0 }).toEqual({ ...stored, id: "", receivedAt: 0 })
          expect(yield* processJobsNaming([id, first.id])).toEqual([[id], [first.id]])
        }
      }).pipe(Effect.provide(InboxIntake.layer))
    )

    it.effect("concurrent offers share transactions: each acknowledged once committed, each stored once, each named by exactly one job", () =>
      Effect.gen(function* () {
        const intake = yield* InboxIntake.Intake
        const inbox = yield* Inbox.Inbox
        const bodies = Array.from({ length: 300 }, (_, n) => new TextEncoder().encode(JSON.stringify({ n })))
        const ids = yield* Effect.forEach(
          bodies,
          (body) =>
            Effect.flatMap(offer(intake, "sandbox", body), (id) =>
              // acknowledged only once stored
              Effect.map(inbox.find([id]), (found) => {
                expect(found.map((e) => e.id)).toEqual([id])
                return id
              })
            ),
          { concurrency: "unbounded" }
        )
        expect(new Set(ids).size).toBe(bodies.length)
        expect((yield* inbox.find(ids)).map((e) => e.body)).toEqual(bodies.map((b) => new TextDecoder().decode(b)))
        const batches = yield* processJobsNaming(ids)
        expect(batches.flat().sort()).toEqual([...ids].sort())
        expect(batches.length).toBeLessThan(bodies.length)
        expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(InboxIntake.MAX_BATCH)
      }).pipe(Effect.provide(InboxIntake.layer))
    )
  })

  describe("OperatorWebhooks.process", () => {
    const recording = () => {
      const seen: Array<{ readonly store: string; readonly event: WebhookEvent.WebhookEvent }> = []
      const dispatch: OperatorWebhooks.Dispatch<never> = (items) =>
        Effect.sync(() => seen.push(...items.map(({ store, event }) => ({ store: store.id, event }))))
      return { seen, dispatch }
    }

    it.effect(
      "applies each entry's events to the store owning the number, in the order of their subject; malformed bodies, unknown numbers and the other kind's signature change nothing",
      () =>
        Effect.gen(function* () {
          const a = yield* createStore()
          const b = yield* createStore()
          const entries = [
            yield* entryOf(statusBody(a.store.sandbox, "wamid.A1")),
            yield* entryOf("{not json"),
            yield* entryOf({ object: "page", entry: [] }),
            yield* entryOf(statusBody({ ...a.store.sandbox, phoneNumberId: "19990000000" }, "wamid.NOBODY")),
            yield* entryOf(statusBody(b.store.sandbox, "wamid.B1"), "live"),
            yield* entryOf(statusBody(b.store.sandbox, "wamid.B2")),
            yield* entryOf(statusBody(a.store.sandbox, "wamid.A2")),
            yield* entryOf(statusBody(a.store.sandbox, "wamid.A1", "delivered"))
          ]
          yield* (yield* Inbox.Inbox).insert(entries)
          const { seen, dispatch } = recording()
          yield* OperatorWebhooks.process([...entries.map((e) => e.id), yield* Inbox.InboxEntryId.generate], { attempt: 1 }, dispatch)
          // one message's statuses in the order received; messages in one order, whatever the order of arrival
          expect(seen.map((s) => [s.store, s.event._tag === "MessageStatus" ? `${s.event.messageId} ${s.event.status}` : s.event._tag])).toEqual([
            [a.store.id, "wamid.A1 sent"],
            [a.store.id, "wamid.A1 delivered"],
            [a.store.id, "wamid.A2 sent"],
            [b.store.id, "wamid.B2 sent"]
          ])
        })
    )

    it.effect("a batch that failed once is retried entry by entry: its retry enqueues one job per entry and applies nothing itself", () =>
      Effect.gen(function* () {
        const a = yield* createStore()
        const entries = [yield* entryOf(statusBody(a.store.sandbox, "wamid.S1")), yield* entryOf(statusBody(a.store.sandbox, "wamid.S2"))]
        const ids = entries.map((e) => e.id)
        // stored as the intake stores a batch: the entries and the batch's job
        yield* Transactor.inTransaction(
          Effect.zipRight((yield* Inbox.Inbox).insert(entries), (yield* JobQueue.JobQueue).enqueue(InboxIntake.processJobOf(ids)))
        )
        expect(yield* processJobsNaming(ids)).toEqual([ids])
        const { seen, dispatch } = recording()
        yield* OperatorWebhooks.process(ids, { attempt: 2 }, dispatch)
        expect(seen).toEqual([])
        expect((yield* processJobsNaming(ids)).sort()).toEqual(ids.map((id) => [id]).sort())
        // a single entry is retried as itself
        yield* OperatorWebhooks.process([ids[0]], { attempt: 3 }, dispatch)
        expect(seen.map((s) => s.store)).toEqual([a.store.id])
      })
    )
  })
}
