/**
 * The `CampaignRepo` port (what routes reach) over `campaigns`, `campaign_recipients`,
 * `campaign_counter_deltas` and `campaign_lanes` (migration 0003). Every statement is scoped
 * by the tenant: reads and updates name its store and mode, and the multi-row writes lock
 * the campaign row in the tenant first (see `Statements.ts` for the locking order), so a
 * tenant check costs no extra query.
 */
import { CampaignRepo, Pagination, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { type ExpressionBuilder, sql } from "kysely"
import type { Database } from "../Database.js"
import { ownedBy, scoped, scopedDelete, scopedUpdate } from "../internal/Scoped.js"
import type { SqlDialect } from "../SqlDialect.js"
import { campaignColumns, DELTA_COLUMNS, recipientColumns, recipientSelection, selectCampaigns, toCampaign } from "./Columns.js"
import * as Audience from "./Audience.js"
import * as Ingest from "./Ingest.js"
import * as Limits from "./Limits.js"
import { WAITING } from "./Limits.js"
import * as Statements from "./Statements.js"
import type { CampaignDatabase } from "./Tables.js"

const { changedRows } = Statements
/** The counter a recipient of `status` counts in, besides `total` (`sent`, `delivered`, `read` are never a draft's). */
const counterOf = (status: string): keyof Statements.CounterDelta | undefined =>
  status === "pending" || status === "sending" || status === "waiting_for_limit" || status === "waiting_for_window"
    ? "pending"
    : status === "skipped" || status === "cancelled" || status === "failed"
      ? status
      : undefined

/** Recipients a cancel turns into cancelled at once: not sent, not being sent. */
const CANCELLABLE = ["pending", ...WAITING]

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v))

export const make: Effect.Effect<CampaignRepo.CampaignRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const s = yield* Statements.make
  const { db, kysely, q, get, lockOwned, addToCounters, lockLane } = s
  const addRecipients = yield* Ingest.make(s)

  /** The tenant's campaign `id` exists (an uncorrelated sub-select, evaluated once per statement). */
  const owned = (tenant: Tenant.Tenant, id: string) => (eb: ExpressionBuilder<CampaignDatabase, "campaign_recipients">) =>
    eb.exists(scoped(kysely, "campaigns", tenant).select("id").where("id", "=", id))

  const limits = Limits.make(s)

  return CampaignRepo.CampaignRepo.of({
    insert: (tenant, c) =>
      q((k) =>
        k
          .insertInto("campaigns")
          .values({ ...campaignColumns.toRow(c), store_id: tenant.storeId, mode: tenant.mode, next_seq: 0, cursor_seq: 0 })
          .execute()
      ).pipe(Effect.asVoid),

    findById: (tenant, id) =>
      q((k) => selectCampaigns(k).where("c.id", "=", id).where(ownedBy("c", tenant)).executeTakeFirst()).pipe(
        Effect.map((row) => Option.map(Option.fromNullable(row), toCampaign))
      ),

    list: (tenant, query) =>
      q((k) =>
        selectCampaigns(k)
          .where(ownedBy("c", tenant))
          .$if(query.status !== undefined, (w) => w.where("c.status", "=", query.status!))
          .$if(query.after !== undefined, (w) => w.where("c.id", "<", query.after!))
          .orderBy("c.id", "desc")
          .limit(query.limit + 1)
          .execute()
      ).pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(toCampaign), query.limit))),

    updateDraft: (tenant, id, patch, now) =>
      Effect.gen(function* () {
        const set: Record<string, unknown> = { updated_at: now }
        const column = campaignColumns.column
        if (patch.name !== undefined) set[column.name] = patch.name
        if (patch.templateName !== undefined) set[column.templateName] = patch.templateName
        if (patch.templateLanguage !== undefined) set[column.templateLanguage] = patch.templateLanguage
        if (patch.parameters !== undefined) set[column.parameters] = JSON.stringify(patch.parameters)
        if (patch.templateHeader !== undefined) set.template_header = patch.templateHeader === null ? null : JSON.stringify(patch.templateHeader)
        if (patch.headerParameters !== undefined) set[column.headerParameters] = JSON.stringify(patch.headerParameters)
        if (patch.buttonParameters !== undefined) set[column.buttonParameters] = JSON.stringify(patch.buttonParameters)
        if (patch.scheduledAt !== undefined) set[column.scheduledAt] = patch.scheduledAt
        if (patch.messagesPerSecond !== undefined) set[column.messagesPerSecond] = patch.messagesPerSecond
        if (patch.sendWindow !== undefined) set[column.sendWindow] = patch.sendWindow === null ? null : JSON.stringify(patch.sendWindow)
        const result = yield* q((k) =>
          scopedUpdate(k, "campaigns", tenant).set(set).where("id", "=", id).where("status", "=", "draft").executeTakeFirst()
        )
        return changedRows(result) === 0 ? Option.none() : yield* get(id)
      }),

    deleteDraft: (tenant, id) =>
      q((k) => scopedDelete(k, "campaigns", tenant).where("id", "=", id).where("status", "=", "draft").executeTakeFirst()).pipe(
        Effect.map((result) => Number(result.numDeletedRows) > 0)
      ),

    transition: (tenant, id, change) =>
      Effect.gen(function* () {
        if (change.from.length === 0) return Option.none()
        const s = change.set ?? {}
        const set: Record<string, unknown> = { status: change.to, updated_at: change.now }
        if (s.pausedReason !== undefined) set.paused_reason = s.pausedReason
        if (s.templateCategory !== undefined) set.template_category = s.templateCategory
        if (s.templateComponents !== undefined) set.template_components = JSON.stringify(s.templateComponents)
        if (s.templateHeader !== undefined) set.template_header = s.templateHeader === null ? null : JSON.stringify(s.templateHeader)
        if (s.phoneNumberId !== undefined) set.phone_number_id = s.phoneNumberId
        if (s.launchedAt !== undefined) set.launched_at = s.launchedAt
        if (s.completedAt !== undefined) set.completed_at = s.completedAt
        if (s.cancelledAt !== undefined) set.cancelled_at = s.cancelledAt
        const result = yield* q((k) =>
          scopedUpdate(k, "campaigns", tenant).set(set).where("id", "=", id).where("status", "in", change.from).executeTakeFirst()
        )
        return changedRows(result) === 0 ? Option.none() : yield* get(id)
      }),

    addRecipients,

    removeRecipient: (tenant, id, recipientId, whileStatus) =>
      db.withTransaction(
        Effect.gen(function* () {
          const locked = yield* lockOwned(tenant, id)
          if (locked === undefined) return "not_found" as const
          const row = yield* q((k) =>
            k.selectFrom("campaign_recipients").select("status").where("id", "=", recipientId).where("campaign_id", "=", id).executeTakeFirst()
          )
          if (row === undefined) return "not_found" as const
          if (!whileStatus.includes(locked.status as never)) return "refused" as const
          yield* q((k) => k.deleteFrom("campaign_recipients").where("id", "=", recipientId).where("campaign_id", "=", id).execute())
          const counter = counterOf(row.status)
          yield* addToCounters(id, counter === undefined ? { total: -1 } : { total: -1, [counter]: -1 })
          return "removed" as const
        })
      ),

    listRecipients: (tenant, id, query) =>
      q((k) =>
        k
          .selectFrom("campaign_recipients")
          .select(recipientSelection)
          .where("campaign_id", "=", id)
          .where(owned(tenant, id))
          .$if(query.status !== undefined, (w) => w.where("status", "=", query.status!))
          .$if(query.afterSeq !== undefined, (w) => w.where("seq", ">", query.afterSeq!))
          .orderBy("seq")
          .limit(query.limit + 1)
          .execute()
      ).pipe(
        Effect.map((rows) =>
          Pagination.sliceOf(
            rows.map((row) => recipientColumns.fromRow(row as never)),
            query.limit
          )
        )
      ),

    hasPending: (tenant, id) =>
      q((k) =>
        k
          .selectFrom("campaign_recipients")
          .select("id")
          .where("campaign_id", "=", id)
          .where("status", "=", "pending")
          .where(owned(tenant, id))
          .limit(1)
          .executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

    skipOptedOut: (tenant, id, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lockOwned(tenant, id)) === undefined) return 0
          const result = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "skipped", skip_reason: "opted_out", updated_at: now })
              .where("campaign_id", "=", id)
              .where("status", "=", "pending")
              .where("phone", "in", scoped(k, "opt_outs", tenant).select("phone"))
              .executeTakeFirst()
          )
          const n = changedRows(result)
          yield* addToCounters(id, { pending: -n, skipped: n })
          return n
        })
      ),

    retryFailed: (tenant, id, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lockOwned(tenant, id)) === undefined) return 0
          const found = yield* q((k) =>
            k
              .selectFrom("campaign_recipients")
              .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<number>("seq").as("min_seq")])
              .where("campaign_id", "=", id)
              .where("status", "=", "failed")
              .where("retryable", "=", 1)
              .executeTakeFirstOrThrow()
          )
          if (Number(found.n) === 0) return 0
          const result = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({
                status: "pending",
                failure_code: null,
                failure_reason: null,
                retryable: 0,
                lane_attempt: null,
                sending_at: null,
                operator_message_id: null,
                updated_at: now
              })
              .where("campaign_id", "=", id)
              .where("status", "=", "failed")
              .where("retryable", "=", 1)
              .executeTakeFirst()
          )
          const n = changedRows(result)
          yield* addToCounters(id, { pending: n, failed: -n }, Number(found.min_seq))
          return n
        })
      ),

    cancelPending: (tenant, id, input) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lockOwned(tenant, id)) === undefined) return 0
          const pending = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "cancelled", updated_at: input.now })
              .where("id", "in", (eb) =>
                eb
                  .selectFrom("campaign_recipients")
                  .select("id")
                  .where("campaign_id", "=", id)
                  .where("status", "in", CANCELLABLE)
                  .orderBy("seq")
                  .limit(input.limit)
              )
              .where("status", "in", CANCELLABLE)
              .executeTakeFirst()
          )
          const stale = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "cancelled", lane_attempt: null, updated_at: input.now })
              .where("campaign_id", "=", id)
              .where("status", "=", "sending")
              .where("sending_at", "<", input.staleSendingBefore)
              .executeTakeFirst()
          )
          const n = changedRows(pending) + changedRows(stale)
          yield* addToCounters(id, { pending: -n, cancelled: n })
          return n
        })
      ),

    recount: (tenant, id) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lockOwned(tenant, id)) === undefined) return Option.none()
          // rows and deltas in one statement (one snapshot): base = recount - deltas, so base + deltas = recount
          const counted = yield* q((k) =>
            k
              .selectFrom("campaign_recipients")
              .select((eb) => [
                eb.fn.countAll<number>().as("total"),
                sql<number>`coalesce(sum(case when status in ('pending', 'sending', 'waiting_for_limit', 'waiting_for_window') then 1 else 0 end), 0)`.as(
                  "pending"
                ),
                sql<number>`coalesce(sum(case when status = 'skipped' then 1 else 0 end), 0)`.as("skipped"),
                sql<number>`coalesce(sum(case when status = 'cancelled' then 1 else 0 end), 0)`.as("cancelled"),
                sql<number>`coalesce(sum(case when status = 'failed' then 1 else 0 end), 0)`.as("failed"),
                eb.fn.count<number>("sent_at").as("sent"),
                eb.fn.count<number>("delivered_at").as("delivered"),
                eb.fn.count<number>("read_at").as("read"),
                ...DELTA_COLUMNS.map((column) =>
                  sql<number>`(select coalesce(sum(d.${sql.ref(column)}), 0) from campaign_counter_deltas d where d.campaign_id = ${id})`.as(
                    `d_${column}`
                  )
                )
              ])
              .where("campaign_id", "=", id)
              .executeTakeFirstOrThrow()
          )
          const c = counted as unknown as Record<string, number | string>
          yield* q((k) =>
            k
              .updateTable("campaigns")
              .set({
                total: num(c.total),
                skipped: num(c.skipped),
                pending: num(c.pending) - num(c.d_pending),
                cancelled: num(c.cancelled) - num(c.d_cancelled),
                failed: num(c.failed) - num(c.d_failed),
                sent: num(c.sent) - num(c.d_sent),
                delivered: num(c.delivered) - num(c.d_delivered),
                read: num(c.read) - num(c.d_read)
              })
              .where("id", "=", id)
              .execute()
          )
          return yield* get(id)
        })
      ),

    messagingTier: (tenant) => Effect.map(limits.tierOf(tenant), Option.fromNullable),

    setMessagingTier: (tenant, tier, now) => Effect.asVoid(limits.setTier(tenant, tier, now)),

    reachedSince: limits.reached,

    ...Audience.make(s),

    lockLane: (_tenant, phoneNumberId, now) => lockLane(phoneNumberId, now),

    setLane: (_tenant, phoneNumberId, generation, jobId, now) =>
      q((k) =>
        k.updateTable("campaign_lanes").set({ generation, job_id: jobId, updated_at: now }).where("phone_number_id", "=", phoneNumberId).execute()
      ).pipe(Effect.asVoid)
  })
})

export const layer: Layer.Layer<CampaignRepo.CampaignRepo, never, Database | SqlDialect> = Layer.effect(CampaignRepo.CampaignRepo, make)
