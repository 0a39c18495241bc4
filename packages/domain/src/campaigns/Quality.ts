/**
 * Quality brakes and the messaging limit from the operator's account webhooks (issue 30):
 * - `phone_number_quality_update` FLAGGED pauses the account's active campaigns
 *   (`paused_reason: number_quality_flagged`); its `current_limit` is the tier now;
 * - `message_template_quality_update` RED pauses the active campaigns sending that template
 *   (`template_quality_red`);
 * - `business_capability_update` sets the tier (`max_daily_conversations_per_business`).
 * Each pause emits `campaign.paused` with the reason, in the inbox's transaction.
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { AccountKind, Store } from "../stores/Store.js"
import type * as Campaign from "./Campaign.js"
import { CampaignRepo } from "./CampaignRepo.js"
import { autoPause } from "./Lanes.js"
import * as Limits from "./Limits.js"

/** The tenants whose campaigns send through the account of `kind` (a store without a live account sends live through its sandbox). */
const tenantsOf = (store: Store, kind: AccountKind): ReadonlyArray<Tenant> =>
  (["live", "test"] as const)
    .filter((mode) => (mode === "test" || store.live === null ? "sandbox" : "live") === kind)
    .map((mode) => ({ storeId: store.id, mode }))

/** Every active campaign of the tenant, page by page. */
const activeOf = (tenant: Tenant) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo
    const all: Array<Campaign.Campaign> = []
    let after: Campaign.CampaignId | undefined
    for (;;) {
      const slice = yield* repo.list(tenant, { status: "active", limit: 100, after })
      all.push(...slice.items)
      if (!slice.hasMore || slice.items.length === 0) return all
      after = slice.items[slice.items.length - 1].id
    }
  })

const setTier = (tenants: ReadonlyArray<Tenant>, tier: Limits.Tier | undefined) =>
  Effect.gen(function* () {
    if (tier === undefined) return
    const repo = yield* CampaignRepo
    const now = yield* Time.now
    for (const tenant of tenants) yield* repo.setMessagingTier(tenant, tier, now)
  })

export const onNumberQuality = (store: Store, kind: AccountKind, event: WebhookEvent.NumberQualityUpdate) =>
  Effect.gen(function* () {
    const tenants = tenantsOf(store, kind)
    yield* setTier(tenants, event.currentLimit !== null && Limits.isTier(event.currentLimit) ? event.currentLimit : undefined)
    if (event.event !== "FLAGGED") return
    for (const tenant of tenants)
      for (const c of yield* activeOf(tenant))
        yield* autoPause(c, "number_quality_flagged", `the operator flagged the number ${event.displayPhoneNumber} for quality`)
  })

export const onCapability = (store: Store, kind: AccountKind, event: WebhookEvent.CapabilityUpdate) =>
  setTier(tenantsOf(store, kind), Limits.tierOfDaily(event.maxDailyConversations))

export const onTemplateQuality = (store: Store, kind: AccountKind, event: WebhookEvent.TemplateQualityUpdate) =>
  Effect.gen(function* () {
    if (event.score !== "RED") return
    for (const tenant of tenantsOf(store, kind))
      for (const c of yield* activeOf(tenant))
        if (c.templateName === event.name && c.templateLanguage === event.language)
          yield* autoPause(c, "template_quality_red", `the operator rated the template ${event.name} (${event.language}) RED`)
  })
