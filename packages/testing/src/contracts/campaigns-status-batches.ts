/**
 * Campaign status reports applied a batch at a time (`onRecipientStatuses`, the inbox's way)
 * have the effect of applying each in turn (`onRecipientStatus`): for random streams of
 * reports (duplicates, out of order, failures, 131050), two campaigns with the same
 * recipients, one fed report by report and one in batches of random sizes, end with the same
 * recipient rows and the same counters, exact against a recount; batches applied
 * concurrently, in their own transactions, keep the counters exact too.
 */
import {
  CampaignRecipient as Recipient,
  type CampaignRepo,
  CampaignStatusReports,
  type Store,
  Time,
  Transactor,
  type WebhookEvent
} from "@switchboard/domain"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { activeCampaign, allRecipients, expectCountersExact, laneRepo, report } from "./campaigns-fixtures.js"
import { seededRandom as random } from "../random.js"
import type { ContractIt } from "./ModuleContract.js"

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
    it.effect(
      "advanceRecipients is advanceRecipient on each row: its own compare-and-set, failure, wamid filled in only; answers the ids changed",
      () =>
        Effect.gen(function* () {
          const lanes = yield* laneRepo
          const now = yield* Time.now
          const apply = (
            made: Effect.Effect.Success<typeof claimedCampaign>,
            write: (changes: ReadonlyArray<CampaignRepo.RecipientChange>) => Effect.Effect<ReadonlySet<string>>
          ) =>
            Effect.gen(function* () {
              const refs = new Map((yield* lanes.findRecipients(made.store.id, made.ids)).map((r) => [r.id, r]))
              const ref = (i: number) => refs.get(made.ids[i])!
              const at = (status: string, error: WebhookEvent.MessageStatus["error"] = null) => ({ status, at: 1_700_000_000_000, error })
              const sent = (i: number) => Recipient.advance(ref(i).progress, at("sent"))!
              // recipient 2 moves on before the batch: its change from the progress read is stale
              yield* lanes.advanceRecipient(ref(2), sent(2), "wamid.earlier", { sent: 1 }, now)
              const changed = yield* write([
                { ref: ref(0), next: sent(0), operatorMessageId: "wamid.0" },
                {
                  ref: ref(1),
                  next: Recipient.advance(ref(1).progress, at("failed", { code: 131_026, title: "Undeliverable" }))!,
                  operatorMessageId: "wamid.1"
                },
                { ref: ref(2), next: Recipient.advance(ref(2).progress, at("delivered"))!, operatorMessageId: "wamid.2" },
                { ref: ref(3), next: Recipient.advance(sent(3), at("read"))!, operatorMessageId: null }
              ])
              return { changed: made.ids.flatMap((id, i) => (changed.has(id) ? [i] : [])), rows: yield* allRecipients(made.campaign) }
            })
          const one = yield* claimedCampaign
          const each = yield* apply(one, (changes) =>
            Effect.map(
              Effect.filter(changes, (c) => lanes.advanceRecipient(c.ref, c.next, c.operatorMessageId, {}, now)),
              (done) => new Set(done.map((c) => c.ref.id))
            )
          )
          const many = yield* apply(yield* claimedCampaign, (changes) => lanes.advanceRecipients(changes, now))
          expect(many.changed).toEqual([0, 1, 3])
          expect(many.changed).toEqual(each.changed)
          const strip = (rows: typeof each.rows) => rows.map(({ id: _id, campaignId: _c, updatedAt: _u, phone: _p, input: _i, ...rest }) => rest)
          expect(strip(many.rows)).toEqual(strip(each.rows))
          expect(many.rows.slice(0, 4).map((r) => [r.status, r.operatorMessageId])).toEqual([
            ["sent", "wamid.0"],
            ["failed", "wamid.1"],
            ["sent", "wamid.earlier"],
            ["read", null]
          ])
          expect(many.rows.map((r) => r.failure)).toEqual([
            null,
            { code: 131_026, reason: expect.any(String), retryable: expect.any(Boolean) },
            null,
            null,
            null,
            null,
            null,
            null
          ])
          expect(yield* lanes.advanceRecipients([], now)).toEqual(new Set())
        })
    )

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
