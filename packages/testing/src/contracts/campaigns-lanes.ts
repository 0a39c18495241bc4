/** The contract of the domain's lane bookkeeping (`Campaigns`) over the store: status reports and lanes. */
import { Campaigns, JobQueue, MessagingRepo, Transactor } from "@switchboard/domain"
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect } from "vitest"
import { activeCampaign, allRecipients, createStore, expectCountersExact, newCampaign, pending, phone, realSleep, repo, report } from "./campaigns-fixtures.js"
import type { ContractIt } from "./StorageContracts.js"

export const laneTests = (it: ContractIt): void => {
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
