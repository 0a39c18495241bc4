/**
 * The messaging limit in the claim (issue 30): the unique recipients a store's operator
 * account (business portfolio) reached per mode in the rolling window (`messaging_reach`),
 * its tier (`messaging_limits`), and the recipients that wait (`waiting_for_limit`) until the
 * window rolls. Every step runs inside the claim's transaction, under the campaign's lock.
 *
 * A recipient counts from its claim on (before the operator answers), so two claims never
 * both take the last slot; one that then fails still counts until the window rolls (the
 * operator may have counted it too). A phone reached in the window counts once.
 */
import { CampaignLimits, CampaignSendWindow, type Campaign, type Tenant } from "@switchboard/domain"
import { Effect } from "effect"
import { sql } from "kysely"
import { scoped } from "../internal/Scoped.js"
import { zoneKeyOf } from "./PhoneZones.js"
import type { Statements } from "./Statements.js"
import * as ZoneLists from "./ZoneLists.js"

/**
 * A reach lasts the window plus this margin: a claim counts before its sends go out (within
 * about a second, a claim is one second of the rate), and the operator counts from when it
 * takes each send, so ours must not free a slot before the operator's does.
 */
export const REACH_MARGIN_MS = 2_000

/** Recipient statuses that wait for a time (`next_attempt_at`) and count as pending. */
export const WAITING = ["waiting_for_limit", "waiting_for_window"] as const

export const make = (statements: Statements) => {
  const { q, addToCounters } = statements
  const zoneLists = ZoneLists.make(statements)

  /** The tier stored for the tenant; undefined when the operator has not told it yet. */
  const tierOf = (tenant: Tenant.Tenant) =>
    q((k) => scoped(k, "messaging_limits", tenant).select("tier").executeTakeFirst()).pipe(
      Effect.map((row) => (row !== undefined && CampaignLimits.isTier(row.tier) ? row.tier : undefined))
    )

  const setTier = (tenant: Tenant.Tenant, tier: CampaignLimits.Tier, now: number) =>
    q((k) =>
      k
        .insertInto("messaging_limits")
        .values({ store_id: tenant.storeId, mode: tenant.mode, tier, updated_at: now })
        .onConflict((oc) => oc.columns(["store_id", "mode"]).doUpdateSet({ tier, updated_at: now }))
        .execute()
    )

  /** Unique recipients reached since `since`, and when the oldest of them leaves the window. */
  const reached = (tenant: Tenant.Tenant, since: number) =>
    q((k) =>
      scoped(k, "messaging_reach", tenant)
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<number>("reached_at").as("oldest")])
        .where("reached_at", ">", since)
        .executeTakeFirstOrThrow()
    ).pipe(Effect.map((row) => ({ count: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) })))

  /**
   * What the tenant may still reach now: null when its tier has no limit (or is unknown),
   * else the count left and when the next slot frees.
   */
  const quota = (tenant: Tenant.Tenant, windowMs: number, now: number) =>
    Effect.gen(function* () {
      const tier = yield* tierOf(tenant)
      const limit = tier === undefined ? null : CampaignLimits.limitOf(tier)
      if (limit === null) return null
      const lasts = windowMs + REACH_MARGIN_MS
      const used = yield* reached(tenant, now - lasts)
      return { limit, remaining: Math.max(0, limit - used.count), freesAt: (used.oldest ?? now) + lasts }
    })

  /** Records the phones claimed as reached now, unless reached within the window already. */
  const recordReach = (tenant: Tenant.Tenant, phones: ReadonlyArray<string>, windowMs: number, now: number) =>
    phones.length === 0
      ? Effect.void
      : Effect.asVoid(
          q((k) =>
            k
              .insertInto("messaging_reach")
              .values(phones.map((phone) => ({ store_id: tenant.storeId, mode: tenant.mode, phone, reached_at: now })))
              .onConflict((oc) =>
                oc
                  .columns(["store_id", "mode", "phone"])
                  .doUpdateSet({ reached_at: now })
                  .where("messaging_reach.reached_at", "<=", now - windowMs - REACH_MARGIN_MS)
              )
              .execute()
          )
        )

  /**
   * The campaign's pending recipients wait until `until` (status `status`): all of them, or
   * those of one time zone list (`zone_id`), or the ones named; the campaign shows `limited_until` (when
   * some did).
   */
  const hold = (
    id: Campaign.CampaignId,
    status: (typeof WAITING)[number],
    until: number,
    now: number,
    only?: { readonly zone: number } | { readonly ids: ReadonlyArray<string> }
  ) =>
    Effect.gen(function* () {
      const result = yield* q((k) => {
        let update = k
          .updateTable("campaign_recipients")
          .set({ status, next_attempt_at: until, updated_at: now })
          .where("campaign_id", "=", id)
          .where("status", "=", "pending")
        if (only !== undefined && "zone" in only) update = update.where("zone_id", "=", only.zone)
        if (only !== undefined && "ids" in only) update = update.where("id", "in", only.ids)
        return update.executeTakeFirst()
      })
      if (Number(result.numUpdatedRows) === 0) return
      yield* q((k) =>
        k
          .updateTable("campaigns")
          .set({ limited_until: sql<number>`(case when limited_until is null or limited_until > ${until} then ${until} else limited_until end)` })
          .where("id", "=", id)
          .execute()
      )
    })

  /** Waiting recipients whose time came go back to pending (the cursor lowered to them); `limited_until` follows the rest. */
  const releaseDue = (id: Campaign.CampaignId, now: number) =>
    Effect.gen(function* () {
      const released = yield* q((k) =>
        k
          .updateTable("campaign_recipients")
          .set({ status: "pending", next_attempt_at: null, updated_at: now })
          .where("campaign_id", "=", id)
          .where("status", "in", WAITING)
          .where("next_attempt_at", "<=", now)
          .returning("seq")
          .execute()
      )
      const lowest = released.reduce((min, r) => Math.min(min, Number(r.seq)), Number.MAX_SAFE_INTEGER)
      if (released.length > 0) yield* addToCounters(id, {}, lowest)
      const next = yield* q((k) =>
        k
          .selectFrom("campaign_recipients")
          .select((eb) => eb.fn.min<number>("next_attempt_at").as("at"))
          .where("campaign_id", "=", id)
          .where("status", "in", WAITING)
          .executeTakeFirst()
      )
      const at = next?.at === null || next?.at === undefined ? null : Number(next.at)
      yield* q((k) => k.updateTable("campaigns").set({ limited_until: at }).where("id", "=", id).execute())
      return lowest
    })

  /**
   * The send window in the claim: of the claimed candidates, answers those inside their
   * window now; every pending recipient of the campaign that shares a time zone list with one
   * outside it waits (`waiting_for_window`) until the window next opens there, in one
   * statement per list (a claim sees few zones, and a zone's recipients are held at once,
   * not a claim at a time). A row without a list (a phone the map does not know) is read by
   * its phone and held by its id.
   */
  const holdOutsideWindow = <R extends { readonly id: string; readonly phone: string | null; readonly zone_id: number | string | null }>(
    id: Campaign.CampaignId,
    window: Campaign.SendWindow,
    rows: ReadonlyArray<R>,
    now: number
  ) =>
    Effect.gen(function* () {
      const names = yield* zoneLists.names(rows.map((row) => row.zone_id))
      const opening = new Map<string, number>()
      const listOpening = new Map<number, number>()
      const open: Array<R> = []
      const unzoned = new Map<number, Array<string>>()
      const openingOf = (key: string) => {
        let at = opening.get(key)
        if (at === undefined) {
          at = CampaignSendWindow.nextOpening(window, CampaignSendWindow.zonesOf(key), now)
          opening.set(key, at)
        }
        return at
      }
      for (const row of rows) {
        const list = row.zone_id === null ? null : Number(row.zone_id)
        let at: number
        if (list === null) at = openingOf(zoneKeyOf(row.phone) ?? "")
        else {
          at = openingOf(names.get(list) ?? "")
          listOpening.set(list, at)
        }
        if (at <= now) open.push(row)
        else if (list === null) {
          const ids = unzoned.get(at)
          if (ids === undefined) unzoned.set(at, [row.id])
          else ids.push(row.id)
        }
      }
      if (open.length === rows.length) return open
      for (const [zone, at] of listOpening) if (at > now) yield* hold(id, "waiting_for_window", at, now, { zone })
      for (const [at, ids] of unzoned) yield* hold(id, "waiting_for_window", at, now, { ids })
      return open
    })

  return { tierOf, setTier, reached, quota, recordReach, hold, releaseDue, holdOutsideWindow }
}

export type Limits = ReturnType<typeof make>
