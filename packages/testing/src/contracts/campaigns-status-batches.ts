/**
 * Campaign status reports applied a batch at a time (`onRecipientStatuses`, the inbox's way)
 * have the effect of applying each in turn (`onRecipientStatus`): for random streams of
 * reports (duplicates, out of order, failures, 131050), two campaigns with the same
 * recipients, one fed report by report and one in batches of random sizes, end with the same
 * recipient rows and the same counters, exact against a recount; batches applied
 * concurrently, in their own transactions, keep the counters exact too.
 */
import { CampaignStatusReports, type Store, Transactor, type WebhookEvent } from "@switchboard/domain"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { activeCampaign, allRecipients, expectCountersExact, laneRepo, report } from "./campaigns-fixtures.js"
import type { ContractIt } from "./StorageContracts.js"

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const RECIPIENTS = 8
const REPORTS: ReadonlyArray<readonly [string, WebhookEvent.MessageStatus["error"]]> = [
  ["sent", null],
  ["delivered", null],
  ["read", null],
  ["sent", null],
  ["delivered", null],
  ["failed", { code: 131026, title: "Message undeliverable" }],
  ["failed", { code: 131050, title: "User stopped marketing messages" }]
]

/** An active campaign whose recipients were all claimed (sending), as the lane leaves them. */
const claimedCampaign = Effect.gen(function* () {
  const made = yield* activeCampaign(RECIPIENTS)
  const claimed = (yield* (yield* laneRepo).claim(made.campaign, { laneAttempt: "job_b:1", limit: RECIPIENTS, now: 1 })).recipients
  return { ...made, ids: claimed.map((r) => r.id) }
})

const reportOf = (store: Store.Store, id: string, n: number) => report(store, id, REPORTS[n][0], REPORTS[n][1])

export const statusBatchTests = (it: ContractIt): void => {
  describe("Campaign status reports in batches", () => {
    it.effect("a batch of reports has the effect of each report in turn: same rows, same counters, exact", () =>
      Effect.gen(function* () {
        const tx = yield* Transactor.Transactor
        for (const seed of [11, 12, 13, 14]) {
          const next = random(seed)
          const one = yield* claimedCampaign
          const batched = yield* claimedCampaign
          const stream = Array.from({ length: RECIPIENTS * 4 }, () => ({
            index: Math.floor(next() * RECIPIENTS),
            n: Math.floor(next() * REPORTS.length)
          }))
          for (const { index, n } of stream) yield* CampaignStatusReports.onRecipientStatus(one.store, reportOf(one.store, one.ids[index], n))
          const batches: Array<ReadonlyArray<{ readonly index: number; readonly n: number }>> = []
          for (let start = 0; start < stream.length; ) {
            const size = 1 + Math.floor(next() * 10)
            batches.push(stream.slice(start, start + size))
            start += size
          }
          for (const batch of batches) {
            const items = batch.map(({ index, n }) => ({
              store: batched.store,
              kind: "sandbox" as const,
              event: reportOf(batched.store, batched.ids[index], n)
            }))
            yield* tx.withTransaction(CampaignStatusReports.onRecipientStatuses(items))
          }
          const strip = (rows: ReadonlyArray<{ status: string; sentAt: unknown; deliveredAt: unknown; readAt: unknown; failure: unknown }>) =>
            rows.map(({ status, sentAt, deliveredAt, readAt, failure }) => ({ status, sentAt, deliveredAt, readAt, failure }))
          expect(strip(yield* allRecipients(batched.campaign)), `seed ${seed}`).toEqual(strip(yield* allRecipients(one.campaign)))
          expect(yield* expectCountersExact(batched.campaign)).toEqual(yield* expectCountersExact(one.campaign))

          // the same batches again, concurrently, on a third campaign: counters stay exact
          const concurrent = yield* claimedCampaign
          yield* Effect.all(
            batches.map((batch) =>
              tx.withTransaction(
                CampaignStatusReports.onRecipientStatuses(
                  batch.map(({ index, n }) => ({
                    store: concurrent.store,
                    kind: "sandbox" as const,
                    event: reportOf(concurrent.store, concurrent.ids[index], n)
                  }))
                )
              )
            ),
            { concurrency: 4 }
          )
          const counters = yield* expectCountersExact(concurrent.campaign)
          expect(counters.pending + counters.failed + counters.cancelled).toBeLessThanOrEqual(RECIPIENTS)
        }
      })
    )
  })
}
