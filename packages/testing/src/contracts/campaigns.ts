/**
 * The contract of the campaign storage port (and of the domain's lane bookkeeping over it),
 * listed in `storageContracts` so that every store runs it unchanged. Each test works in
 * stores it creates. After every change the counters are compared with a recount from the
 * rows: incremental counters must never drift.
 */
import { Campaign, CampaignRecipient, CampaignRepo, Id, JobQueue, MessagingRepo, OperatorWebhooks } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { activeCampaign, allRecipients, createStore, expectCountersExact, newCampaign, pending, phone, repo, type Scope } from "./campaigns-fixtures.js"
import { laneTests } from "./campaigns-lanes.js"
import type { ContractIt, ModuleContract } from "./StorageContracts.js"

/** `CampaignRepo`. */
const tests = (it: ContractIt): void => {
  describe("CampaignRepo", () => {
    it.effect("is scoped by store and mode: another scope never finds, lists, edits or deletes a campaign", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const a = yield* createStore
        const b = yield* createStore
        const aLive: Scope = { storeId: a.id, mode: "live" }
        const campaign = newCampaign(aLive)
        yield* r.insert(campaign)
        expect(Option.getOrThrow(yield* r.findById(aLive, campaign.id))).toEqual(campaign)
        expect((yield* r.list(aLive, { limit: 10 })).items.map((c) => c.id)).toEqual([campaign.id])
        for (const other of [{ storeId: a.id, mode: "test" }, { storeId: b.id, mode: "live" }] as Array<Scope>) {
          expect(yield* r.findById(other, campaign.id)).toEqual(Option.none())
          expect(yield* r.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* r.updateDraft(other, campaign.id, { name: "hijacked" }, new Date())).toEqual(Option.none())
          expect(yield* r.deleteDraft(other, campaign.id)).toBe(false)
        }
        const renamed = Option.getOrThrow(yield* r.updateDraft(aLive, campaign.id, { name: "Summer", parameters: ["Bo"] }, new Date()))
        expect(renamed).toMatchObject({ name: "Summer", parameters: ["Bo"], status: "draft" })
        expect(yield* r.deleteDraft(aLive, campaign.id)).toBe(true)
        expect(yield* r.findById(aLive, campaign.id)).toEqual(Option.none())
      })
    )

    it.effect("lists newest first by status with a cursor", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const scope: Scope = { storeId: (yield* createStore).id, mode: "test" }
        const made: Array<Campaign.Campaign> = []
        for (let i = 0; i < 5; i++) {
          const c = newCampaign(scope)
          made.push(c)
          yield* r.insert(c)
          if (i % 2 === 0) yield* r.transition(c.id, { from: ["draft"], to: "cancelled", now: new Date() })
        }
        const page1 = yield* r.list(scope, { limit: 2 })
        expect(page1.items.map((c) => c.id)).toEqual([made[4].id, made[3].id])
        expect(page1.hasMore).toBe(true)
        const page2 = yield* r.list(scope, { limit: 2, after: page1.items[1].id })
        expect(page2.items.map((c) => c.id)).toEqual([made[2].id, made[1].id])
        const cancelled = yield* r.list(scope, { limit: 10, status: "cancelled" })
        expect(cancelled.items.map((c) => c.id)).toEqual([made[4].id, made[2].id, made[0].id])
      })
    )

    it.effect("transition is a compare-and-set: of concurrent launches exactly one wins", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const scope: Scope = { storeId: (yield* createStore).id, mode: "test" }
        const c = newCampaign(scope)
        yield* r.insert(c)
        const results = yield* Effect.all(
          Array.from({ length: 10 }, () => r.transition(c.id, { from: ["draft"], to: "active", now: new Date(), set: { launchedAt: new Date() } })),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toHaveLength(1)
        expect(Option.getOrThrow(yield* r.get(c.id)).status).toBe("active")
        expect(yield* r.updateDraft(scope, c.id, { name: "late" }, new Date())).toEqual(Option.none())
        expect(yield* r.deleteDraft(scope, c.id)).toBe(false)
      })
    )

    it.effect("adds recipients in order across insert chunks; duplicates of existing rows become skipped entries", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const scope: Scope = { storeId: (yield* createStore).id, mode: "test" }
        const c = newCampaign(scope)
        yield* r.insert(c)
        const phones = Array.from({ length: 7_001 }, phone)
        const first = Option.getOrThrow(yield* r.addRecipients(c.id, ["draft"], phones.map((p) => pending(p)), new Date()))
        expect(first.added).toBe(7_001)
        expect(first.total).toBe(7_001)
        const again = [
          pending(phones[5]),
          pending(phone(), { parameters: ["Zoe"] }),
          pending(null as unknown as string, { phone: null, input: "12", status: "skipped", skipReason: "invalid_number" })
        ]
        const second = Option.getOrThrow(yield* r.addRecipients(c.id, ["draft"], again, new Date()))
        expect(second.added).toBe(1)
        expect(second.skipped.duplicate).toBe(1)
        expect(second.skipped.invalid_number).toBe(1)
        expect(second.total).toBe(7_004)
        const counters = yield* expectCountersExact(c.id)
        expect(counters).toMatchObject({ total: 7_004, pending: 7_002, skipped: 2 })

        const page = yield* r.listRecipients(c.id, { limit: 3, afterSeq: 6_999 })
        expect(page.items.map((x) => x.phone)).toEqual([phones[7_000], null, again[1].phone])
        expect(page.items.map((x) => x.seq)).toEqual([7_000, 7_001, 7_002])
        expect(page.items[1]).toMatchObject({ status: "skipped", skipReason: "duplicate", input: phones[5] })
        expect(page.items[2].parameters).toEqual(["Zoe"])
        const skipped = yield* r.listRecipients(c.id, { status: "skipped", limit: 10 })
        expect(skipped.items.map((x) => x.skipReason)).toEqual(["duplicate", "invalid_number"])

        // not while active
        yield* r.transition(c.id, { from: ["draft"], to: "active", now: new Date() })
        expect(yield* r.addRecipients(c.id, ["draft", "scheduled"], [pending(phone())], new Date())).toEqual(Option.none())
      })
    )

    it.effect("skipOptedOut skips only pending rows on the scope's opt-out list", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const optOuts = yield* MessagingRepo.OptOutRepo
        const { campaign, phones, scope } = yield* activeCampaign(6)
        yield* optOuts.add(scope, phones[1], "api")
        yield* optOuts.add(scope, phones[4], "keyword")
        yield* optOuts.add({ ...scope, mode: "live" }, phones[2], "api") // other mode: no effect
        expect(yield* r.skipOptedOut(campaign, new Date())).toBe(2)
        expect(yield* r.skipOptedOut(campaign, new Date())).toBe(0)
        const rows = yield* allRecipients(campaign.id)
        expect(rows.filter((x) => x.status === "skipped").map((x) => x.phone)).toEqual([phones[1], phones[4]])
        expect(rows.every((x) => x.status !== "skipped" || x.skipReason === "opted_out")).toBe(true)
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ total: 6, pending: 4, skipped: 2 })
      })
    )

    it.effect("claims in insertion order from the cursor, skips contacts opted out since, and only while active", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign, phones, scope } = yield* activeCampaign(10)
        yield* (yield* MessagingRepo.OptOutRepo).add(scope, phones[2], "keyword")
        const first = yield* r.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(first.recipients.map((x) => x.phone)).toEqual([phones[0], phones[1], phones[3]])
        expect(first.skipped).toBe(1)
        const second = yield* r.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(second.recipients.map((x) => x.phone)).toEqual(phones.slice(4, 8))
        const rows = yield* allRecipients(campaign.id)
        expect(rows.filter((x) => x.status === "sending")).toHaveLength(7)
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 9, skipped: 1 })

        yield* r.transition(campaign.id, { from: ["active"], to: "paused", now: new Date() })
        expect((yield* r.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })).recipients).toEqual([])
        yield* r.transition(campaign.id, { from: ["paused"], to: "active", now: new Date() })
        const third = yield* r.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(third.recipients.map((x) => x.phone)).toEqual(phones.slice(8))
      })
    )

    it.effect("outcomes are fenced by the lane attempt; released rows are claimed again; counters stay exact", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign, phones } = yield* activeCampaign(6)
        const claimed = (yield* r.claim(campaign, { laneAttempt: "job_b:2", limit: 6, now: 1_000 })).recipients
        const [a, b, c, d] = claimed
        const outcomes: CampaignRepo.SendOutcomes = {
          accepted: [{ id: a.id, operatorMessageId: "wamid.A" }, { id: b.id, operatorMessageId: "wamid.B" }],
          failed: [{ id: c.id, code: 131026, reason: "Message undeliverable", retryable: false }],
          released: [{ id: d.id, seq: d.seq }]
        }
        // a stale lane (another attempt) changes nothing
        expect(yield* r.recordOutcomes(campaign.id, "job_b:1", outcomes, 2_000)).toEqual({ accepted: 0, failed: 0, released: 0 })
        expect(yield* r.recordOutcomes(campaign.id, "job_b:2", outcomes, 2_000)).toEqual({ accepted: 2, failed: 1, released: 1 })
        // recorded once: a replay changes nothing
        expect(yield* r.recordOutcomes(campaign.id, "job_b:2", outcomes, 2_000)).toEqual({ accepted: 0, failed: 0, released: 0 })
        const rows = yield* allRecipients(campaign.id)
        expect(rows.map((x) => x.status)).toEqual(["accepted", "accepted", "failed", "pending", "sending", "sending"])
        expect(rows[0].operatorMessageId).toBe("wamid.A")
        expect(rows[1].operatorMessageId).toBe("wamid.B")
        expect(rows[2].failure).toEqual({ code: 131026, reason: "Message undeliverable", retryable: false })
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ total: 6, pending: 3, failed: 1 })
        // the released row is claimable again although the cursor had passed it
        const again = yield* r.claim(campaign, { laneAttempt: "job_b:2", limit: 6, now: 3_000 })
        expect(again.recipients.map((x) => x.phone)).toEqual([phones[3]])
      })
    )

    it.effect("reconcile: rows left sending past the window go back to pending (or cancelled), newer ones stay", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign } = yield* activeCampaign(4)
        yield* r.claim(campaign, { laneAttempt: "job_c:1", limit: 2, now: 1_000 })
        yield* r.claim(campaign, { laneAttempt: "job_c:1", limit: 2, now: 5_000 })
        expect(yield* r.reconcile(campaign.id, { sendingBefore: 3_000, webhooksBefore: 0, to: "pending", now: 6_000 })).toBe(2)
        expect((yield* allRecipients(campaign.id)).map((x) => x.status)).toEqual(["pending", "pending", "sending", "sending"])
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 4 })
        const again = yield* r.claim(campaign, { laneAttempt: "job_c:2", limit: 10, now: 7_000 })
        expect(again.recipients).toHaveLength(2)
        expect(yield* r.reconcile(campaign.id, { sendingBefore: 6_000, webhooksBefore: 0, to: "cancelled", now: 8_000 })).toBe(2)
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 2, cancelled: 2 })

        // postponed while an operator webhook received before `webhooksBefore` waits in the inbox
        const queue = yield* JobQueue.JobQueue
        const received = yield* queue.enqueue({ kind: OperatorWebhooks.PROCESS_JOB, payload: { inboxId: Id.make("ibx") } })
        const receivedAt = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        expect(yield* r.reconcile(campaign.id, { sendingBefore: 8_000, webhooksBefore: receivedAt + 1, to: "pending", now: 9_000 })).toBe(0)
        expect(yield* r.reconcile(campaign.id, { sendingBefore: 8_000, webhooksBefore: receivedAt, to: "pending", now: 9_000 })).toBe(2)
        const backlog = yield* queue.claim({ workerId: "w", kinds: [OperatorWebhooks.PROCESS_JOB], limit: 1000, leaseMs: 30_000 })
        expect(backlog.map((j) => j.id)).toContain(received)
        for (const j of backlog) yield* queue.complete({ id: j.id, attempt: j.attempt })
      })
    )

    it.effect("completes only when nothing is pending or sending", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign } = yield* activeCampaign(2)
        expect(yield* r.completeIfDone(campaign.id, new Date())).toEqual(Option.none())
        const claimed = (yield* r.claim(campaign, { laneAttempt: "job_d:1", limit: 2, now: 1 })).recipients
        expect(yield* r.completeIfDone(campaign.id, new Date())).toEqual(Option.none())
        expect(yield* r.hasSending(campaign.id)).toBe(true)
        yield* r.recordOutcomes(campaign.id, "job_d:1", { accepted: claimed.map((x) => ({ id: x.id, operatorMessageId: `w.${x.id}` })), failed: [], released: [] }, 2)
        const done = Option.getOrThrow(yield* r.completeIfDone(campaign.id, new Date()))
        expect(done.status).toBe("completed")
        expect(done.completedAt).not.toBeNull()
        expect(yield* r.completeIfDone(campaign.id, new Date())).toEqual(Option.none())
      })
    )

    it.effect("retry re-queues only retryable failures and lowers the cursor; cancel is bounded", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign, phones } = yield* activeCampaign(5)
        const claimed = (yield* r.claim(campaign, { laneAttempt: "job_e:1", limit: 5, now: 1 })).recipients
        yield* r.recordOutcomes(
          campaign.id,
          "job_e:1",
          {
            accepted: [{ id: claimed[4].id, operatorMessageId: "w" }],
            failed: [
              { id: claimed[0].id, code: 131016, reason: "Service unavailable", retryable: true },
              { id: claimed[1].id, code: 131026, reason: "Undeliverable", retryable: false },
              { id: claimed[2].id, code: 131000, reason: "Unknown", retryable: true },
              { id: claimed[3].id, code: 132000, reason: "Param count", retryable: false }
            ],
            released: []
          },
          2
        )
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 0, failed: 4 })
        expect(yield* r.retryFailed(campaign.id, new Date())).toBe(2)
        expect(yield* r.retryFailed(campaign.id, new Date())).toBe(0)
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 2, failed: 2 })
        const again = yield* r.claim(campaign, { laneAttempt: "job_e:2", limit: 5, now: 3 })
        expect(again.recipients.map((x) => x.phone)).toEqual([phones[0], phones[2]])

        const big = yield* activeCampaign(25)
        expect(yield* r.cancelPending(big.campaign.id, { limit: 10, staleSendingBefore: 0, now: new Date() })).toBe(10)
        expect(yield* expectCountersExact(big.campaign.id)).toMatchObject({ pending: 15, cancelled: 10 })
        expect(yield* r.cancelPending(big.campaign.id, { limit: 100, staleSendingBefore: 0, now: new Date() })).toBe(15)
        expect(yield* r.hasPending(big.campaign.id)).toBe(false)
      })
    )
  })

}

/** Recipient statuses the contract writes, for documentation. */
export const statuses: ReadonlyArray<CampaignRecipient.Status> = CampaignRecipient.Status.literals

export const campaignsContract: ModuleContract = {
  name: "campaigns",
  tests: (it) => {
    tests(it)
    laneTests(it)
  }
}
