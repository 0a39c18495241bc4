/**
 * `POST /chat/campaigns/{id}/dry-run` and the campaign's `cost`: what a campaign will meet
 * before launch (its audience, the messaging limit, the time at the number's pace, the cost
 * at the rate card's prices), and what it did cost after. Sends nothing; the dry run only
 * refreshes the account's tier from the operator.
 */
import { Effect, Option, Schema } from "effect"
import * as Errors from "../shared/Errors.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import { TemplateRepo } from "../templates/TemplateRepo.js"
import * as Campaign from "./Campaign.js"
import { type BillingGroup, CampaignRepo } from "./CampaignRepo.js"
import { find } from "./Campaigns.js"
import * as Limits from "./Limits.js"
import * as Rates from "./Rates.js"
import * as SendWindow from "./SendWindow.js"

export const DryRunResult = Schema.Struct({
  audience: Schema.Struct({
    total: Schema.Int,
    unique: Schema.Int,
    to_send: Schema.Int,
    /** Of `to_send`, the recipients outside the campaign's `send_window` now (only when it has one). */
    outside_send_window: Schema.optional(Schema.Int),
    dropped: Schema.Struct({
      duplicate: Schema.Int,
      opted_out: Schema.Int,
      invalid_number: Schema.Int,
      blocked_by_operator_policy: Schema.Int
    })
  }),
  messaging_limit: Schema.Struct({
    tier: Schema.NullOr(Schema.String),
    outside_window: Schema.Int,
    remaining_24h: Schema.NullOr(Schema.Int),
    days_needed: Schema.Int
  }),
  duration_seconds: Schema.Int,
  cost: Schema.Struct({
    currency: Schema.String,
    estimated: Schema.Number,
    by_category: Schema.Record({ key: Schema.String, value: Schema.Number }),
    by_country: Schema.Record({ key: Schema.String, value: Schema.Number }),
    rate_card_date: Schema.NullOr(Schema.String)
  })
}).annotations({ identifier: "CampaignDryRun" })
export type DryRunResult = typeof DryRunResult.Type

/**
 * The operator refuses marketing templates to US numbers (+1, since April 2025): a campaign
 * of a marketing template drops them. (+1 also covers Canada and the Caribbean; the operator's
 * rule names the US, so this is the cautious reading.)
 */
const blockedByPolicy = (category: string | null, prefix: string): boolean => category === "marketing" && prefix.startsWith("+1")

/** Utility templates are free inside an open customer window; marketing and authentication always cost. */
const billableIn = (category: string, windowOpen: boolean): boolean => !(category === "utility" && windowOpen)

const categoryOf = (campaign: Campaign.Campaign) =>
  Effect.gen(function* () {
    if (campaign.templateCategory !== null) return campaign.templateCategory.toLowerCase()
    const template = yield* (yield* TemplateRepo).find(Campaign.tenantOf(campaign), campaign.templateName, campaign.templateLanguage)
    return Option.isSome(template) ? template.value.category.toLowerCase() : null
  })

export const dryRun = (raw: string) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    if (campaign.status !== "draft" && campaign.status !== "scheduled") {
      return yield* new Errors.InvalidState({ resource: "campaign", status: campaign.status, operation: "dry-run" })
    }
    const repo = yield* CampaignRepo
    const now = yield* Time.now
    const category = yield* categoryOf(campaign)
    const audience = yield* repo.audience(tenant, campaign.id, now)
    const card = Rates.card(yield* repo.rateCard())
    let toSend = 0
    let outsideSendWindow = 0
    let outside = 0
    let optedOut = audience.skipped.opted_out
    let blocked = 0
    let estimated = 0
    const byCategory: Record<string, number> = {}
    const byCountry: Record<string, number> = {}
    for (const g of audience.groups) {
      if (g.optedOut) optedOut += g.count
      else if (blockedByPolicy(category, g.prefix)) blocked += g.count
      else {
        toSend += g.count
        if (!g.windowOpen) outside += g.count
        if (campaign.sendWindow !== null && !SendWindow.isOpenFor(campaign.sendWindow, SendWindow.zonesOf(g.timeZone), now))
          outsideSendWindow += g.count
        if (category !== null && billableIn(category, g.windowOpen)) {
          const country = card.countryOf(g.prefix)
          const micros = card.price(category, country) * g.count
          estimated += micros
          byCategory[category] = (byCategory[category] ?? 0) + micros
          byCountry[country] = (byCountry[country] ?? 0) + micros
        }
      }
    }
    const tier = yield* Limits.refreshTier(tenant, Store.accountFor(store, campaign.mode))
    const limit = Option.isSome(tier) ? Limits.limitOf(tier.value) : null
    const reached = yield* repo.reachedSince(tenant, now - Limits.WINDOW_MS)
    const remaining = limit === null ? null : Math.max(0, limit - reached.count)
    const perSecond = campaign.messagesPerSecond ?? Campaign.DEFAULT_MESSAGES_PER_SECOND
    const amounts = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Rates.amount(v)]))
    const result: DryRunResult = {
      audience: {
        total: audience.total,
        unique: audience.total - audience.skipped.duplicate,
        to_send: toSend,
        ...(campaign.sendWindow === null ? {} : { outside_send_window: outsideSendWindow }),
        dropped: {
          duplicate: audience.skipped.duplicate,
          opted_out: optedOut,
          invalid_number: audience.skipped.invalid_number + audience.skipped.unknown_customer,
          blocked_by_operator_policy: blocked
        }
      },
      messaging_limit: {
        tier: Option.getOrNull(tier),
        outside_window: outside,
        remaining_24h: remaining,
        days_needed: Limits.daysNeeded(outside, remaining, limit)
      },
      duration_seconds: Math.ceil(toSend / perSecond),
      cost: {
        currency: card.currency,
        estimated: Rates.amount(estimated),
        by_category: amounts(byCategory),
        by_country: amounts(byCountry),
        rate_card_date: card.effectiveDate
      }
    }
    return result
  })

/**
 * A launched campaign's cost: estimated at the card's prices for every recipient sent or to
 * send (in the template's category), actual for the messages the operator reported
 * `billable`, at the card's price of the category it reported.
 */
export const costOf = (campaign: Campaign.Campaign, groups: ReadonlyArray<BillingGroup>, rates: ReadonlyArray<Rates.Rate>): Campaign.Cost => {
  const card = Rates.card(rates)
  const category = campaign.templateCategory?.toLowerCase() ?? null
  const byCategory: Record<string, { estimated: number; actual: number }> = {}
  const slot = (c: string) => (byCategory[c] ??= { estimated: 0, actual: 0 })
  for (const g of groups) {
    const country = card.countryOf(g.prefix)
    if (category !== null) slot(category).estimated += card.price(category, country) * g.count
    if (g.billable === true && g.category !== null) slot(g.category).actual += card.price(g.category, country) * g.count
  }
  let estimated = 0
  let actual = 0
  for (const c of Object.values(byCategory)) {
    estimated += c.estimated
    actual += c.actual
  }
  return {
    currency: card.currency,
    estimated: Rates.amount(estimated),
    actual: Rates.amount(actual),
    by_category: Object.fromEntries(
      Object.entries(byCategory).map(([k, v]) => [k, { estimated: Rates.amount(v.estimated), actual: Rates.amount(v.actual) }])
    )
  }
}

/** `GET /chat/campaigns/{id}`: the campaign with its `cost`. */
export const getWithCost = (raw: string) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const campaign = yield* find(tenant, raw)
    if (campaign.launchedAt === null) return campaign
    const repo = yield* CampaignRepo
    return { ...campaign, cost: costOf(campaign, yield* repo.billing(tenant, campaign.id), yield* repo.rateCard()) }
  })
