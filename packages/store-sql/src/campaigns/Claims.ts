/**
 * A lane's claim (part of `CampaignLaneRepo`): under the campaign row's lock, the next pending
 * recipients from the cursor (within the rate limit's quota and, for a campaign with a send
 * window, those inside their window), the opted out among them skipped, the rest marked
 * `sending` with the lane's attempt in one range update, and the cursor moved past them.
 * The statements are compiled once (`prepare`): a lane claims several times a second.
 *
 * Two ways to find the range, with one result (`claimPath`; the contract
 * `campaigns-lanes.ts` runs both on the same recipients and compares them):
 * - `"range"` (campaigns without a send window): the range's last seq is read from the
 *   status index alone (the `limit`-th pending seq from the cursor), the opted out in the
 *   range are skipped by one update that looks each phone up in the opt-out list, and the
 *   range update's RETURNING is the claim: no row is read into the process twice;
 * - `"select"` (campaigns with a send window, which must see each row's time zone first):
 *   the pending rows are selected with their opt-out, then skipped and marked by id and range.
 */
import type { CampaignRecipient, CampaignRepo, TemplateSend } from "@switchboard/domain"
import { Effect } from "effect"
import { sql } from "kysely"
import { prepare } from "../internal/Prepared.js"
import type { Limits } from "./Limits.js"
import { changedRows, type Statements } from "./Statements.js"

type Lane = CampaignRepo.CampaignLaneRepo["Type"]
type Campaign = Parameters<Lane["claim"]>[0]
type ClaimInput = Parameters<Lane["claim"]>[1]

type CandidateParams = { campaignId: string; storeId: string; mode: string; cursor: number; limit: number }

/** Claim rounds at most that hold a whole claim's candidates outside their window before the claim answers nothing (the lane claims again within a second). */
const WINDOW_ROUNDS = 20

/** How a claim finds its range (see the module's comment): `"range"` is the default for campaigns without a send window. */
export type ClaimPath = "range" | "select"

export const make = (statements: Statements, limits: Limits, claimPath: ClaimPath = "range") => {
  const { db, kysely, q, exec, lock } = statements

  /** The pending recipients from the cursor, with whether each opted out. */
  const candidates = (p: CandidateParams) =>
    kysely
      .selectFrom("campaign_recipients as r")
      .leftJoin("opt_outs as o", (join) =>
        join
          .on("o.store_id", "=", p.storeId)
          .on("o.mode", "=", p.mode as "test")
          .onRef("o.phone", "=", "r.phone")
      )
      .where("r.campaign_id", "=", p.campaignId)
      .where("r.status", "=", "pending")
      .where("r.seq", ">=", p.cursor)
      .orderBy("r.seq")
      .limit(p.limit)

  const claimCandidates = prepare((p: CandidateParams) => candidates(p).select(["r.id", "r.seq", "r.phone", "r.parameters", "o.phone as opted_out"]))

  /** The claim's candidates of a campaign with a send window: with their time zones. */
  const claimCandidatesZoned = prepare((p: CandidateParams) =>
    candidates(p).select(["r.id", "r.seq", "r.phone", "r.parameters", "o.phone as opted_out", "r.zone_id"])
  )

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

  /** The seq of the `offset + 1`-th pending recipient from the cursor (the status index alone); none when fewer are pending. */
  const rangeEnd = prepare((p: { campaignId: string; cursor: number; offset: number }) =>
    kysely
      .selectFrom("campaign_recipients")
      .select("seq")
      .where("campaign_id", "=", p.campaignId)
      .where("status", "=", "pending")
      .where("seq", ">=", p.cursor)
      .orderBy("seq")
      .limit(1)
      .offset(p.offset)
  )

  /** Skips the pending recipients of a range whose phone is on the store's opt-out list. */
  const skipOptedOut = prepare((p: { campaignId: string; storeId: string; mode: string; from: number; to: number; now: number }) =>
    kysely
      .updateTable("campaign_recipients")
      .set({ status: "skipped", skip_reason: "opted_out", updated_at: p.now })
      .where("campaign_id", "=", p.campaignId)
      .where("status", "=", "pending")
      .where("seq", ">=", p.from)
      .where("seq", "<=", p.to)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("opt_outs as o")
            .select(sql<number>`1`.as("one"))
            .where("o.store_id", "=", p.storeId)
            .where("o.mode", "=", p.mode as "test")
            .whereRef("o.phone", "=", "campaign_recipients.phone")
        )
      )
      .returning("seq")
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

  const claim: Lane["claim"] = (campaign, input) =>
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
        const window = campaign.sendWindow ?? null
        if (window === null && claimPath === "range") {
          const end = (yield* exec(rangeEnd({ campaignId: campaign.id, cursor, offset: limit - 1 }))).rows[0]
          // fewer than `limit` pending from the cursor: all of them (the campaign's row is locked, so none is added meanwhile)
          const to = end === undefined ? Number.MAX_SAFE_INTEGER : Number(end.seq)
          const range = { campaignId: campaign.id, from: cursor, to }
          const { rows: opted } = yield* exec(skipOptedOut({ ...range, storeId: campaign.storeId, mode: campaign.mode, now: input.now }))
          const { rows: claimed } = yield* exec(markSending({ ...range, laneAttempt: input.laneAttempt, now: input.now }))
          if (claimed.length === 0 && opted.length === 0) return { recipients: [], skipped: 0 }
          let maxSeq = cursor
          for (const row of opted) if (Number(row.seq) > maxSeq) maxSeq = Number(row.seq)
          for (const row of claimed) if (Number(row.seq) > maxSeq) maxSeq = Number(row.seq)
          return yield* claimedRange(campaign, input, quota, cursor, maxSeq, claimed, opted.length)
        }
        const params = { campaignId: campaign.id, storeId: campaign.storeId, mode: campaign.mode, cursor, limit }
        let rows: ReadonlyArray<{ id: string; seq: number; phone: string | null; parameters: string | null; opted_out: string | null }>
        if (window === null) rows = (yield* exec(claimCandidates(params))).rows
        else {
          // recipients outside their window wait for it (their whole zone at once); the rest go
          for (let round = 0; ; round++) {
            const zoned = (yield* exec(claimCandidatesZoned(params))).rows
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
        return yield* claimedRange(campaign, input, quota, cursor, maxSeq, claimed, skipped)
      })
    )

  /** The end of a claim, both paths: the cursor moved past the range, the rows as recipients in seq order, the reach recorded. */
  const claimedRange = (
    campaign: Campaign,
    input: ClaimInput,
    quota: { readonly remaining: number } | null,
    cursor: number,
    maxSeq: number,
    claimed: ReadonlyArray<{ id: string; seq: number; phone: string | null; parameters: string | null }>,
    skipped: number
  ) =>
    Effect.gen(function* () {
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

  return { claim }
}
