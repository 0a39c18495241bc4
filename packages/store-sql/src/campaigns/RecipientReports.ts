/**
 * What status reports write to campaign recipients (part of `CampaignLaneRepo`): one
 * report's compare-and-set (`advanceRecipient`), a batch's recipients read (and locked in
 * the order of their ids on PostgreSQL) at once (`findRecipients`), and the batch's
 * compare-and-sets in one statement (`advanceRecipients`): an UPDATE … FROM a VALUES list of
 * each row's own change (the progress it was read in, where it goes, failure, wamid), which
 * answers the ids it changed. A row's change is the one `advanceRecipient` makes: status and
 * times from the progress read (`is not distinct from`: a NULL time matches a NULL), the
 * failure when there is one, the lane's mark cleared when it leaves `sending`, `pending` or
 * `cancelled`, the wamid only filled in. VALUES cells are cast so PostgreSQL knows their
 * types. SQLite reads the whole table for such an UPDATE (`SqlDialect.updateFromValues`): there
 * each row's change is its own statement, compiled once, run at once on the in-process
 * connection.
 */
import type { CampaignRecipient, CampaignRepo } from "@switchboard/domain"
import { Effect } from "effect"
import { sql } from "kysely"
import * as Chunks from "../internal/Chunks.js"
import { prepareSql } from "../internal/Prepared.js"
import { SqlDialect } from "../SqlDialect.js"
import { recipientRefs, toRef } from "./Columns.js"
import type { Statements } from "./Statements.js"

type Lane = CampaignRepo.CampaignLaneRepo["Type"]

/** The lane's mark goes when the recipient leaves one of these (as in `advanceRecipient`). */
const clearsLane = (status: CampaignRecipient.Status) => status === "sending" || status === "pending" || status === "cancelled"

export const make = (statements: Statements, addCounterDelta: Lane["addCounterDelta"]) =>
  Effect.gen(function* () {
    const { q } = statements
    const dialect = yield* SqlDialect

    const findRecipients: Lane["findRecipients"] = (storeId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : q((k) =>
            recipientRefs(k)
              .where("r.id", "in", ids)
              .where("c.store_id", "=", storeId)
              .orderBy("r.id")
              .$if(dialect.lockRows, (s) => s.forUpdate("r"))
              .execute()
          ).pipe(Effect.map((rows) => rows.map(toRef)))

    const advanceRecipient: Lane["advanceRecipient"] = (ref, next, operatorMessageId, delta, now) =>
      Effect.gen(function* () {
        const from = ref.progress
        const result = yield* q((k) =>
          k
            .updateTable("campaign_recipients")
            .set((eb) => ({
              status: next.status,
              sent_at: next.sentAt,
              delivered_at: next.deliveredAt,
              read_at: next.readAt,
              ...(next.failure !== null
                ? { failure_code: next.failure.code, failure_reason: next.failure.reason, retryable: next.failure.retryable ? 1 : 0 }
                : {}),
              ...(clearsLane(from.status) ? { lane_attempt: null } : {}),
              ...(operatorMessageId !== null ? { operator_message_id: eb.fn.coalesce("operator_message_id", eb.val(operatorMessageId)) } : {}),
              updated_at: now
            }))
            .where("id", "=", ref.id)
            .where("status", "=", from.status)
            .where("sent_at", from.sentAt === null ? "is" : "=", from.sentAt)
            .where("delivered_at", from.deliveredAt === null ? "is" : "=", from.deliveredAt)
            .where("read_at", from.readAt === null ? "is" : "=", from.readAt)
            .executeTakeFirst()
        )
        if (Number(result.numUpdatedRows) === 0) return false
        yield* addCounterDelta(ref.campaignId, delta)
        return true
      })

    const row = ({ ref, next, operatorMessageId }: CampaignRepo.RecipientChange) => {
      const from = ref.progress
      const failure = next.failure
      return sql`(cast(${ref.id} as text), cast(${from.status} as text), cast(${from.sentAt} as bigint), cast(${from.deliveredAt} as bigint), cast(${from.readAt} as bigint), cast(${next.status} as text), cast(${next.sentAt} as bigint), cast(${next.deliveredAt} as bigint), cast(${next.readAt} as bigint), cast(${failure === null ? 0 : 1} as integer), cast(${failure?.code ?? null} as integer), cast(${failure?.reason ?? null} as text), cast(${failure?.retryable ? 1 : 0} as integer), cast(${clearsLane(from.status) ? 1 : 0} as integer), cast(${operatorMessageId} as text))`
    }

    const advanceMany = (changes: ReadonlyArray<CampaignRepo.RecipientChange>, now: number) =>
      sql<{
        readonly id: string
      }>`with v (id, from_status, from_sent, from_delivered, from_read, status, sent_at, delivered_at, read_at, has_failure, failure_code, failure_reason, retryable, clear_lane, wamid) as (values ${sql.join(changes.map(row))})
      update campaign_recipients set
        status = v.status,
        sent_at = v.sent_at,
        delivered_at = v.delivered_at,
        read_at = v.read_at,
        failure_code = case when v.has_failure = 1 then v.failure_code else campaign_recipients.failure_code end,
        failure_reason = case when v.has_failure = 1 then v.failure_reason else campaign_recipients.failure_reason end,
        retryable = case when v.has_failure = 1 then v.retryable else campaign_recipients.retryable end,
        lane_attempt = case when v.clear_lane = 1 then null else campaign_recipients.lane_attempt end,
        operator_message_id = coalesce(campaign_recipients.operator_message_id, v.wamid),
        updated_at = ${now}
      from v
      where campaign_recipients.id = v.id
        and campaign_recipients.status = v.from_status
        and campaign_recipients.sent_at is not distinct from v.from_sent
        and campaign_recipients.delivered_at is not distinct from v.from_delivered
        and campaign_recipients.read_at is not distinct from v.from_read
      returning campaign_recipients.id`

    /** One row's change of `advanceMany`, compiled once: where UPDATE … FROM reads the whole table (`SqlDialect.updateFromValues`). */
    const advanceOne = prepareSql(
      statements.kysely,
      (p: Record<string, unknown>) =>
        sql`update campaign_recipients set
          status = ${p.status},
          sent_at = ${p.sent_at},
          delivered_at = ${p.delivered_at},
          read_at = ${p.read_at},
          failure_code = case when ${p.has_failure} = 1 then ${p.failure_code} else failure_code end,
          failure_reason = case when ${p.has_failure} = 1 then ${p.failure_reason} else failure_reason end,
          retryable = case when ${p.has_failure} = 1 then ${p.retryable} else retryable end,
          lane_attempt = case when ${p.clear_lane} = 1 then null else lane_attempt end,
          operator_message_id = coalesce(operator_message_id, ${p.wamid}),
          updated_at = ${p.now}
        where id = ${p.id}
          and status = ${p.from_status}
          and sent_at is not distinct from ${p.from_sent}
          and delivered_at is not distinct from ${p.from_delivered}
          and read_at is not distinct from ${p.from_read}`
    )

    const advanceRecipients: Lane["advanceRecipients"] = (changes, now) =>
      dialect.updateFromValues
        ? Effect.map(
            Chunks.forEach(changes, 400, (group) => q((k) => advanceMany(group, now).execute(k))),
            (results) => new Set(results.flatMap(({ rows }) => rows.map((r) => r.id as CampaignRecipient.RecipientId)))
          )
        : Effect.gen(function* () {
            const changed = new Set<CampaignRecipient.RecipientId>()
            for (const { ref, next, operatorMessageId } of changes) {
              const from = ref.progress
              const failure = next.failure
              const result = yield* statements.exec(
                advanceOne({
                  id: ref.id,
                  from_status: from.status,
                  from_sent: from.sentAt,
                  from_delivered: from.deliveredAt,
                  from_read: from.readAt,
                  status: next.status,
                  sent_at: next.sentAt,
                  delivered_at: next.deliveredAt,
                  read_at: next.readAt,
                  has_failure: failure === null ? 0 : 1,
                  failure_code: failure?.code ?? null,
                  failure_reason: failure?.reason ?? null,
                  retryable: failure?.retryable ? 1 : 0,
                  clear_lane: clearsLane(from.status) ? 1 : 0,
                  wamid: operatorMessageId,
                  now
                })
              )
              if ((result.numAffectedRows ?? 0n) > 0n) changed.add(ref.id)
            }
            return changed
          })

    return { findRecipients, advanceRecipient, advanceRecipients }
  })
