/**
 * The statements both campaign repositories use: reading a campaign, locking its row,
 * adding to its counters, folding the counter deltas, and locking a sender number's lane.
 *
 * Locking order. Every write that changes several recipients of a campaign (claims,
 * retries, cancels, recounts, launch-time skips) first locks the campaign row (an UPDATE
 * of it), then touches recipients, then writes the counters: one order for all, so they
 * never deadlock each other. The lane's outcomes are the exception: they touch only rows
 * in `sending` that the lane owns (which none of those writers touch) and lock the
 * campaign row last, so it is never held while those rows wait for a status report.
 * Status reports touch only their recipient row and record their counter change as an
 * inserted delta row, so thousands of reports per second never queue on the campaign row;
 * `compactCounters` folds the deltas into it under the same lock.
 */
import type { Campaign, CampaignRepo, Tenant } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { type CompiledQuery, type Kysely, sql } from "kysely"
import { Database } from "../Database.js"
import { scopedUpdate } from "../internal/Scoped.js"
import { prepare } from "../internal/Prepared.js"
import { DELTA_COLUMNS, selectCampaigns, toCampaign } from "./Columns.js"
import type { CampaignDatabase } from "./Tables.js"

export type CounterDelta = Partial<Record<"total" | "pending" | "skipped" | "cancelled" | "failed", number>>

export const changedRows = (result: { readonly numUpdatedRows: bigint }): number => Number(result.numUpdatedRows)

export const make = Effect.gen(function* () {
  const db = yield* Database
  const kysely = db.kysely as unknown as Kysely<CampaignDatabase>
  const q = <A>(f: (k: Kysely<CampaignDatabase>) => Promise<A>): Effect.Effect<A> => db.query((k) => f(k as unknown as Kysely<CampaignDatabase>))
  const exec = <R>(compiled: CompiledQuery<R>) => db.execute(compiled)

  const getById = prepare((p: { id: string }) => selectCampaigns(kysely).where("c.id", "=", p.id))
  /** Any tenant's campaign, counters current. */
  const get = (id: Campaign.CampaignId) => Effect.map(exec(getById({ id })), ({ rows }) => Option.map(Option.fromNullable(rows[0]), toCampaign))

  const lockStatement = prepare((p: { id: string }) =>
    kysely
      .updateTable("campaigns")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", p.id)
      .returning(["id", "cursor_seq", "status", "limited_until"])
  )
  const lockOwnedStatement = prepare((p: { id: string; storeId: string; mode: string }) =>
    scopedUpdate(kysely, "campaigns", p)
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", p.id)
      .returning(["id", "cursor_seq", "status", "limited_until"])
  )
  /** Locks the campaign row until the transaction ends (the first step of every multi-row write); undefined when there is none. */
  const lock = (id: Campaign.CampaignId) => Effect.map(exec(lockStatement({ id })), ({ rows }) => rows[0])
  /** As `lock`, for the tenant's campaign only. */
  const lockOwned = (tenant: Tenant.Tenant, id: Campaign.CampaignId) =>
    Effect.map(exec(lockOwnedStatement({ id, storeId: tenant.storeId, mode: tenant.mode })), ({ rows }) => rows[0])

  /** Adds to the counters and lowers the cursor to `lowerTo` (when given); one statement compiled once. */
  const countersStatement = prepare(
    (p: { id: string; total: number; pending: number; skipped: number; cancelled: number; failed: number; lowerTo: number }) =>
      kysely
        .updateTable("campaigns")
        .set((eb) => ({
          total: eb("total", "+", p.total),
          pending: eb("pending", "+", p.pending),
          skipped: eb("skipped", "+", p.skipped),
          cancelled: eb("cancelled", "+", p.cancelled),
          failed: eb("failed", "+", p.failed),
          cursor_seq: sql<number>`(case when cursor_seq > ${p.lowerTo} then ${p.lowerTo} else cursor_seq end)`
        }))
        .where("id", "=", p.id)
  )
  const addToCounters = (id: Campaign.CampaignId, delta: CounterDelta, lowerCursorTo?: number) =>
    Effect.suspend(() => {
      const d = {
        total: delta.total ?? 0,
        pending: delta.pending ?? 0,
        skipped: delta.skipped ?? 0,
        cancelled: delta.cancelled ?? 0,
        failed: delta.failed ?? 0
      }
      if (d.total === 0 && d.pending === 0 && d.skipped === 0 && d.cancelled === 0 && d.failed === 0 && lowerCursorTo === undefined)
        return Effect.void
      return Effect.asVoid(exec(countersStatement({ id, ...d, lowerTo: lowerCursorTo ?? Number.MAX_SAFE_INTEGER })))
    })

  /** Folds the campaign's counter deltas into its row, under its lock. */
  const compactCounters = (id: Campaign.CampaignId) =>
    db.withTransaction(
      Effect.gen(function* () {
        if ((yield* lock(id)) === undefined) return
        const deltas = yield* q((k) => k.deleteFrom("campaign_counter_deltas").where("campaign_id", "=", id).returning(DELTA_COLUMNS).execute())
        if (deltas.length === 0) return
        const sum = { pending: 0, cancelled: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
        for (const d of deltas) for (const column of DELTA_COLUMNS) sum[column] += Number(d[column])
        yield* q((k) =>
          k
            .updateTable("campaigns")
            .set((eb) => ({
              pending: eb("pending", "+", sum.pending),
              cancelled: eb("cancelled", "+", sum.cancelled),
              sent: eb("sent", "+", sum.sent),
              delivered: eb("delivered", "+", sum.delivered),
              read: eb("read", "+", sum.read),
              failed: eb("failed", "+", sum.failed)
            }))
            .where("id", "=", id)
            .execute()
        )
      })
    )

  /** Locks a sender number's lane row (creating it) until the transaction ends. */
  const lockLane = (phoneNumberId: string, now: number): Effect.Effect<CampaignRepo.LaneState> =>
    Effect.gen(function* () {
      yield* q((k) =>
        k
          .insertInto("campaign_lanes")
          .values({ phone_number_id: phoneNumberId, generation: 0, job_id: null, updated_at: now })
          .onConflict((oc) => oc.column("phone_number_id").doNothing())
          .execute()
      )
      const lane = yield* q((k) =>
        k
          .updateTable("campaign_lanes")
          .set({ updated_at: now })
          .where("phone_number_id", "=", phoneNumberId)
          .returning(["generation", "job_id"])
          .executeTakeFirstOrThrow()
      )
      return { generation: Number(lane.generation), jobId: lane.job_id }
    })

  return { db, kysely, q, exec, get, lock, lockOwned, addToCounters, compactCounters, lockLane }
})

export type Statements = Effect.Effect.Success<typeof make>
