/**
 * The contract of the domain's status reports and lanes over the store (`CampaignStatusReports`,
 * `CampaignLanes`): reports delivered many times, lane jobs per generation, the race of a
 * launch with a lane going idle, and a claim that carries the lane's outcomes. The
 * `CampaignLaneRepo` itself is in `campaigns-lanes.ts`.
 */
import {
  type Campaign,
  CampaignLanes,
  type CampaignRepo,
  CampaignStatusReports,
  JobQueue,
  MessagingRepo,
  Time,
  Transactor
} from "@switchboard/domain"
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect } from "vitest"
import {
  activeCampaign,
  allRecipients,
  createStore,
  expectCountersExact,
  laneRepo,
  newCampaign,
  realSleep,
  repo,
  report
} from "./campaigns-fixtures.js"
import { payloadNumber } from "./campaigns-lanes.js"
import type { ContractIt } from "./ModuleContract.js"

export const laneRunTests = (it: ContractIt): void => {
  describe("Campaign status reports and lanes over the store", () => {
    it.effect("a report delivered many times, concurrently and out of order, changes state once; counters never go back", () =>
      Effect.gen(function* () {
        const lanes = yield* laneRepo
        const tx = yield* Transactor.Transactor
        const { campaign, store } = yield* activeCampaign(3)
        const claimed = (yield* lanes.claim(campaign, { laneAttempt: "job_f:1", limit: 3, now: 1 })).recipients
        const [one, two, three] = claimed
        // `one`: read arrives first, then delivered and sent, each 40 times, concurrently
        const reports = [
          ...Array.from({ length: 40 }, () => report(store, one.id, "read")),
          ...Array.from({ length: 40 }, () => report(store, one.id, "delivered")),
          ...Array.from({ length: 40 }, () => report(store, one.id, "sent")),
          ...Array.from({ length: 40 }, () => report(store, two.id, "failed", { code: 131026, title: "Message undeliverable" }))
        ]
        const matched = yield* Effect.all(
          reports.map((e) => tx.withTransaction(CampaignStatusReports.onRecipientStatus(store, e))),
          { concurrency: 16 }
        )
        expect(matched.every((m) => m)).toBe(true)
        // failed is final: a later "sent" changes nothing
        for (let i = 0; i < 5; i++) yield* CampaignStatusReports.onRecipientStatus(store, report(store, two.id, "sent"))
        const rows = yield* allRecipients(campaign)
        expect(rows[0]).toMatchObject({ status: "read", operatorMessageId: `wamid.${one.id}` })
        expect(rows[0].sentAt).not.toBeNull()
        expect(rows[0].deliveredAt).not.toBeNull()
        expect(rows[1]).toMatchObject({ status: "failed", failure: { code: 131026, reason: "Message undeliverable", retryable: false } })
        expect(rows[2].status).toBe("sending")
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 1, sent: 1, delivered: 1, read: 1, failed: 1 })
        // the lane's late "accepted" for a row a report already moved changes nothing
        const late = yield* lanes.recordOutcomes(
          campaign.id,
          "job_f:1",
          {
            accepted: [
              { id: one.id, operatorMessageId: "x" },
              { id: three.id, operatorMessageId: "w3" }
            ],
            failed: [],
            released: []
          },
          5
        )
        expect(late.accepted).toBe(1)
        yield* lanes.compactCounters(campaign.id)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 0, sent: 1, delivered: 1, read: 1, failed: 1 })
        // another store's report with the same callback data matches nothing; neither does callback data that is no recipient id
        const other = yield* createStore
        expect(yield* CampaignStatusReports.onRecipientStatus(other, report(other, three.id, "sent"))).toBe(false)
        expect(yield* CampaignStatusReports.onRecipientStatus(store, { ...report(store, three.id, "sent"), callbackData: "msg_x" })).toBe(false)
        expect(yield* CampaignStatusReports.onRecipientStatus(store, { ...report(store, three.id, "sent"), callbackData: "rcp_x" })).toBe(false)
      })
    )

    it.effect("a 131050 report fails the recipient for good and adds the phone to the opt-out list", () =>
      Effect.gen(function* () {
        const { campaign, store, tenant, phones } = yield* activeCampaign(1)
        const [one] = (yield* (yield* laneRepo).claim(campaign, { laneAttempt: "job_g:1", limit: 1, now: 1 })).recipients
        yield* CampaignStatusReports.onRecipientStatus(
          store,
          report(store, one.id, "failed", { code: 131050, title: "User has stopped marketing messages" })
        )
        expect((yield* allRecipients(campaign))[0].failure).toEqual({ code: 131050, reason: "User has stopped marketing messages", retryable: false })
        expect(yield* (yield* MessagingRepo.OptOutRepo).isOptedOut(tenant, phones[0])).toBe(true)
      })
    )

    it.effect("a claim that carries the lane's outcomes writes what recordOutcomes then claim write; with a lost lease, neither", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const [apart, together] = [yield* activeCampaign(6), yield* activeCampaign(6)]
        yield* CampaignLanes.ensureLane(apart.tenant, apart.phoneNumberId)
        const jobs = yield* queue.claim({ workerId: "w", kinds: [CampaignLanes.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const job = jobs.find((j) => payloadNumber(j) === apart.phoneNumberId)!
        for (const j of jobs.filter((x) => x !== job)) yield* queue.retry({ id: j.id, attempt: j.attempt }, 0, "not mine")
        const lease = { id: job.id, attempt: job.attempt }
        const attempt = `${job.id}:${job.attempt}`
        const o = { leaseMs: 30_000, messagingWindowMs: 86_400_000 }
        // the same outcomes of each campaign's first claim: two accepted, one 131050 (opted out), one released
        const batchOf = (phones: ReadonlyArray<string>, [a, b, c, d]: ReadonlyArray<CampaignRepo.ClaimedRecipient>) => ({
          outcomes: {
            accepted: [
              { id: a.id, operatorMessageId: "wamid.0" },
              { id: b.id, operatorMessageId: "wamid.1" }
            ],
            failed: [{ id: c.id, code: 131050, reason: "User has stopped marketing messages", retryable: false }],
            released: [{ id: d.id, seq: d.seq }]
          },
          optedOutPhones: [phones[2]],
          progress: true
        })
        const places = (phones: ReadonlyArray<string>, claimed: ReadonlyArray<CampaignRepo.ClaimedRecipient>) =>
          claimed.map((r) => phones.indexOf(r.phone))
        const rows = (campaign: Campaign.Campaign) =>
          Effect.map(allRecipients(campaign), (all) => all.map((r) => [r.status, r.operatorMessageId, r.failure]))

        const first = (yield* CampaignLanes.claim(apart.campaign, lease, o, attempt, 4)).recipients
        const batch = batchOf(apart.phones, first)
        const recorded = yield* CampaignLanes.recordOutcomes(apart.campaign, attempt, batch.outcomes, batch.optedOutPhones, batch.progress)
        const second = (yield* CampaignLanes.claim(apart.campaign, lease, o, attempt, 4)).recipients

        const firstToo = (yield* CampaignLanes.claim(together.campaign, lease, o, attempt, 4)).recipients
        expect(places(together.phones, firstToo)).toEqual(places(apart.phones, first))
        const batchToo = batchOf(together.phones, firstToo)
        const before = yield* rows(together.campaign)
        const stale = yield* Effect.either(
          CampaignLanes.claimRecording(together.campaign, { id: job.id, attempt: job.attempt + 1 }, o, attempt, 4, batchToo)
        )
        expect(stale._tag === "Left" ? stale.left._tag : "claimed").toBe("LeaseLost")
        expect(yield* rows(together.campaign)).toEqual(before)
        expect(yield* (yield* MessagingRepo.OptOutRepo).isOptedOut(together.tenant, together.phones[2])).toBe(false)

        const both = yield* CampaignLanes.claimRecording(together.campaign, lease, o, attempt, 4, batchToo)
        expect(both.recorded).toEqual(recorded)
        expect(recorded).toEqual({ accepted: 2, failed: 1, released: 1 })
        // the released recipient is claimed again in the same transaction, as by the claim after the write
        expect(places(together.phones, both.claimed.recipients)).toEqual(places(apart.phones, second))
        expect(places(apart.phones, second)).toEqual([3, 4, 5])
        expect(yield* rows(together.campaign)).toEqual(yield* rows(apart.campaign))
        expect(yield* (yield* MessagingRepo.OptOutRepo).isOptedOut(together.tenant, together.phones[2])).toBe(true)
        expect(yield* expectCountersExact(together.campaign)).toEqual(yield* expectCountersExact(apart.campaign))
        // without outcomes it is the claim alone
        const none = yield* CampaignLanes.claimRecording(together.campaign, lease, o, attempt, 4, undefined)
        expect([none.recorded, none.claimed.recipients]).toEqual([undefined, []])
      })
    )

    it.effect("ensureLane queues one job per generation; a finished lane gets a new one", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const { phoneNumberId, tenant } = yield* activeCampaign(1)
        expect(yield* CampaignLanes.ensureLane(tenant, phoneNumberId)).toBe(true)
        expect(yield* CampaignLanes.ensureLane(tenant, phoneNumberId)).toBe(false)
        const jobs = yield* queue.claim({ workerId: "w", kinds: [CampaignLanes.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const mine = jobs.filter((j) => payloadNumber(j) === phoneNumberId)
        expect(mine).toHaveLength(1)
        for (const j of jobs.filter((x) => !mine.includes(x))) yield* queue.retry({ id: j.id, attempt: j.attempt }, 0, "not mine")
        // running: still alive
        expect(yield* queue.isLive(mine[0].id)).toBe(true)
        expect(yield* CampaignLanes.ensureLane(tenant, phoneNumberId)).toBe(false)
        // an active campaign keeps the lane from finishing
        expect(yield* CampaignLanes.finishLaneIfIdle(phoneNumberId, { id: mine[0].id, attempt: mine[0].attempt })).toBe(false)
        yield* queue.complete({ id: mine[0].id, attempt: mine[0].attempt })
        expect(yield* queue.isLive(mine[0].id)).toBe(false)
        expect(yield* CampaignLanes.ensureLane(tenant, phoneNumberId)).toBe(true)
      })
    )

    it.effect("no lost wake-up: a launch racing a lane that goes idle always leaves a live lane", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const lanes = yield* laneRepo
        const queue = yield* JobQueue.JobQueue
        const tx = yield* Transactor.Transactor
        // a lane job running for a number whose only campaign just finished
        const { campaign, phoneNumberId, tenant } = yield* activeCampaign(1)
        yield* CampaignLanes.ensureLane(tenant, phoneNumberId)
        const claimed = yield* queue.claim({ workerId: "w", kinds: [CampaignLanes.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const job = claimed.find((j) => payloadNumber(j) === phoneNumberId)!
        for (const j of claimed.filter((x) => x !== job)) yield* queue.retry({ id: j.id, attempt: j.attempt }, 0, "not mine")
        const now = yield* Time.now
        yield* r.transition(tenant, campaign.id, { from: ["active"], to: "completed", now })
        // a second campaign of the same number, about to be launched
        const next = yield* newCampaign(tenant)
        yield* r.insert(tenant, next)

        const laneLocked = yield* Deferred.make<void>()
        const launchActivated = yield* Deferred.make<void>()
        // the lane: takes the lane lock; once the launch has written (not committed) its
        // activation, finds nothing active, completes its job and lingers before committing,
        // so the launch's ensureLane runs while the lane is ending. (On SQLite the launch's
        // transaction cannot start before the lane's ends: the wait times out.)
        const lane = yield* Effect.fork(
          tx.withTransaction(
            Effect.gen(function* () {
              yield* lanes.lockLane(phoneNumberId, now)
              yield* Deferred.succeed(laneLocked, undefined)
              yield* Effect.race(Deferred.await(launchActivated), realSleep(300))
              const active = yield* lanes.activeOfLane(phoneNumberId)
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
              yield* r.transition(tenant, next.id, { from: ["draft"], to: "active", now, set: { phoneNumberId } })
              yield* Deferred.succeed(launchActivated, undefined)
              return yield* CampaignLanes.ensureLane(tenant, phoneNumberId)
            })
          )
        )
        const ended = yield* Fiber.join(lane)
        const queued = yield* Fiber.join(launch)
        // either the lane saw the launch and carried on, or it ended and the launch queued a new
        // generation; never "ended, and the launch saw a live lane"
        expect(ended).toBe(queued)
        const live = yield* queue.claim({ workerId: "w2", kinds: [CampaignLanes.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const mine = live.filter((j) => payloadNumber(j) === phoneNumberId)
        expect(ended ? mine.length : 1).toBe(1)
      })
    )
  })
}
