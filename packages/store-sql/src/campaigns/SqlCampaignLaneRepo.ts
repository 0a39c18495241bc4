/**
 * The `CampaignLaneRepo` port (what only the worker uses: status reports, the lanes and the
 * sweep) over the campaign tables. See `Statements.ts` for the locking order: claims lock
 * the campaign row first; the lane's outcomes touch only rows in `sending` that the lane
 * owns and lock the campaign row last; status reports touch only their recipient rows
 * (`RecipientReports.ts`) and record their counter change as an inserted delta row.
 *
 * The lane's statements are compiled once (`prepare`): a lane claims (`Claims.ts`), records
 * outcomes (`Outcomes.ts`) and re-reads its campaigns several times a second.
 */
import { type Campaign, CampaignRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import type { Database } from "../Database.js"
import { prepare } from "../internal/Prepared.js"
import type { SqlDialect } from "../SqlDialect.js"
import { recipientRefs, selectCampaigns, selectStoredCampaigns, toCampaign, toRef } from "./Columns.js"
import * as Audience from "./Audience.js"
import * as Claims from "./Claims.js"
import * as LaneCampaigns from "./LaneCampaigns.js"
import * as Limits from "./Limits.js"
import * as Outcomes from "./Outcomes.js"
import * as RecipientReports from "./RecipientReports.js"
import * as Statements from "./Statements.js"

const { changedRows } = Statements

/** What a repository may be built with besides the defaults: the claim's path (`Claims.ts`; the contract compares both). */
export interface MakeOptions {
  readonly claimPath?: Claims.ClaimPath
}

export const makeWith = (options: MakeOptions = {}): Effect.Effect<CampaignRepo.CampaignLaneRepo["Type"], never, Database | SqlDialect> =>
  Effect.gen(function* () {
    const statements = yield* Statements.make
    const { db, kysely, q, exec, get, lock, addToCounters, compactCounters, lockLane } = statements

    /** Without the unfolded counter deltas: the lane reads a campaign's settings every 100 ms, never its counters. */
    const activeOfLaneQuery = prepare((p: { phoneNumberId: string }) =>
      selectStoredCampaigns(kysely)
        .where("c.status", "=", "active")
        .where("c.phone_number_id", "=", p.phoneNumberId)
        .orderBy("c.launched_at")
        .orderBy("c.id")
    )

    /** The lane's campaigns, decoded again only when more than their counters changed. */
    const toLaneCampaign = LaneCampaigns.make()

    const findRecipientQuery = prepare((p: { id: string; storeId: string }) =>
      recipientRefs(kysely).where("r.id", "=", p.id).where("c.store_id", "=", p.storeId)
    )

    const insertDelta = prepare(
      (p: { campaignId: string; pending: number; cancelled: number; sent: number; delivered: number; read: number; failed: number }) =>
        kysely.insertInto("campaign_counter_deltas").values({
          campaign_id: p.campaignId,
          pending: p.pending,
          cancelled: p.cancelled,
          sent: p.sent,
          delivered: p.delivered,
          read: p.read,
          failed: p.failed
        })
    )

    /** Adds a row of counter deltas (folded into the campaign by `compactCounters`); nothing for an all-zero delta. */
    const addCounterDelta = (campaignId: Campaign.CampaignId, delta: Partial<Campaign.Counters>) => {
      const d = {
        campaignId,
        pending: delta.pending ?? 0,
        cancelled: delta.cancelled ?? 0,
        sent: delta.sent ?? 0,
        delivered: delta.delivered ?? 0,
        read: delta.read ?? 0,
        failed: delta.failed ?? 0
      }
      const zero = d.pending === 0 && d.cancelled === 0 && d.sent === 0 && d.delivered === 0 && d.read === 0 && d.failed === 0
      return zero ? Effect.void : Effect.asVoid(exec(insertDelta(d)))
    }

    const reports = yield* RecipientReports.make(statements, addCounterDelta)
    const limits = Limits.make(statements)
    const claims = Claims.make(statements, limits, options.claimPath)
    const outcomes = Outcomes.make(statements)

    return CampaignRepo.CampaignLaneRepo.of({
      get,

      compactCounters,

      findRecipient: (storeId, recipientId) =>
        exec(findRecipientQuery({ id: recipientId, storeId })).pipe(Effect.map(({ rows }) => Option.map(Option.fromNullable(rows[0]), toRef))),

      findRecipients: reports.findRecipients,

      addCounterDelta,

      advanceRecipient: reports.advanceRecipient,

      advanceRecipients: reports.advanceRecipients,

      recordPricing: Audience.make(statements).recordPricing,

      activeOfLane: (phoneNumberId) => exec(activeOfLaneQuery({ phoneNumberId })).pipe(Effect.map(({ rows }) => rows.map(toLaneCampaign))),

      claim: claims.claim,

      recordOutcomes: outcomes.recordOutcomes,

      hasSending: (id) =>
        q((k) =>
          k.selectFrom("campaign_recipients").select("id").where("campaign_id", "=", id).where("status", "=", "sending").limit(1).executeTakeFirst()
        ).pipe(Effect.map((row) => row !== undefined)),

      hasStaleSending: (id, sendingBefore) =>
        q((k) =>
          k
            .selectFrom("campaign_recipients")
            .select("id")
            .where("campaign_id", "=", id)
            .where("status", "=", "sending")
            .where("sending_at", "<", sendingBefore)
            .limit(1)
            .executeTakeFirst()
        ).pipe(Effect.map((row) => row !== undefined)),

      reconcile: (id, input) =>
        db.withTransaction(
          Effect.gen(function* () {
            if ((yield* lock(id)) === undefined) return 0
            const rows = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({ status: input.to, lane_attempt: null, sending_at: null, updated_at: input.now })
                .where("campaign_id", "=", id)
                .where("status", "=", "sending")
                .where("sending_at", "<", input.sendingBefore)
                .returning("seq")
                .execute()
            )
            const n = rows.length
            if (n === 0) return 0
            if (input.to === "pending") {
              yield* addToCounters(id, {}, Math.min(...rows.map((r) => Number(r.seq))))
            } else {
              yield* addToCounters(id, { pending: -n, cancelled: n })
            }
            return n
          })
        ),

      completeIfDone: (campaignId, now) =>
        Effect.gen(function* () {
          const result = yield* q((k) =>
            k
              .updateTable("campaigns")
              .set({ status: "completed", completed_at: now, updated_at: now })
              .where("id", "=", campaignId)
              .where("status", "=", "active")
              .where((eb) =>
                eb.not(
                  eb.exists(
                    eb
                      .selectFrom("campaign_recipients")
                      .select("id")
                      .where("campaign_id", "=", campaignId)
                      .where("status", "in", ["pending", "sending", ...Limits.WAITING])
                  )
                )
              )
              .executeTakeFirst()
          )
          return changedRows(result) === 0 ? Option.none() : yield* get(campaignId)
        }),

      dueScheduled: (now, limit) =>
        q((k) =>
          selectCampaigns(k).where("c.status", "=", "scheduled").where("c.scheduled_at", "<=", now).orderBy("c.scheduled_at").limit(limit).execute()
        ).pipe(Effect.map((rows) => rows.map(toCampaign))),

      cancelledWithPending: (limit) =>
        q((k) =>
          k
            .selectFrom("campaigns")
            .select(["id", "store_id", "mode"])
            .where("status", "=", "cancelled")
            .where("pending", ">", 0)
            .limit(limit)
            .execute()
        ).pipe(Effect.map((rows) => rows.map((r) => ({ id: r.id as Campaign.CampaignId, storeId: r.store_id as Tenant.StoreId, mode: r.mode })))),

      activeLanes: () =>
        q((k) =>
          k
            .selectFrom("campaigns")
            .select(["store_id", "mode", "phone_number_id"])
            .distinct()
            .where("status", "=", "active")
            .where("phone_number_id", "is not", null)
            .execute()
        ).pipe(
          Effect.map((rows) =>
            rows.map((r) => ({ tenant: { storeId: r.store_id as Tenant.StoreId, mode: r.mode }, phoneNumberId: r.phone_number_id! }))
          )
        ),

      withUncompactedCounters: (limit) =>
        q((k) => k.selectFrom("campaign_counter_deltas").select("campaign_id").distinct().limit(limit).execute()).pipe(
          Effect.map((rows) => rows.map((r) => r.campaign_id as Campaign.CampaignId))
        ),

      lockLane
    })
  })

export const make: Effect.Effect<CampaignRepo.CampaignLaneRepo["Type"], never, Database | SqlDialect> = makeWith()

export const layer: Layer.Layer<CampaignRepo.CampaignLaneRepo, never, Database | SqlDialect> = Layer.effect(CampaignRepo.CampaignLaneRepo, make)
