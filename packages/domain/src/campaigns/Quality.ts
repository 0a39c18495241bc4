/**
 * Quality brakes and the messaging limit from the operator's account webhooks (issue 30):
 * - `phone_number_quality_update` FLAGGED pauses the account's active campaigns
 *   (`paused_reason: number_quality_flagged`); its `current_limit` is the tier now;
 * - `message_template_quality_update` RED pauses the active campaigns sending that template
 *   (`template_quality_red`);
 * - `business_capability_update` sets the tier (`max_daily_conversations_per_business`).
 * Each pause emits `campaign.paused` with the reason, in the inbox's transaction. The inbox
 * applies a run of them at once (`onQualityEvents`): each tenant's active campaigns read
 * once, its tier written once.
 */
import { Effect } from "effect"
import type * as WebhookEvent from "../operator/WebhookEvent.js"
import type { Routed } from "../shared/Module.js"
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

/** What one event does: the tier it sets (if any) and the active campaigns it pauses (if any), with the reason. */
interface Effects {
  readonly tier: Limits.Tier | undefined
  readonly pause: { readonly reason: Limits.PausedReason; readonly detail: string; readonly matches: (c: Campaign.Campaign) => boolean } | undefined
}

type QualityEvent = WebhookEvent.NumberQualityUpdate | WebhookEvent.CapabilityUpdate | WebhookEvent.TemplateQualityUpdate

const effectsOf = (event: QualityEvent): Effects => {
  switch (event._tag) {
    case "NumberQualityUpdate":
      return {
        tier: event.currentLimit !== null && Limits.isTier(event.currentLimit) ? event.currentLimit : undefined,
        pause:
          event.event === "FLAGGED"
            ? {
                reason: "number_quality_flagged",
                detail: `the operator flagged the number ${event.displayPhoneNumber} for quality`,
                matches: () => true
              }
            : undefined
      }
    case "CapabilityUpdate":
      return { tier: Limits.tierOfDaily(event.maxDailyConversations), pause: undefined }
    case "TemplateQualityUpdate":
      return {
        tier: undefined,
        pause:
          event.score === "RED"
            ? {
                reason: "template_quality_red",
                detail: `the operator rated the template ${event.name} (${event.language}) RED`,
                matches: (c) => c.templateName === event.name && c.templateLanguage === event.language
              }
            : undefined
      }
  }
}

const keyOf = (tenant: Tenant) => `${tenant.storeId}:${tenant.mode}`

/**
 * Applies events in order, each to the tenants of its store and account kind: the tenant's
 * active campaigns are read once (the first time an event pauses some) and those an event
 * pauses leave the list, as a fresh read after it would show; each tenant's tier is
 * written once, the last one an event set (the write sets the tier and the time, so the
 * last one is what writing each leaves). The same pauses, in the same order, as applying
 * each event alone.
 */
const apply = (items: ReadonlyArray<{ readonly store: Store; readonly kind: AccountKind; readonly event: QualityEvent }>) =>
  Effect.gen(function* () {
    const active = new Map<string, ReadonlyArray<Campaign.Campaign>>()
    const tiers = new Map<string, { readonly tenant: Tenant; readonly tier: Limits.Tier }>()
    for (const { store, kind, event } of items) {
      const { tier, pause } = effectsOf(event)
      for (const tenant of tenantsOf(store, kind)) {
        if (tier !== undefined) tiers.set(keyOf(tenant), { tenant, tier })
        if (pause === undefined) continue
        const left: Array<Campaign.Campaign> = []
        for (const c of active.get(keyOf(tenant)) ?? (yield* activeOf(tenant)))
          if (pause.matches(c)) yield* autoPause(c, pause.reason, pause.detail)
          else left.push(c)
        active.set(keyOf(tenant), left)
      }
    }
    if (tiers.size === 0) return
    const repo = yield* CampaignRepo
    const now = yield* Time.now
    for (const { tenant, tier } of tiers.values()) yield* repo.setMessagingTier(tenant, tier, now)
  })

const one = <E extends QualityEvent>(store: Store, kind: AccountKind, event: E) => apply([{ store, kind, event }])

export const onNumberQuality = (store: Store, kind: AccountKind, event: WebhookEvent.NumberQualityUpdate) => one(store, kind, event)

export const onCapability = (store: Store, kind: AccountKind, event: WebhookEvent.CapabilityUpdate) => one(store, kind, event)

export const onTemplateQuality = (store: Store, kind: AccountKind, event: WebhookEvent.TemplateQualityUpdate) => one(store, kind, event)

/** A run of quality events a batch at a time (the inbox's), with the effect of applying each in turn. */
export const onQualityEvents = (items: ReadonlyArray<Routed<QualityEvent>>) => apply(items)
