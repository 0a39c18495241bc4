/**
 * The contract of `CampaignLaneRepo` (claims, fenced outcomes, reconciliation, completion);
 * the domain's status reports and lanes over the store (`CampaignStatusReports`,
 * `CampaignLanes`) are in `campaigns-lane-runs.ts`.
 */
import { CampaignLanes, JobQueue, MessagingRepo, Time } from "@switchboard/domain"
import { Database, SqlCampaignLaneRepo, SqlDialect } from "@switchboard/store-sql"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import {
  activeCampaign,
  allRecipients,
  createStore,
  expectCountersExact,
  laneRepo,
  newCampaign,
  pending,
  phone,
  repo,
  tenantOf
} from "./campaigns-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

/** The store's lane repository with the claim's other path (`Claims.ts` `ClaimPath`), over the same database. */
const laneRepoWith = (claimPath: "range" | "select") =>
  Effect.gen(function* () {
    const db = yield* Effect.serviceOption(Database.Database)
    const dialect = yield* Effect.serviceOption(SqlDialect.SqlDialect)
    if (Option.isNone(db) || Option.isNone(dialect)) return yield* Effect.dieMessage("the store's layer gives no Database and SqlDialect")
    return yield* SqlCampaignLaneRepo.makeWith({ claimPath }).pipe(
      Effect.provideService(Database.Database, db.value),
      Effect.provideService(SqlDialect.SqlDialect, dialect.value)
    )
  })

/** The sender number of a lane job. */
export const payloadNumber = (job: JobQueue.Job): string => (job.payload as CampaignLanes.LanePayload).phoneNumberId

export const laneTests = (it: ContractIt): void => {
  describe("CampaignLaneRepo", () => {
    it.effect("claims in insertion order from the cursor, skips contacts opted out since, and only while active", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const lanes = yield* laneRepo
        const { campaign, phones, tenant } = yield* activeCampaign(10)
        yield* (yield* MessagingRepo.OptOutRepo).add(tenant, phones[2], "keyword")
        const first = yield* lanes.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(first.recipients.map((x) => x.phone)).toEqual([phones[0], phones[1], phones[3]])
        expect(first.skipped).toBe(1)
        const second = yield* lanes.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(second.recipients.map((x) => x.phone)).toEqual(phones.slice(4, 8))
        const rows = yield* allRecipients(campaign)
        expect(rows.filter((x) => x.status === "sending")).toHaveLength(7)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 9, skipped: 1 })

        yield* r.transition(tenant, campaign.id, { from: ["active"], to: "paused", now: 1_000 })
        expect((yield* lanes.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })).recipients).toEqual([])
        yield* r.transition(tenant, campaign.id, { from: ["paused"], to: "active", now: 1_000 })
        const third = yield* lanes.claim(campaign, { laneAttempt: "job_a:1", limit: 4, now: 1_000 })
        expect(third.recipients.map((x) => x.phone)).toEqual(phones.slice(8))
      })
    )

    it.effect("outcomes are fenced by the lane attempt; released rows are claimed again; counters stay exact", () =>
      Effect.gen(function* () {
        const lanes = yield* laneRepo
        const { campaign, phones } = yield* activeCampaign(6)
        const claimed = (yield* lanes.claim(campaign, { laneAttempt: "job_b:2", limit: 6, now: 1_000 })).recipients
        const [a, b, c, d] = claimed
        const outcomes = {
          accepted: [
            { id: a.id, operatorMessageId: "wamid.A" },
            { id: b.id, operatorMessageId: "wamid.B" }
          ],
          failed: [{ id: c.id, code: 131026, reason: "Message undeliverable", retryable: false }],
          released: [{ id: d.id, seq: d.seq }]
        }
        // a stale lane (another attempt) changes nothing
        expect(yield* lanes.recordOutcomes(campaign.id, "job_b:1", outcomes, 2_000)).toEqual({ accepted: 0, failed: 0, released: 0 })
        expect(yield* lanes.recordOutcomes(campaign.id, "job_b:2", outcomes, 2_000)).toEqual({ accepted: 2, failed: 1, released: 1 })
        // recorded once: a replay changes nothing
        expect(yield* lanes.recordOutcomes(campaign.id, "job_b:2", outcomes, 2_000)).toEqual({ accepted: 0, failed: 0, released: 0 })
        const rows = yield* allRecipients(campaign)
        expect(rows.map((x) => x.status)).toEqual(["accepted", "accepted", "failed", "pending", "sending", "sending"])
        expect(rows[0].operatorMessageId).toBe("wamid.A")
        expect(rows[1].operatorMessageId).toBe("wamid.B")
        expect(rows[2].failure).toEqual({ code: 131026, reason: "Message undeliverable", retryable: false })
        expect(yield* expectCountersExact(campaign)).toMatchObject({ total: 6, pending: 3, failed: 1 })
        // the released row is claimable again although the cursor had passed it
        const again = yield* lanes.claim(campaign, { laneAttempt: "job_b:2", limit: 6, now: 3_000 })
        expect(again.recipients.map((x) => x.phone)).toEqual([phones[3]])
      })
    )

    it.effect("the range claim and the select claim claim, skip and count the same recipients", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const optOuts = yield* MessagingRepo.OptOutRepo
        const tenant = tenantOf(yield* createStore)
        const phones = Array.from({ length: 40 }, phone)
        const now = yield* Time.now
        // two campaigns of one store with the same recipients: the opt-out list is the store's
        const launch = (claimPath: "range" | "select") =>
          Effect.gen(function* () {
            const draft = yield* newCampaign(tenant, { name: claimPath })
            yield* r.insert(tenant, draft)
            yield* r.addRecipients(
              tenant,
              draft.id,
              ["draft"],
              phones.map((p, i) => pending(p, i === 5 ? { parameters: ["Bo"] } : {})),
              now
            )
            const active = yield* r.transition(tenant, draft.id, {
              from: ["draft"],
              to: "active",
              now,
              set: { phoneNumberId: `pn_${claimPath}`, launchedAt: now }
            })
            return { campaign: Option.getOrThrow(active), lanes: yield* laneRepoWith(claimPath) }
          })
        const runs = [yield* launch("range"), yield* launch("select")]
        for (const i of [3, 7, 8, 39]) yield* optOuts.add(tenant, phones[i], "keyword")
        const claimBoth = (limit: number, at: number) =>
          Effect.forEach(runs, ({ campaign, lanes }) =>
            Effect.map(lanes.claim(campaign, { laneAttempt: "job_eq:1", limit, now: at }), (c) => ({
              recipients: c.recipients.map((x) => ({ phone: x.phone, seq: x.seq, parameters: x.parameters })),
              skipped: c.skipped,
              ids: c.recipients.map((x) => ({ id: x.id, seq: x.seq }))
            }))
          )
        const rowsOf = (campaign: (typeof runs)[number]["campaign"]) =>
          Effect.map(allRecipients(campaign), (rows) => rows.map((x) => ({ phone: x.phone, status: x.status, skipReason: x.skipReason })))
        const expectSame = Effect.gen(function* () {
          expect(yield* rowsOf(runs[0].campaign)).toEqual(yield* rowsOf(runs[1].campaign))
          const counters = yield* Effect.forEach(runs, ({ campaign }) => expectCountersExact(campaign))
          expect(counters[0]).toEqual(counters[1])
        })

        const [a1, b1] = yield* claimBoth(4, 1_000) // phones 0..3 (a limit counts the opted out too), 3 opted out
        expect(a1.recipients.map((x) => x.phone)).toEqual([phones[0], phones[1], phones[2]])
        expect(a1.skipped).toBe(1)
        expect({ recipients: a1.recipients, skipped: a1.skipped }).toEqual({ recipients: b1.recipients, skipped: b1.skipped })
        yield* expectSame
        yield* optOuts.add(tenant, phones[20], "keyword") // opted out after the launch, before its claim
        const [a2, b2] = yield* claimBoth(6, 2_000) // 4..9, with 7 and 8 opted out; 5 has its own parameters
        expect(a2.recipients.map((x) => x.phone)).toEqual([phones[4], phones[5], phones[6], phones[9]])
        expect(a2.recipients[1].parameters).toEqual(["Bo"])
        expect(a2.skipped).toBe(2)
        expect({ recipients: a2.recipients, skipped: a2.skipped }).toEqual({ recipients: b2.recipients, skipped: b2.skipped })
        yield* expectSame
        // outcomes: two accepted, two released (the cursor goes back to the first released)
        for (const [run, claimed] of [
          [runs[0], a2],
          [runs[1], b2]
        ] as const) {
          const [x, y, z, w] = claimed.ids
          expect(
            yield* run.lanes.recordOutcomes(
              run.campaign.id,
              "job_eq:1",
              {
                accepted: [
                  { id: x.id, operatorMessageId: `w.${x.seq}` },
                  { id: z.id, operatorMessageId: `w.${z.seq}` }
                ],
                failed: [],
                released: [y, w]
              },
              3_000
            )
          ).toEqual({ accepted: 2, failed: 0, released: 2 })
        }
        yield* expectSame
        const [a3, b3] = yield* claimBoth(3, 4_000) // the two released, then 10
        expect(a3.recipients.map((x) => x.phone)).toEqual([phones[5], phones[9], phones[10]])
        expect({ recipients: a3.recipients, skipped: a3.skipped }).toEqual({ recipients: b3.recipients, skipped: b3.skipped })
        yield* expectSame
        const [a4, b4] = yield* claimBoth(100, 5_000) // the rest: 11..39 but 20 and 39
        expect(a4.recipients.map((x) => x.phone)).toEqual(phones.slice(11).filter((_, i) => i + 11 !== 20 && i + 11 !== 39))
        expect(a4.skipped).toBe(2)
        expect({ recipients: a4.recipients, skipped: a4.skipped }).toEqual({ recipients: b4.recipients, skipped: b4.skipped })
        yield* expectSame
        const [a5, b5] = yield* claimBoth(100, 6_000)
        expect([a5.recipients, a5.skipped, b5.recipients, b5.skipped]).toEqual([[], 0, [], 0])
        expect(yield* expectCountersExact(runs[0].campaign)).toMatchObject({ total: 40, pending: 33, skipped: 5 })
      })
    )

    it.effect("a claim whose lane lost its lease writes nothing; the lane that holds it then claims the same recipients", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        const { campaign, phoneNumberId, phones, tenant } = yield* activeCampaign(5)
        yield* (yield* MessagingRepo.OptOutRepo).add(tenant, phones[1], "keyword")
        yield* CampaignLanes.ensureLane(tenant, phoneNumberId)
        const jobs = yield* queue.claim({ workerId: "w", kinds: [CampaignLanes.LANE_JOB], limit: 100, leaseMs: 30_000 })
        const job = jobs.find((j) => payloadNumber(j) === phoneNumberId)!
        for (const j of jobs.filter((x) => x !== job)) yield* queue.retry({ id: j.id, attempt: j.attempt }, 0, "not mine")
        const o = { leaseMs: 30_000, messagingWindowMs: 86_400_000 }
        // the range claim's skip, range update and cursor move, then the heartbeat that fails: all rolled back
        const stale = yield* Effect.either(
          CampaignLanes.claim(campaign, { id: job.id, attempt: job.attempt + 1 }, o, `${job.id}:${job.attempt + 1}`, 3)
        )
        expect(stale._tag === "Left" ? stale.left._tag : "claimed").toBe("LeaseLost")
        expect((yield* allRecipients(campaign)).map((x) => x.status)).toEqual(["pending", "pending", "pending", "pending", "pending"])
        expect(yield* expectCountersExact(campaign)).toMatchObject({ total: 5, pending: 5, skipped: 0 })
        const live = yield* CampaignLanes.claim(campaign, { id: job.id, attempt: job.attempt }, o, `${job.id}:${job.attempt}`, 3)
        expect(live.recipients.map((x) => x.phone)).toEqual([phones[0], phones[2]])
        expect(live.skipped).toBe(1)
        expect((yield* allRecipients(campaign)).map((x) => x.status)).toEqual(["sending", "skipped", "sending", "pending", "pending"])
        expect(yield* expectCountersExact(campaign)).toMatchObject({ total: 5, pending: 4, skipped: 1 })
        const rest = yield* CampaignLanes.claim(campaign, { id: job.id, attempt: job.attempt }, o, `${job.id}:${job.attempt}`, 3)
        expect(rest.recipients.map((x) => x.phone)).toEqual([phones[3], phones[4]])
      })
    )

    it.effect("activeOfLane answers each campaign as a fresh read decodes it, also after its counters and its settings changed", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const lanes = yield* laneRepo
        const { campaign, phoneNumberId, tenant } = yield* activeCampaign(4)
        // a new repository remembers no campaign: it decodes every row
        const fresh = Effect.flatMap(laneRepoWith("range"), (other) => other.activeOfLane(phoneNumberId))
        const first = yield* lanes.activeOfLane(phoneNumberId)
        expect(first).toEqual(yield* fresh)
        expect(yield* lanes.activeOfLane(phoneNumberId)).toEqual(first)
        const claimed = (yield* lanes.claim(campaign, { laneAttempt: "job_l:1", limit: 4, now: 1_000 })).recipients
        const [a, b, c] = claimed
        const outcomes = {
          accepted: [a, b].map((x) => ({ id: x.id, operatorMessageId: `wamid.${x.id}` })),
          failed: [{ id: c.id, code: 131026, reason: "Message undeliverable", retryable: false }],
          released: []
        }
        yield* lanes.recordOutcomes(campaign.id, "job_l:1", outcomes, 2_000)
        const counted = yield* lanes.activeOfLane(phoneNumberId)
        expect(counted).toEqual(yield* fresh)
        expect(counted[0]).toMatchObject({ pending: 1, failed: 1 })
        yield* r.transition(tenant, campaign.id, { from: ["active"], to: "active", now: 3_000, set: { pausedReason: "checked" } })
        const changed = yield* lanes.activeOfLane(phoneNumberId)
        expect(changed).toEqual(yield* fresh)
        expect(changed[0]).toMatchObject({ pausedReason: "checked", updatedAt: 3_000 })
      })
    )

    it.effect("reconcile: rows left sending past the window go back to pending (or cancelled), newer ones stay", () =>
      Effect.gen(function* () {
        const lanes = yield* laneRepo
        const { campaign } = yield* activeCampaign(4)
        yield* lanes.claim(campaign, { laneAttempt: "job_c:1", limit: 2, now: 1_000 })
        yield* lanes.claim(campaign, { laneAttempt: "job_c:1", limit: 2, now: 5_000 })
        expect(yield* lanes.hasStaleSending(campaign.id, 1_000)).toBe(false)
        expect(yield* lanes.hasStaleSending(campaign.id, 3_000)).toBe(true)
        expect(yield* lanes.reconcile(campaign.id, { sendingBefore: 3_000, to: "pending", now: 6_000 })).toBe(2)
        expect((yield* allRecipients(campaign)).map((x) => x.status)).toEqual(["pending", "pending", "sending", "sending"])
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 4 })
        const again = yield* lanes.claim(campaign, { laneAttempt: "job_c:2", limit: 10, now: 7_000 })
        expect(again.recipients).toHaveLength(2)
        expect(yield* lanes.reconcile(campaign.id, { sendingBefore: 6_000, to: "cancelled", now: 8_000 })).toBe(2)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 2, cancelled: 2 })
      })
    )

    it.effect("completes only when nothing is pending or sending", () =>
      Effect.gen(function* () {
        const lanes = yield* laneRepo
        const { campaign } = yield* activeCampaign(2)
        expect(yield* lanes.completeIfDone(campaign.id, 5)).toEqual(Option.none())
        const claimed = (yield* lanes.claim(campaign, { laneAttempt: "job_d:1", limit: 2, now: 1 })).recipients
        expect(yield* lanes.completeIfDone(campaign.id, 5)).toEqual(Option.none())
        expect(yield* lanes.hasSending(campaign.id)).toBe(true)
        yield* lanes.recordOutcomes(
          campaign.id,
          "job_d:1",
          { accepted: claimed.map((x) => ({ id: x.id, operatorMessageId: `w.${x.id}` })), failed: [], released: [] },
          2
        )
        const done = Option.getOrThrow(yield* lanes.completeIfDone(campaign.id, 5))
        expect(done).toMatchObject({ status: "completed", completedAt: 5 })
        expect(yield* lanes.completeIfDone(campaign.id, 6)).toEqual(Option.none())
      })
    )
  })
}
