/**
 * The operator's messaging limit and quality signals (GRAPH_API.md §3.2), per sandbox account:
 * - a tier per phone number (`whatsapp_business_manager_messaging_limit`; the config's
 *   `defaultMessagingLimit` until `POST /_emulator/accounts/{id}/limits` sets one), and the
 *   unique users its WABA (our stand-in for the business portfolio) reached outside their
 *   customer window in the rolling `messagingWindowMs`: a template to a new user past the
 *   limit is refused (`GraphErrors.messagingLimit`);
 * - the number's quality flag (`POST /_emulator/quality`), shown as `quality_rating`.
 */
import { GraphErrors } from "./GraphError.js"

export const TIERS: Readonly<Record<string, number | null>> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_2K: 2_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: null
}

const tierOfLimit = (limit: number): string => Object.entries(TIERS).find(([, n]) => n === limit)?.[0] ?? (limit < 0 ? "TIER_UNLIMITED" : "TIER_250")

export class MessagingLimits {
  private readonly tiers = new Map<string, string>()
  private readonly reach = new Map<string, Map<string, number>>()
  private readonly flagged = new Set<string>()

  tierOf(phoneNumberId: string, defaultLimit: number): string {
    return this.tiers.get(phoneNumberId) ?? tierOfLimit(defaultLimit)
  }

  setTier(phoneNumberId: string, tier: string): void {
    this.tiers.set(phoneNumberId, tier)
  }

  /** `max_daily_conversations_per_business` of a tier (-1: unlimited), as `business_capability_update` carries it. */
  static perDay(tier: string): number {
    return TIERS[tier] ?? -1
  }

  /** Throws the refusal when a send to `waId` would reach one user more than the tier allows in the window. */
  check(
    wabaId: string,
    phoneNumberId: string,
    waId: string,
    now: number,
    config: { defaultMessagingLimit: number; messagingWindowMs: number }
  ): void {
    const tier = this.tierOf(phoneNumberId, config.defaultMessagingLimit)
    const limit = TIERS[tier] ?? null
    if (limit === null) return
    const users = this.usersOf(wabaId, now, config.messagingWindowMs)
    if (users.has(waId)) return
    if (users.size >= limit) throw GraphErrors.messagingLimit(tier)
  }

  /** Counts `waId` as reached now (unless already within the window). */
  record(wabaId: string, waId: string, now: number, windowMs: number): void {
    const users = this.usersOf(wabaId, now, windowMs)
    if (!users.has(waId)) users.set(waId, now)
  }

  /** Unique users the WABA reached within the window. */
  reached(wabaId: string, now: number, windowMs: number): number {
    return this.usersOf(wabaId, now, windowMs).size
  }

  private usersOf(wabaId: string, now: number, windowMs: number): Map<string, number> {
    let users = this.reach.get(wabaId)
    if (users === undefined) {
      users = new Map()
      this.reach.set(wabaId, users)
    }
    for (const [user, at] of users) {
      if (at > now - windowMs) break // insertion order is time order
      users.delete(user)
    }
    return users
  }

  setFlagged(phoneNumberId: string, flagged: boolean): void {
    if (flagged) this.flagged.add(phoneNumberId)
    else this.flagged.delete(phoneNumberId)
  }

  qualityOf(phoneNumberId: string): "GREEN" | "RED" {
    return this.flagged.has(phoneNumberId) ? "RED" : "GREEN"
  }

  clear(): void {
    this.reach.clear()
  }
}
