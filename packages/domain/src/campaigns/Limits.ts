/**
 * What the operator allows a campaign (GRAPH_API.md §3.2): the messaging limit of a business
 * portfolio, the unique users it may reach outside the customer service window in any
 * rolling 24 hours, by tier; and the reasons a campaign stops by itself.
 *
 * The limit is kept per store operator account (its business portfolio) and mode: the
 * sandbox has its own. Its tier is read from the operator at launch
 * (`whatsapp_business_manager_messaging_limit`) and kept current by the operator's
 * `business_capability_update` webhooks (`max_daily_conversations_per_business`).
 */
import { Effect, Option, Schema } from "effect"
import { MessageOperator } from "../messaging/MessageOperator.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { OperatorAccount } from "../stores/Store.js"
import { CampaignRepo } from "./CampaignRepo.js"
import { isTier, Tier } from "./Tier.js"

export { isTier, Tier } from "./Tier.js"

/** The operator's rolling window. */
export const WINDOW_MS = 24 * 60 * 60 * 1000

const LIMITS: Record<Tier, number | null> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_2K: 2_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: null,
  UNTIERED: null
}

/** Unique users a tier may reach per window; null: no limit. */
export const limitOf = (tier: Tier): number | null => LIMITS[tier]

/** The tier of a `business_capability_update`'s `max_daily_conversations_per_business` (-1: unlimited); undefined for a value the operator does not use. */
export const tierOfDaily = (perDay: number): Tier | undefined => {
  if (perDay < 0) return "TIER_UNLIMITED"
  for (const tier of Tier.literals) if (LIMITS[tier] === perDay) return tier
  return undefined
}

/**
 * Days a campaign needs at a tier: `outside` recipients to reach outside the window, of which
 * `remaining` fit today; each further window takes `limit` more. 1 when it all fits today, 0
 * when nothing is to be sent.
 */
export const daysNeeded = (outside: number, remaining: number | null, limit: number | null): number => {
  if (outside <= 0) return 0
  if (limit === null || remaining === null || outside <= remaining) return 1
  return 1 + Math.ceil((outside - Math.max(0, remaining)) / limit)
}

/** Why a campaign paused itself (or was paused by the caller: null). */
export const PausedReason = Schema.Literal("template_paused", "template_quality_red", "number_quality_flagged", "refusal_rate")
export type PausedReason = typeof PausedReason.Type

/**
 * Reads the tier of the tenant's account from the operator and stores it; answers the tier
 * now known (the stored one when the operator could not be asked). Never fails: a campaign
 * goes on with what the webhooks last told.
 */
export const refreshTier = (tenant: Tenant, account: OperatorAccount) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    const operator = yield* MessageOperator
    const read = operator.messagingTier === undefined ? Option.none() : yield* Effect.option(operator.messagingTier(account))
    if (Option.isSome(read) && isTier(read.value)) {
      yield* repo.setMessagingTier(tenant, read.value, yield* Time.now)
      return Option.some(read.value)
    }
    return yield* repo.messagingTier(tenant)
  })
