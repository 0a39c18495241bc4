/**
 * The campaign's audience and billing as the dry run and `cost` read them (`CampaignRepo`'s
 * `audience`, `billing`, `rateCard`, `importRates`; the lane repo's `recordPricing`): aggregates grouped by the phone's first
 * digits, so their size is bounded by the countries, not the campaign.
 */
import type { CampaignRates, CampaignRepo, Tenant } from "@switchboard/domain"
import { Effect } from "effect"
import { sql } from "kysely"
import { scoped } from "../internal/Scoped.js"
import { WAITING } from "./Limits.js"
import type { Statements } from "./Statements.js"
import * as ZoneLists from "./ZoneLists.js"

const WINDOW_MS = 24 * 60 * 60 * 1000

export const make = (statements: Statements) => {
  const { q, db } = statements
  const zoneLists = ZoneLists.make(statements)
  const prefix = sql<string>`substr(r.phone, 1, 5)`

  const audience = (tenant: Tenant.Tenant, id: string, now: number) =>
    Effect.gen(function* () {
      const skipped = yield* q((k) =>
        k
          .selectFrom("campaign_recipients as r")
          .select((eb) => ["r.skip_reason", eb.fn.countAll<number>().as("n")])
          .where("r.campaign_id", "=", id)
          .where("r.campaign_id", "in", scoped(k, "campaigns", tenant).select("id"))
          .groupBy("r.skip_reason")
          .execute()
      )
      const groups = yield* q((k) =>
        k
          .selectFrom("campaign_recipients as r")
          .leftJoin("opt_outs as o", (join) =>
            join.on("o.store_id", "=", tenant.storeId).on("o.mode", "=", tenant.mode).onRef("o.phone", "=", "r.phone")
          )
          .leftJoin("customers as cu", (join) =>
            join.on("cu.store_id", "=", tenant.storeId).on("cu.mode", "=", tenant.mode).onRef("cu.phone", "=", "r.phone")
          )
          .select((eb) => [
            prefix.as("prefix"),
            sql<number>`(case when o.phone is null then 0 else 1 end)`.as("opted"),
            sql<number>`(case when cu.last_inbound_at > ${now - WINDOW_MS} then 1 else 0 end)`.as("open"),
            "r.zone_id",
            eb.fn.countAll<number>().as("n")
          ])
          .where("r.campaign_id", "=", id)
          .where("r.status", "in", ["pending", ...WAITING])
          .groupBy([sql`1`, sql`2`, sql`3`, "r.zone_id"])
          .execute()
      )
      // a list's id stands for one list (its zones are unique in the table): grouping by it groups by the zones
      const names = yield* zoneLists.names(groups.map((g) => g.zone_id))
      const bySkip = { opted_out: 0, duplicate: 0, invalid_number: 0, unknown_customer: 0 }
      let total = 0
      for (const row of skipped) {
        total += Number(row.n)
        if (row.skip_reason !== null && row.skip_reason in bySkip) bySkip[row.skip_reason as keyof typeof bySkip] += Number(row.n)
      }
      return {
        total,
        skipped: bySkip,
        groups: groups.map((g) => ({
          prefix: String(g.prefix),
          optedOut: Number(g.opted) === 1,
          windowOpen: Number(g.open) === 1,
          timeZone: g.zone_id === null ? null : (names.get(Number(g.zone_id)) ?? null),
          count: Number(g.n)
        }))
      } satisfies CampaignRepo.Audience
    })

  const billing = (tenant: Tenant.Tenant, id: string) =>
    q((k) =>
      k
        .selectFrom("campaign_recipients as r")
        .select((eb) => [prefix.as("prefix"), "r.pricing_category", "r.billable", eb.fn.countAll<number>().as("n")])
        .where("r.campaign_id", "=", id)
        .where("r.campaign_id", "in", scoped(k, "campaigns", tenant).select("id"))
        .where("r.status", "not in", ["skipped", "cancelled"])
        .groupBy([sql`1`, "r.pricing_category", "r.billable"])
        .execute()
    ).pipe(
      Effect.map((rows) =>
        rows.map(
          (r): CampaignRepo.BillingGroup => ({
            prefix: String(r.prefix),
            category: r.pricing_category,
            billable: r.billable === null ? null : Number(r.billable) === 1,
            count: Number(r.n)
          })
        )
      )
    )

  const rateCard = () =>
    q((k) => k.selectFrom("rate_cards").selectAll().orderBy("category").orderBy("country").execute()).pipe(
      Effect.map((rows) =>
        rows.map(
          (r): CampaignRates.Rate => ({
            category: r.category,
            country: r.country,
            callingCode: r.calling_code,
            priceMicros: Number(r.price_micros),
            currency: r.currency,
            effectiveDate: r.effective_date,
            source: r.source
          })
        )
      )
    )

  const importRates = (rates: ReadonlyArray<CampaignRates.Rate>) =>
    db.withTransaction(
      Effect.gen(function* () {
        yield* q((k) => k.deleteFrom("rate_cards").execute())
        for (let i = 0; i < rates.length; i += 200) {
          const chunk = rates.slice(i, i + 200)
          yield* q((k) =>
            k
              .insertInto("rate_cards")
              .values(
                chunk.map((r) => ({
                  category: r.category,
                  country: r.country,
                  calling_code: r.callingCode,
                  price_micros: r.priceMicros,
                  currency: r.currency,
                  effective_date: r.effectiveDate,
                  source: r.source
                }))
              )
              .onConflict((oc) => oc.columns(["category", "country"]).doNothing())
              .execute()
          )
        }
        const count = yield* q((k) =>
          k
            .selectFrom("rate_cards")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        )
        return Number(count.n)
      })
    )

  /** `CampaignLaneRepo.recordPricing`: one UPDATE per (category, billable) of the batch. */
  const recordPricing = (priced: ReadonlyArray<{ readonly id: string; readonly category: string; readonly billable: boolean }>) => {
    const groups = new Map<string, Array<(typeof priced)[number]>>()
    for (const p of priced) {
      const key = `${p.billable ? 1 : 0}${p.category}`
      const group = groups.get(key)
      if (group === undefined) groups.set(key, [p])
      else group.push(p)
    }
    return Effect.forEach(
      groups.values(),
      (group) =>
        q((k) =>
          k
            .updateTable("campaign_recipients")
            .set({ pricing_category: group[0].category, billable: group[0].billable ? 1 : 0 })
            .where(
              "id",
              "in",
              group.map((p) => p.id)
            )
            .where("pricing_category", "is", null)
            .execute()
        ),
      { discard: true }
    )
  }

  return { audience, billing, rateCard, importRates, recordPricing }
}
