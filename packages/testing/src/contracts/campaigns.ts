/**
 * The contract of the campaign storage port (and of the domain's lane bookkeeping over it),
 * listed in `storageContracts` so that every store runs it unchanged. Each test works in
 * stores it creates. After every change the counters are compared with a recount from the
 * rows: incremental counters must never drift.
 */
import {
  Campaign,
  CampaignRecipient,
  CampaignRepo,
  Campaigns,
  Id,
  JobQueue,
  MessagingRepo,
  OperatorWebhooks,
  Store,
  StoreRepo,
  Transactor,
  type WebhookEvent
} from "@switchboard/domain"
import { Deferred, Effect, Fiber, Option } from "effect"
import { describe, expect } from "vitest"
import type { ContractIt, ModuleContract } from "./StorageContracts.js"

type Scope = MessagingRepo.Scope

const createStore = Effect.gen(function* () {
  const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
  yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
  return made.store
})

let phoneSeq = 0
/** A phone number not used before in this run (never ending in 0000..0002). */
const phone = (): string => `+1777${String(1_000_000 + 10 * phoneSeq++ + 5).slice(-7)}`

const newCampaign = (scope: Scope, overrides: Partial<Campaign.Campaign> = {}): Campaign.Campaign => {
  const now = new Date()
  return {
    id: Id.make("cmp"),
    storeId: scope.storeId,
    mode: scope.mode,
    name: "Spring sale",
    templateName: "spring_sale",
    templateLanguage: "en_US",
    parameters: ["Ann"],
    templateCategory: null,
    templateComponents: null,
    messagesPerSecond: null,
    status: "draft",
    scheduledAt: null,
    phoneNumberId: null,
    pausedReason: null,
    counters: Campaign.zeroCounters,
    launchedAt: null,
    completedAt: null,
    cancelledAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
}

const pending = (p: string, overrides: Partial<CampaignRepo.NewRecipient> = {}): CampaignRepo.NewRecipient => ({
  id: Id.make("rcp"),
  phone: p,
  input: p,
  customerId: null,
  parameters: null,
  status: "pending",
  skipReason: null,
  ...overrides
})

const repo = CampaignRepo.CampaignRepo

/** A campaign with `n` pending recipients, moved to `active` on a fresh sender number. */
const activeCampaign = (n: number) =>
  Effect.gen(function* () {
    const r = yield* repo
    const store = yield* createStore
    const scope: Scope = { storeId: store.id, mode: "test" }
    const campaign = newCampaign(scope)
    yield* r.insert(campaign)
    const phones = Array.from({ length: n }, phone)
    yield* r.addRecipients(campaign.id, ["draft"], phones.map((p) => pending(p)), new Date())
    const phoneNumberId = `pn_${Id.randomToken(10)}`
    const active = yield* r.transition(campaign.id, { from: ["draft"], to: "active", now: new Date(), set: { phoneNumberId, launchedAt: new Date() } })
    return { store, scope, campaign: Option.getOrThrow(active), phones, phoneNumberId }
  })

/** The counters read back equal a recount from the rows. */
const expectCountersExact = (campaignId: string) =>
  Effect.gen(function* () {
    const r = yield* repo
    const before = Option.getOrThrow(yield* r.get(campaignId)).counters
    const recounted = Option.getOrThrow(yield* r.recount(campaignId)).counters
    expect(recounted).toEqual(before)
    expect(Option.getOrThrow(yield* r.get(campaignId)).counters).toEqual(before)
    return before
  })

const allRecipients = (campaignId: string) =>
  Effect.map(
    Effect.flatMap(repo, (r) => r.listRecipients(campaignId, { limit: 100 })),
    (slice) => slice.items
  )

const report = (store: Store.Store, recipientId: string, status: string, error: WebhookEvent.MessageStatus["error"] = null): WebhookEvent.MessageStatus => ({
  _tag: "MessageStatus",
  phoneNumberId: store.sandbox.phoneNumberId,
  messageId: `wamid.${recipientId}`,
  status,
  timestamp: new Date(1_700_000_000_000),
  recipientId: "15550000000",
  callbackData: recipientId,
  error
})

const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Registers the campaign contract on the suite's `it`. */
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

  describe("Campaigns: status reports and lanes over the store", () => {
    it.effect("a report delivered many times, concurrently and out of order, changes state once; counters never go back", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const tx = yield* Transactor.Transactor
        const { campaign, store } = yield* activeCampaign(3)
        const claimed = (yield* r.claim(campaign, { laneAttempt: "job_f:1", limit: 3, now: 1 })).recipients
        const [one, two, three] = claimed
        // `one`: read arrives first, then delivered and sent, each 40 times, concurrently
        const reports = [
          ...Array.from({ length: 40 }, () => report(store, one.id, "read")),
          ...Array.from({ length: 40 }, () => report(store, one.id, "delivered")),
          ...Array.from({ length: 40 }, () => report(store, one.id, "sent")),
          ...Array.from({ length: 40 }, () => report(store, two.id, "failed", { code: 131026, title: "Message undeliverable" }))
        ]
        const matched = yield* Effect.all(
          reports.map((e) => tx.withTransaction(Campaigns.onRecipientStatus(store, e))),
          { concurrency: 16 }
        )
        expect(matched.every((m) => m)).toBe(true)
        // failed is final: a later "sent" changes nothing
        for (let i = 0; i < 5; i++) yield* Campaigns.onRecipientStatus(store, report(store, two.id, "sent"))
        const rows = yield* allRecipients(campaign.id)
        expect(rows[0]).toMatchObject({ status: "read", operatorMessageId: `wamid.${one.id}` })
        expect(rows[0].sentAt).not.toBeNull()
        expect(rows[0].deliveredAt).not.toBeNull()
        expect(rows[1]).toMatchObject({ status: "failed", failure: { code: 131026, reason: "Message undeliverable", retryable: false } })
        expect(rows[2].status).toBe("sending")
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 1, sent: 1, delivered: 1, read: 1, failed: 1 })
        // the lane's late "accepted" for a row a report already moved changes nothing
        const late = yield* r.recordOutcomes(campaign.id, "job_f:1", { accepted: [{ id: one.id, operatorMessageId: "x" }, { id: three.id, operatorMessageId: "w3" }], failed: [], released: [] }, 5)
        expect(late.accepted).toBe(1)
        yield* r.compactCounters(campaign.id)
        expect(yield* expectCountersExact(campaign.id)).toMatchObject({ pending: 0, sent: 1, delivered: 1, read: 1, failed: 1 })
        // another store's report with the same callback data matches nothing
        const other = yield* createStore
        expect(yield* Campaigns.onRecipientStatus(other, report(other, three.id, "sent"))).toBe(false)
        expect(yield* Campaigns.onRecipientStatus(store, { ...report(store, three.id, "sent"), callbackData: "msg_x" })).toBe(false)
      })
    )

    it.effect("a 131050 report fails the recipient for good and adds the phone to the opt-out list", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { campaign, store, scope, phones } = yield* activeCampaign(1)
        const [one] = (yield* r.claim(campaign, { laneAttempt: "job_g:1", limit: 1, now: 1 })).recipients
        yield* Campaigns.onRecipientStatus(store, report(store, one.id, "failed", { code: 131050, title: "User has stopped marketing messages" }))
        expect((yield* allRecipients(campaign.id))[0].failure).toEqual({ code: 131050, reason: "User has stopped marketing messages", retryable: false })
        expect(yield* (yield* MessagingRepo.OptOutRepo).isOptedOut(scope, phones[0])).toBe(true)
      })
    )

    it.effect("ensureLane queues one job per generation; a finished lane gets a new one", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const { phoneNumberId } = yield* activeCampaign(1)
        expect(yield* Campaigns.ensureLane(phoneNumberId)).toBe(true)
        expect(yield* Campaigns.ensureLane(phoneNumberId)).toBe(false)
        const jobs = yield* queue.claim({ workerId: "w", kinds: [Campaigns.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const mine = jobs.filter((j) => (j.payload as { phoneNumberId: string }).phoneNumberId === phoneNumberId)
        expect(mine).toHaveLength(1)
        for (const j of jobs.filter((x) => !mine.includes(x))) yield* queue.retry({ id: j.id, attempt: j.attempt }, new Date(0), "not mine")
        // running: still alive
        expect(yield* Campaigns.ensureLane(phoneNumberId)).toBe(false)
        // an active campaign keeps the lane from finishing
        expect(yield* Campaigns.finishLaneIfIdle(phoneNumberId, { id: mine[0].id, attempt: mine[0].attempt })).toBe(false)
        yield* queue.complete({ id: mine[0].id, attempt: mine[0].attempt })
        expect(yield* Campaigns.ensureLane(phoneNumberId)).toBe(true)
      })
    )

    it.effect("no lost wake-up: a launch racing a lane that goes idle always leaves a live lane", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const queue = yield* JobQueue.JobQueue
        const tx = yield* Transactor.Transactor
        // a lane job running for a number whose only campaign just finished
        const { campaign, phoneNumberId, scope } = yield* activeCampaign(1)
        yield* Campaigns.ensureLane(phoneNumberId)
        const claimed = yield* queue.claim({ workerId: "w", kinds: [Campaigns.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const job = claimed.find((j) => (j.payload as { phoneNumberId: string }).phoneNumberId === phoneNumberId)!
        for (const j of claimed.filter((x) => x !== job)) yield* queue.retry({ id: j.id, attempt: j.attempt }, new Date(0), "not mine")
        yield* r.transition(campaign.id, { from: ["active"], to: "completed", now: new Date() })
        // a second campaign of the same number, about to be launched
        const next = newCampaign(scope)
        yield* r.insert(next)

        const laneLocked = yield* Deferred.make<void>()
        const launchActivated = yield* Deferred.make<void>()
        // the lane: takes the lane lock; once the launch has written (not committed) its
        // activation, finds nothing active, completes its job and lingers before committing,
        // so the launch's ensureLane runs while the lane is ending. (On SQLite the launch's
        // transaction cannot start before the lane's ends: the wait times out.)
        const lane = yield* Effect.fork(
          tx.withTransaction(
            Effect.gen(function* () {
              yield* r.lockLane(phoneNumberId, Date.now())
              yield* Deferred.succeed(laneLocked, undefined)
              yield* Effect.race(Deferred.await(launchActivated), realSleep(300))
              const active = yield* r.activeOfLane(phoneNumberId)
              if (active.length > 0) return false
              const completed = yield* queue.complete({ id: job.id, attempt: job.attempt })
              yield* realSleep(150)
              return completed
            })
          )
        )
        yield* Deferred.await(laneLocked)
        // the launch: activates the campaign and makes sure the lane lives, in one transaction
        const launch = yield* Effect.fork(
          tx.withTransaction(
            Effect.gen(function* () {
              yield* r.transition(next.id, { from: ["draft"], to: "active", now: new Date(), set: { phoneNumberId } })
              yield* Deferred.succeed(launchActivated, undefined)
              return yield* Campaigns.ensureLane(phoneNumberId)
            })
          )
        )
        const ended = yield* Fiber.join(lane)
        const queued = yield* Fiber.join(launch)
        // either the lane saw the launch and carried on, or it ended and the launch queued a new
        // generation; never "ended, and the launch saw a live lane"
        expect(ended).toBe(queued)
        const live = yield* queue.claim({ workerId: "w2", kinds: [Campaigns.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const lanes = live.filter((j) => (j.payload as { phoneNumberId: string }).phoneNumberId === phoneNumberId)
        expect(ended ? lanes.length : 1).toBe(1)
      })
    )
  })
}

/** Recipient statuses the contract writes, for documentation. */
export const statuses: ReadonlyArray<CampaignRecipient.Status> = CampaignRecipient.Status.literals

export const campaignsContract: ModuleContract = { name: "campaigns", tests }
