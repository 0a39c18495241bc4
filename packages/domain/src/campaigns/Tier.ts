/**
 * The operator's messaging-limit tiers, in a file of their own: the campaign repository's port
 * and the limit's rules (`Limits.ts`) both name them, and neither imports the other for it.
 */
import { Schema } from "effect"

/** The operator's tiers (`whatsapp_business_manager_messaging_limit`). */
export const Tier = Schema.Literal("TIER_50", "TIER_250", "TIER_2K", "TIER_10K", "TIER_100K", "TIER_UNLIMITED", "UNTIERED")
export type Tier = typeof Tier.Type

export const isTier = Schema.is(Tier)
