/**
 * The `CampaignLaneRepo` port (what only the worker uses: status reports, the lanes and the
 * sweep) over the campaign tables. See `Statements.ts` for the locking order: claims lock
 * the campaign row first; the lane's outcomes touch only rows in `sending` that the lane
 * owns and lock the campaign row last; status reports touch only their recipient rows
 * (`RecipientReports.ts`) and record their counter change as an inserted delta row.
 *
 * The lane's statements are compiled once (`prepare`): a lane claims, records outcomes and
 * re-reads its campaigns several times a second.
 */
import { type Campaign, type CampaignRecipient, CampaignRepo, type TemplateSend, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import type { Database } from "../Database.js"
import { prepare } from "../internal/Prepared.js"
import type { SqlDialect } from "../SqlDialect.js"
import { recipientRefs, selectCampaigns, selectStoredCampaigns, toCampaign, toRef } from "./Columns.js"
import * as Audience from "./Audience.js"
import * as Limits from "./Limits.js"
import * as RecipientReports from "./RecipientReports.js"
import * as Statements from "./Statements.js"

const { changedRows } = Statements

/** Accepted outcomes per UPDATE. */
const ACCEPT_CHUNK = 64

export const make: Effect.Effect<CampaignRepo.CampaignLaneRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
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

  const claimCandidates = prepare((p: { campaignId: string; storeId: string; mode: string; cursor: number; limit: number }) =>
    kysely
      .selectFrom("campaign_recipients as r")
      .leftJoin("opt_outs as o", (join) =>
        join
          .on("o.store_id", "=", p.storeId)
          .on("o.mode", "=", p.mode as "test")
          .onRef("o.phone", "=", "r.phone")
      )
      .select(["r.id", "r.seq", "r.phone", "r.parameters", "o.phone as opted_out"])
      .where("r.campaign_id", "=", p.campaignId)
      .where("r.status", "=", "pending")
      .where("r.seq", ">=", p.cursor)
      .orderBy("r.seq")
      .limit(p.limit)
  )

  /** The claim's candidates of a campaign with a send window: with their time zones. */
  const claimCandidatesZoned = prepare((p: { campaignId: string; storeId: string; mode: string; cursor: number; limit: number }) =>
    kysely
      .selectFrom("campaign_recipients as r")
      .leftJoin("opt_outs as o", (join) =>
        join
          .on("o.store_id", "=", p.storeId)
          .on("o.mode", "=", p.mode as "test")
          .onRef("o.phone", "=", "r.phone")
      )
      .select(["r.id", "r.seq", "r.phone", "r.parameters", "o.phone as opted_out", "r.time_zone"])
      .where("r.campaign_id", "=", p.campaignId)
      .where("r.status", "=", "pending")
      .where("r.seq", ">=", p.cursor)
      .orderBy("r.seq")
      .limit(p.limit)
  )

  /** Claim rounds at most that hold a whole claim's candidates outside their window before the claim answers nothing (the lane claims again within a second). */
  const WINDOW_ROUNDS = 20

  const markSending = prepare((p: { campaignId: string; from: number; to: number; laneAttempt: string; now: number }) =>
    kysely
      .updateTable("campaign_recipients")
      .set({ status: "sending", lane_attempt: p.laneAttempt, sending_at: p.now, updated_at: p.now })
      .where("campaign_id", "=", p.campaignId)
      .where("status", "=", "pending")
      .where("seq", ">=", p.from)
      .where("seq", "<=", p.to)
      .returning(["id", "seq", "phone", "parameters"])
  )

  /** Moves the cursor past a claim unless someone lowered it meanwhile (a retry, a release), and counts the skipped. */
  const advanceCursor = prepare((p: { id: string; cursor: number; next: number; skipped: number }) =>
    kysely
      .updateTable("campaigns")
      .set((eb) => ({
        cursor_seq: sql<number>`(case when cursor_seq = ${p.cursor} then ${p.next} else cursor_seq end)`,
        skipped: eb("skipped", "+", p.skipped),
        pending: eb("pending", "-", p.skipped)
      }))
      .where("id", "=", p.id)
  )

  /** Accepted outcomes, ACCEPT_CHUNK at a time, padded with ids that match nothing: one statement compiled once. */
  const acceptStatement = prepare((p: Record<string, unknown>) =>
    kysely
      .updateTable("campaign_recipients")
      .set({
        status: "accepted",
        lane_attempt: null,
        operator_message_id: sql<string>`(case id ${sql.join(
          Array.from({ length: ACCEPT_CHUNK }, (_, i) => sql`when ${p[`id${i}`]} then ${p[`wamid${i}`]}`),
          sql` `
        )} end)`,
        updated_at: p.now as number
      })
      .where(
        "id",
        "in",
        Array.from({ length: ACCEPT_CHUNK }, (_, i) => p[`id${i}`] as string)
      )
      .where("status", "=", "sending")
      .where("lane_attempt", "=", p.laneAttempt as string)
  )

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

    activeOfLane: (phoneNumberId) => exec(activeOfLaneQuery({ phoneNumberId })).pipe(Effect.map(({ rows }) => rows.map(toCampaign))),

    claim: (campaign, input) =>
      db.withTransaction(
        Effect.gen(function* () {
          const locked = yield* lock(campaign.id)
          if (locked === undefined || locked.status !== "active") return { recipients: [], skipped: 0 }
          const due = locked.limited_until !== null && Number(locked.limited_until) <= input.now
          const cursor = Math.min(Number(locked.cursor_seq), due ? yield* limits.releaseDue(campaign.id, input.now) : Number.MAX_SAFE_INTEGER)
          const quota = input.windowMs === undefined ? null : yield* limits.quota(campaign, input.windowMs, input.now)
          if (quota !== null && quota.remaining === 0) {
            yield* limits.hold(campaign.id, "waiting_for_limit", quota.freesAt, input.now)
            return { recipients: [], skipped: 0 }
          }
          const limit = quota === null ? input.limit : Math.min(input.limit, quota.remaining)
          const candidates = { campaignId: campaign.id, storeId: campaign.storeId, mode: campaign.mode, cursor, limit }
          const window = campaign.sendWindow ?? null
          let rows: ReadonlyArray<{ id: string; seq: number; phone: string | null; parameters: string | null; opted_out: string | null }>
          if (window === null) rows = (yield* exec(claimCandidates(candidates))).rows
          else {
            // recipients outside their window wait for it (their whole zone at once); the rest go
            for (let round = 0; ; round++) {
              const zoned = (yield* exec(claimCandidatesZoned(candidates))).rows
              rows = yield* limits.holdOutsideWindow(campaign.id, window, zoned, input.now)
              if (rows.length > 0 || zoned.length === 0 || round + 1 >= WINDOW_ROUNDS) break
            }
          }
          if (rows.length === 0) return { recipients: [], skipped: 0 }
          const opted: Array<string> = []
          let maxSeq = cursor
          for (const row of rows) {
            if (row.opted_out !== null) opted.push(row.id)
            if (Number(row.seq) > maxSeq) maxSeq = Number(row.seq)
          }
          let skipped = 0
          if (opted.length > 0) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({ status: "skipped", skip_reason: "opted_out", updated_at: input.now })
                .where("id", "in", opted)
                .where("status", "=", "pending")
                .executeTakeFirst()
            )
            skipped = changedRows(result)
          }
          // every pending row in [cursor, maxSeq] is one the select found (or one a release just
          // put back, which is as good): one range update, its RETURNING is what was claimed
          const { rows: claimed } = yield* exec(
            markSending({ campaignId: campaign.id, from: cursor, to: maxSeq, laneAttempt: input.laneAttempt, now: input.now })
          )
          yield* exec(advanceCursor({ id: campaign.id, cursor, next: maxSeq + 1, skipped }))
          const recipients = claimed
            .map((r) => ({
              id: r.id as CampaignRecipient.RecipientId,
              seq: Number(r.seq),
              phone: r.phone!,
              parameters: r.parameters === null ? null : (JSON.parse(r.parameters) as TemplateSend.FrozenParameters)
            }))
            .sort((a, b) => a.seq - b.seq)
          if (quota !== null)
            yield* limits.recordReach(
              campaign,
              recipients.map((r) => r.phone),
              input.windowMs!,
              input.now
            )
          return { recipients, skipped }
        })
      ),

    recordOutcomes: (campaignId, laneAttempt, outcomes, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if (outcomes.accepted.length === 0 && outcomes.failed.length === 0 && outcomes.released.length === 0) {
            return { accepted: 0, failed: 0, released: 0 }
          }
          // Recipient rows first, the campaign row last (in addToCounters), so the campaign row is
          // not held while these rows wait for a status report's transaction to commit. No
          // writer that locks the campaign row first touches rows in `sending` of a live lane.
          let accepted = 0
          for (let start = 0; start < outcomes.accepted.length; start += ACCEPT_CHUNK) {
            const chunk = outcomes.accepted.slice(start, start + ACCEPT_CHUNK)
            const params: Record<string, unknown> = { laneAttempt, now }
            for (let i = 0; i < ACCEPT_CHUNK; i++) {
              params[`id${i}`] = i < chunk.length ? chunk[i].id : ""
              params[`wamid${i}`] = i < chunk.length ? chunk[i].operatorMessageId : null
            }
            accepted += Number((yield* exec(acceptStatement(params))).numAffectedRows ?? 0n)
          }
          let failed = 0
          const groups = new Map<string, { code: number; reason: string; retryable: boolean; ids: Array<string> }>()
          for (const f of outcomes.failed) {
            const key = `${f.code}\u0000${f.retryable}\u0000${f.reason}`
            let group = groups.get(key)
            if (group === undefined) {
              group = { code: f.code, reason: f.reason, retryable: f.retryable, ids: [] }
              groups.set(key, group)
            }
            group.ids.push(f.id)
          }
          for (const group of groups.values()) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({
                  status: "failed",
                  failure_code: group.code,
                  failure_reason: group.reason,
                  retryable: group.retryable ? 1 : 0,
                  lane_attempt: null,
                  updated_at: now
                })
                .where("id", "in", group.ids)
                .where("status", "=", "sending")
                .where("lane_attempt", "=", laneAttempt)
                .executeTakeFirst()
            )
            failed += changedRows(result)
          }
          let released = 0
          let minSeq: number | undefined
          if (outcomes.released.length > 0) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({ status: "pending", lane_attempt: null, sending_at: null, updated_at: now })
                .where(
                  "id",
                  "in",
                  outcomes.released.map((r) => r.id)
                )
                .where("status", "=", "sending")
                .where("lane_attempt", "=", laneAttempt)
                .executeTakeFirst()
            )
            released = changedRows(result)
            for (const r of outcomes.released) if (minSeq === undefined || r.seq < minSeq) minSeq = r.seq
          }
          yield* addToCounters(campaignId, { pending: -(accepted + failed), failed }, released > 0 ? minSeq : undefined)
          return { accepted, failed, released }
        })
      ),

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
        k.selectFrom("campaigns").select(["id", "store_id", "mode"]).where("status", "=", "cancelled").where("pending", ">", 0).limit(limit).execute()
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

export const layer: Layer.Layer<CampaignRepo.CampaignLaneRepo, never, Database | SqlDialect> = Layer.effect(CampaignRepo.CampaignLaneRepo, make)
