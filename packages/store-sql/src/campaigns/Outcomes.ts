/**
 * A lane's outcomes (part of `CampaignLaneRepo`): the accepted, failed and released recipients
 * of a claim, each moved out of `sending` only while the lane's attempt still owns it. Recipient
 * rows first, the campaign row last (in `addToCounters`), so the campaign row is not held while
 * these rows wait for a status report's transaction to commit. No writer that locks the
 * campaign row first touches rows in `sending` of a live lane.
 */
import type { CampaignRepo } from "@switchboard/domain"
import { Effect } from "effect"
import { sql } from "kysely"
import { prepare } from "../internal/Prepared.js"
import { changedRows, type Statements } from "./Statements.js"

type Lane = CampaignRepo.CampaignLaneRepo["Type"]

/** Accepted outcomes per UPDATE. */
const ACCEPT_CHUNK = 64

export const make = (statements: Statements) => {
  const { db, kysely, q, exec, addToCounters } = statements

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

  const recordOutcomes: Lane["recordOutcomes"] = (campaignId, laneAttempt, outcomes, now) =>
    db.withTransaction(
      Effect.gen(function* () {
        if (outcomes.accepted.length === 0 && outcomes.failed.length === 0 && outcomes.released.length === 0) {
          return { accepted: 0, failed: 0, released: 0 }
        }
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
    )

  return { recordOutcomes }
}
