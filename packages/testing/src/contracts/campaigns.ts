/**
 * The contract of the campaign storage ports, listed in `storageContracts` so that every
 * store runs it unchanged: `CampaignRepo` (what routes reach, scoped by tenant) here, the
 * lane's storage and the domain's lane bookkeeping over it in `campaigns-lanes.ts`, and the
 * time-dependent rules on `TestClock` in `campaigns-time.ts`. Each test works in stores it
 * creates. After every change the counters are compared with a recount from the rows:
 * incremental counters must never drift.
 */
import { qualityBatchTests } from "./campaigns-quality-batches.js"
import { type Campaign, CampaignRecipient, MessagingRepo, type Tenant, Time } from "@switchboard/domain"
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
  storedDraft,
  tenantOf
} from "./campaigns-fixtures.js"
import { ingestTests } from "./campaigns-ingest.js"
import { laneRunTests } from "./campaigns-lane-runs.js"
import { laneTests } from "./campaigns-lanes.js"
import { timeTests } from "./campaigns-time.js"
import { statusBatchTests } from "./campaigns-status-batches.js"
import type { ContractIt, ModuleContract } from "./ModuleContract.js"

/** `CampaignRepo`. */
const tests = (it: ContractIt): void => {
  describe("CampaignRepo", () => {
    it.effect("is scoped by tenant: another store or mode never finds, lists, edits, fills, counts or deletes a campaign", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const a = yield* createStore
        const b = yield* createStore
        const aLive = tenantOf(a, "live")
        const campaign = yield* newCampaign(aLive)
        const now = yield* Time.now
        yield* r.insert(aLive, campaign)
        expect(Option.getOrThrow(yield* r.findById(aLive, campaign.id))).toEqual(campaign)
        expect((yield* r.list(aLive, { limit: 10 })).items.map((c) => c.id)).toEqual([campaign.id])
        for (const other of [tenantOf(a, "test"), tenantOf(b, "live")] as Array<Tenant.Tenant>) {
          expect(yield* r.findById(other, campaign.id)).toEqual(Option.none())
          expect(yield* r.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* r.updateDraft(other, campaign.id, { name: "hijacked" }, now)).toEqual(Option.none())
          expect(yield* r.addRecipients(other, campaign.id, ["draft"], [pending(phone())], now)).toEqual(Option.none())
          expect(yield* r.listRecipients(other, campaign.id, { limit: 10 })).toEqual({ items: [], hasMore: false })
          expect(yield* r.hasPending(other, campaign.id)).toBe(false)
          expect(yield* r.recount(other, campaign.id)).toEqual(Option.none())
          expect(yield* r.transition(other, campaign.id, { from: ["draft"], to: "cancelled", now })).toEqual(Option.none())
          expect(yield* r.deleteDraft(other, campaign.id)).toBe(false)
        }
        yield* r.addRecipients(aLive, campaign.id, ["draft"], [pending(phone())], now)
        for (const other of [tenantOf(a, "test"), tenantOf(b, "live")] as Array<Tenant.Tenant>) {
          expect(yield* r.cancelPending(other, campaign.id, { limit: 10, staleSendingBefore: 0, now })).toBe(0)
          expect(yield* r.skipOptedOut(other, campaign.id, now)).toBe(0)
          expect(yield* r.retryFailed(other, campaign.id, now)).toBe(0)
        }
        expect(yield* r.hasPending(aLive, campaign.id)).toBe(true)
        const renamed = Option.getOrThrow(
          yield* r.updateDraft(aLive, campaign.id, { name: "Summer", parameters: ["Bo"], scheduledAt: now + 60_000 }, now)
        )
        expect(renamed).toMatchObject({ name: "Summer", parameters: ["Bo"], status: "draft", scheduledAt: now + 60_000, total: 1, pending: 1 })
        expect(yield* r.deleteDraft(aLive, campaign.id)).toBe(true)
        expect(yield* r.findById(aLive, campaign.id)).toEqual(Option.none())
      })
    )

    it.effect("lists newest first by status with a cursor", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const tenant = tenantOf(yield* createStore)
        const made: Array<Campaign.Campaign> = []
        for (let i = 0; i < 5; i++) {
          const c = yield* newCampaign(tenant)
          made.push(c)
          yield* r.insert(tenant, c)
          if (i % 2 === 0) yield* r.transition(tenant, c.id, { from: ["draft"], to: "cancelled", now: yield* Time.now })
        }
        const page1 = yield* r.list(tenant, { limit: 2 })
        expect(page1.items.map((c) => c.id)).toEqual([made[4].id, made[3].id])
        expect(page1.hasMore).toBe(true)
        const page2 = yield* r.list(tenant, { limit: 2, after: page1.items[1].id })
        expect(page2.items.map((c) => c.id)).toEqual([made[2].id, made[1].id])
        const cancelled = yield* r.list(tenant, { limit: 10, status: "cancelled" })
        expect(cancelled.items.map((c) => c.id)).toEqual([made[4].id, made[2].id, made[0].id])
      })
    )

    it.effect("transition is a compare-and-set: of concurrent launches exactly one wins", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { tenant, campaign: c } = yield* storedDraft()
        const now = yield* Time.now
        const results = yield* Effect.all(
          Array.from({ length: 10 }, () => r.transition(tenant, c.id, { from: ["draft"], to: "active", now, set: { launchedAt: now } })),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toHaveLength(1)
        expect(Option.getOrThrow(yield* (yield* laneRepo).get(c.id))).toMatchObject({ status: "active", launchedAt: now })
        expect(yield* r.updateDraft(tenant, c.id, { name: "late" }, now)).toEqual(Option.none())
        expect(yield* r.deleteDraft(tenant, c.id)).toBe(false)
      })
    )

    it.effect("adds recipients in order across insert chunks; duplicates of existing rows become skipped entries", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const { tenant, campaign: c } = yield* storedDraft()
        const now = yield* Time.now
        const phones = Array.from({ length: 7_001 }, phone)
        const first = Option.getOrThrow(
          yield* r.addRecipients(
            tenant,
            c.id,
            ["draft"],
            phones.map((p) => pending(p)),
            now
          )
        )
        expect(first.added).toBe(7_001)
        expect(first.total).toBe(7_001)
        const again = [
          pending(phones[5]),
          pending(phone(), { parameters: ["Zoe"] }),
          pending(null, { input: "12", status: "skipped", skipReason: "invalid_number" })
        ]
        const second = Option.getOrThrow(yield* r.addRecipients(tenant, c.id, ["draft"], again, now))
        expect(second.added).toBe(1)
        expect(second.skipped.duplicate).toBe(1)
        expect(second.skipped.invalid_number).toBe(1)
        expect(second.total).toBe(7_004)
        const counters = yield* expectCountersExact(c)
        expect(counters).toMatchObject({ total: 7_004, pending: 7_002, skipped: 2 })

        const page = yield* r.listRecipients(tenant, c.id, { limit: 3, afterSeq: 6_999 })
        expect(page.items.map((x) => x.phone)).toEqual([phones[7_000], null, again[1].phone])
        expect(page.items.map((x) => x.seq)).toEqual([7_000, 7_001, 7_002])
        expect(page.items[1]).toMatchObject({ status: "skipped", skipReason: "duplicate", input: phones[5] })
        expect(page.items[2].parameters).toEqual(["Zoe"])
        expect(page.items[0]).toMatchObject({ campaignId: c.id, input: phones[7_000], failure: null, updatedAt: now })
        const skipped = yield* r.listRecipients(tenant, c.id, { status: "skipped", limit: 10 })
        expect(skipped.items.map((x) => x.skipReason)).toEqual(["duplicate", "invalid_number"])
        expect(skipped.items[1]).toMatchObject({ phone: null, input: "12" })

        // not while active
        yield* r.transition(tenant, c.id, { from: ["draft"], to: "active", now })
        expect(yield* r.addRecipients(tenant, c.id, ["draft", "scheduled"], [pending(phone())], now)).toEqual(Option.none())
      })
    )

    it.effect("removeRecipient deletes one recipient of the tenant's campaign while allowed, and takes it off the counters", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const a = yield* createStore
        const tenant = tenantOf(a)
        const c = yield* newCampaign(tenant)
        yield* r.insert(tenant, c)
        const now = yield* Time.now
        const kept = phone()
        yield* r.addRecipients(
          tenant,
          c.id,
          ["draft"],
          [pending(phone()), pending(kept), pending(null, { status: "skipped", skipReason: "invalid_number" })],
          now
        )
        const [first, second, skipped] = yield* allRecipients(c)
        expect(yield* expectCountersExact(c)).toMatchObject({ total: 3, pending: 2, skipped: 1 })
        // another tenant, another campaign's id, an unknown id: not found, nothing changes
        const other = yield* newCampaign(tenant)
        yield* r.insert(tenant, other)
        expect(yield* r.removeRecipient(tenantOf(a, "live"), c.id, first.id, ["draft"])).toBe("not_found")
        expect(yield* r.removeRecipient(tenant, other.id, first.id, ["draft"])).toBe("not_found")
        expect(yield* r.removeRecipient(tenant, c.id, first.id, ["draft"])).toBe("removed")
        expect(yield* r.removeRecipient(tenant, c.id, first.id, ["draft"])).toBe("not_found")
        expect(yield* r.removeRecipient(tenant, c.id, skipped.id, ["draft"])).toBe("removed")
        expect((yield* allRecipients(c)).map((x) => x.id)).toEqual([second.id])
        expect(yield* expectCountersExact(c)).toMatchObject({ total: 1, pending: 1, skipped: 0 })
        // past the statuses allowed: refused, nothing removed
        yield* r.transition(tenant, c.id, { from: ["draft"], to: "active", now })
        expect(yield* r.removeRecipient(tenant, c.id, second.id, ["draft"])).toBe("refused")
        expect((yield* allRecipients(c)).map((x) => x.phone)).toEqual([kept])
        expect(yield* expectCountersExact(c)).toMatchObject({ total: 1, pending: 1 })
      })
    )

    it.effect("skipOptedOut skips only pending rows on the tenant's opt-out list", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const optOuts = yield* MessagingRepo.OptOutRepo
        const { campaign, phones, tenant } = yield* activeCampaign(6)
        yield* optOuts.add(tenant, phones[1], "api")
        yield* optOuts.add(tenant, phones[4], "keyword")
        yield* optOuts.add({ ...tenant, mode: "live" }, phones[2], "api") // other mode: no effect
        const now = yield* Time.now
        expect(yield* r.skipOptedOut(tenant, campaign.id, now)).toBe(2)
        expect(yield* r.skipOptedOut(tenant, campaign.id, now)).toBe(0)
        const rows = yield* allRecipients(campaign)
        expect(rows.filter((x) => x.status === "skipped").map((x) => x.phone)).toEqual([phones[1], phones[4]])
        expect(rows.every((x) => x.status !== "skipped" || x.skipReason === "opted_out")).toBe(true)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ total: 6, pending: 4, skipped: 2 })
      })
    )

    it.effect("retry re-queues only retryable failures and lowers the cursor; cancel is bounded", () =>
      Effect.gen(function* () {
        const r = yield* repo
        const lanes = yield* laneRepo
        const { campaign, phones, tenant } = yield* activeCampaign(5)
        const claimed = (yield* lanes.claim(campaign, { laneAttempt: "job_e:1", limit: 5, now: 1 })).recipients
        yield* lanes.recordOutcomes(
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
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 0, failed: 4 })
        const now = yield* Time.now
        expect(yield* r.retryFailed(tenant, campaign.id, now)).toBe(2)
        expect(yield* r.retryFailed(tenant, campaign.id, now)).toBe(0)
        expect(yield* expectCountersExact(campaign)).toMatchObject({ pending: 2, failed: 2 })
        const again = yield* lanes.claim(campaign, { laneAttempt: "job_e:2", limit: 5, now: 3 })
        expect(again.recipients.map((x) => x.phone)).toEqual([phones[0], phones[2]])

        const big = yield* activeCampaign(25)
        expect(yield* r.cancelPending(big.tenant, big.campaign.id, { limit: 10, staleSendingBefore: 0, now })).toBe(10)
        expect(yield* expectCountersExact(big.campaign)).toMatchObject({ pending: 15, cancelled: 10 })
        expect(yield* r.cancelPending(big.tenant, big.campaign.id, { limit: 100, staleSendingBefore: 0, now })).toBe(15)
        expect(yield* r.hasPending(big.tenant, big.campaign.id)).toBe(false)
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
    ingestTests(it)
    laneTests(it)
    laneRunTests(it)
    timeTests(it)
    statusBatchTests(it)
    qualityBatchTests(it)
  }
}
