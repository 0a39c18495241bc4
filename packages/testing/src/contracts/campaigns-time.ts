/**
 * The campaigns' time-dependent rules over the store, on `TestClock` (never real sleeps):
 * the reconciliation window (and its postponement while older operator webhooks wait) and
 * the activation of scheduled campaigns by the sweep.
 */
import { CampaignLanes, Id, JobQueue, OperatorWebhooks, Time } from "@switchboard/domain"
import { Effect, Option, TestClock } from "effect"
import { describe, expect } from "vitest"
import { activeCampaign, allRecipients, expectCountersExact, laneRepo, pending, phone, repo, storedDraft } from "./campaigns-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

/** Processes every operator webhook job still waiting (other tests' included), so none postpones a reconciliation. */
const processWebhooks = Effect.gen(function* () {
  const queue = yield* JobQueue.JobQueue
  for (;;) {
    const jobs = yield* queue.claim({ workerId: "contract", kinds: [OperatorWebhooks.PROCESS_JOB], limit: 1000, leaseMs: 30_000 })
    if (jobs.length === 0) return
    for (const job of jobs) yield* queue.complete({ id: job.id, attempt: job.attempt })
  }
})

const WINDOW = 120_000

export const timeTests = (it: ContractIt): void => {
  describe("Campaign rules on the Clock", () => {
    it.effect("reconciliation: a row left sending goes back to pending only after the window, and not while an older operator webhook waits", () =>
      Effect.gen(function* () {
        const queue = yield* JobQueue.JobQueue
        yield* TestClock.setTime(Date.UTC(2030, 0, 1))
        yield* processWebhooks
        const { campaign } = yield* activeCampaign(2)
        yield* (yield* laneRepo).claim(campaign, { laneAttempt: "job_t:1", limit: 2, now: yield* Time.now })

        yield* TestClock.adjust(WINDOW - 1)
        expect(yield* CampaignLanes.reconcile(campaign.id, WINDOW)).toBe(0)
        // an operator webhook arrives (its job not processed yet): its report may show the messages went out
        yield* queue.enqueue({ kind: OperatorWebhooks.PROCESS_JOB, payload: { inboxId: Id.unsafeMake("ibx", 0) } })
        yield* TestClock.adjust(CampaignLanes.WEBHOOK_BACKLOG_MS + 1)
        expect(yield* CampaignLanes.reconcile(campaign.id, WINDOW)).toBe(0)
        expect((yield* allRecipients(campaign)).map((r) => r.status)).toEqual(["sending", "sending"])

        // processed; a webhook received within the last second does not postpone
        yield* processWebhooks
        yield* queue.enqueue({ kind: OperatorWebhooks.PROCESS_JOB, payload: { inboxId: Id.unsafeMake("ibx", 0) } })
        yield* TestClock.adjust(CampaignLanes.WEBHOOK_BACKLOG_MS / 2)
        expect(yield* CampaignLanes.reconcile(campaign.id, WINDOW)).toBe(2)
        const rows = yield* allRecipients(campaign)
        expect(rows.map((r) => r.status)).toEqual(["pending", "pending"])
        expect(rows[0].updatedAt).toBe(yield* Time.now)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 2 })
        yield* processWebhooks
      })
    )

    it.effect("a scheduled campaign is activated by the sweep once its time has come on the Clock, and its lane is queued", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const queue = yield* JobQueue.JobQueue
        const start = Date.UTC(2030, 0, 2)
        yield* TestClock.setTime(start)
        const { tenant, campaign: c } = yield* storedDraft({ scheduledAt: start + Time.HOUR })
        yield* r.addRecipients(tenant, c.id, ["draft"], [pending(phone())], start)
        const phoneNumberId = `pn_${Id.randomToken(10)}`
        yield* r.transition(tenant, c.id, { from: ["draft"], to: "scheduled", now: start, set: { phoneNumberId, launchedAt: start } })
        const status = Effect.map(r.findById(tenant, c.id), (found) => Option.getOrThrow(found).status)

        yield* CampaignLanes.sweep({ reconcileAfterMs: WINDOW })
        expect(yield* status).toBe("scheduled")
        yield* TestClock.adjust(Time.HOUR - 1)
        yield* CampaignLanes.sweep({ reconcileAfterMs: WINDOW })
        expect(yield* status).toBe("scheduled")
        yield* TestClock.adjust(1)
        const swept = yield* CampaignLanes.sweep({ reconcileAfterMs: WINDOW })
        expect(swept.activated).toBeGreaterThanOrEqual(1)
        expect(Option.getOrThrow(yield* r.findById(tenant, c.id))).toMatchObject({ status: "active", updatedAt: start + Time.HOUR })

        const jobs = yield* queue.claim({ workerId: "contract", kinds: [CampaignLanes.LANE_JOB], limit: 1000, leaseMs: 30_000 })
        const mine = jobs.filter((j) => (j.payload as CampaignLanes.LanePayload).phoneNumberId === phoneNumberId)
        for (const j of jobs) yield* queue.retry({ id: j.id, attempt: j.attempt }, 0, "contract")
        expect(mine).toHaveLength(1)
      })
    )
  })
}
