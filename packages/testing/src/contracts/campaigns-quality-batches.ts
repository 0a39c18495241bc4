/**
 * The operator's quality webhooks applied a batch at a time (`CampaignQuality.onQualityEvents`,
 * the inbox's way) have the effect of applying each in turn (`onNumberQuality`,
 * `onCapability`, `onTemplateQuality`): two copies of the same stores (one without live
 * credentials, whose sandbox sends for both modes; one with, whose sandbox sends for the
 * test mode alone), each tenant with active campaigns of three templates and a draft, one
 * fed event by event and one in batches of random sizes, the same random stream (FLAGGED
 * numbers with and without a tier, RED, GREEN and unknown templates, capability tiers,
 * values the operator does not use, replays), end with the same campaigns (status and
 * `paused_reason`), the same tiers and the same `campaign.paused` events in the same order.
 */
import { type Campaign, CampaignQuality, CampaignRepo, type Store, type Tenant, type WebhookEvent, WebhookRepo } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { describe, expect } from "vitest"
import { sameInBatches, sideLabels, type Written } from "./batch-fixtures.js"
import { newCampaign } from "./campaigns-fixtures.js"
import { createStore } from "./foundation-fixtures.js"
import { endpoint } from "./messaging-fixtures.js"
import type { ContractIt } from "./ModuleContract.js"

const TEMPLATES = [
  ["spring_sale", "en_US"],
  ["spring_sale", "es_ES"],
  ["welcome", "en_US"]
] as const

/** One store of a copy (`live` credentials or not); each of its tenants with an endpoint, three active campaigns and a draft. */
const storeWithCampaigns = (live: boolean) =>
  Effect.gen(function* () {
    const { store } = yield* createStore({ live })
    const repo = yield* CampaignRepo.CampaignRepo
    const tenants = (["live", "test"] as const).map((mode): Tenant.Tenant => ({ storeId: store.id, mode }))
    for (const tenant of tenants) {
      yield* (yield* WebhookRepo.WebhookRepo).insertEndpoint(tenant, yield* endpoint(tenant, ["campaign.paused"]))
      for (const [i, [templateName, templateLanguage]] of TEMPLATES.entries()) {
        const c = yield* newCampaign(tenant, { name: `c${i}`, templateName, templateLanguage })
        yield* repo.insert(tenant, c)
        yield* repo.transition(tenant, c.id, {
          from: ["draft"],
          to: "active",
          now: c.createdAt,
          set: { phoneNumberId: `pn_${i}`, launchedAt: c.createdAt }
        })
      }
      yield* repo.insert(tenant, yield* newCampaign(tenant, { name: "draft", templateName: "spring_sale", templateLanguage: "en_US" }))
    }
    return { store, tenants }
  })

type Side = Effect.Effect.Success<ReturnType<typeof storeWithCampaigns>>
type Copy = { readonly a: Side; readonly b: Side }
type Event = WebhookEvent.NumberQualityUpdate | WebhookEvent.CapabilityUpdate | WebhookEvent.TemplateQualityUpdate

const number = (event: string, currentLimit: string | null): Event => ({
  _tag: "NumberQualityUpdate",
  wabaId: "waba",
  displayPhoneNumber: "+1 555 0100",
  event,
  currentLimit
})
const capability = (maxDailyConversations: number): Event => ({ _tag: "CapabilityUpdate", wabaId: "waba", maxDailyConversations })
const template = (name: string, language: string, score: WebhookEvent.TemplateQualityUpdate["score"]): Event => ({
  _tag: "TemplateQualityUpdate",
  wabaId: "waba",
  name,
  language,
  score,
  previousScore: null
})

/** Pausing events are rarer than the others, so that streams also run long without pausing all. */
const pool = (): ReadonlyArray<Event> => [
  number("FLAGGED", "TIER_2K"),
  number("UNFLAGGED", "TIER_10K"),
  number("DOWNGRADE", null),
  number("UPGRADE", "NOT_A_TIER"),
  capability(1_000),
  capability(100_000),
  capability(-1),
  capability(12_345),
  template("spring_sale", "en_US", "RED"),
  template("spring_sale", "es_ES", "RED"),
  template("spring_sale", "en_US", "GREEN"),
  template("welcome", "en_US", "YELLOW"),
  template("ghost", "en_US", "RED"),
  capability(250),
  number("UNFLAGGED", "TIER_250"),
  template("welcome", "en_US", "GREEN")
]

/** Each tenant's campaigns (status and reason by name) and tier, and the caller events by store, with ids replaced by labels. */
const state = (copy: Copy, written: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const repo = yield* CampaignRepo.CampaignRepo
    const tenants: Record<string, unknown> = {}
    const labels = sideLabels(copy, () => undefined)
    for (const [name, side] of [
      ["a", copy.a],
      ["b", copy.b]
    ] as const)
      for (const tenant of side.tenants) {
        const campaigns = (yield* repo.list(tenant, { limit: 100 })).items
        for (const c of campaigns) labels.set(c.id, `${name}.${tenant.mode}.${c.name}`)
        tenants[`${name}.${tenant.mode}`] = {
          campaigns: campaigns
            .map((c) => ({ name: c.name, status: c.status, pausedReason: c.pausedReason }))
            .sort((x, y) => x.name.localeCompare(y.name)),
          tier: Option.getOrNull(yield* repo.messagingTier(tenant))
        }
      }
    return {
      tenants,
      events: ["a", "b"].map((store) =>
        written
          .filter((e) => labels.get(e.storeId) === store)
          .map((e) => ({ type: e.type, id: labels.get(e.data.id as string), reason: e.data.reason, detail: e.data.detail }))
      )
    }
  })

const one = (store: Store.Store, event: Event) => {
  switch (event._tag) {
    case "NumberQualityUpdate":
      return CampaignQuality.onNumberQuality(store, "sandbox", event)
    case "CapabilityUpdate":
      return CampaignQuality.onCapability(store, "sandbox", event)
    case "TemplateQualityUpdate":
      return CampaignQuality.onTemplateQuality(store, "sandbox", event)
  }
}

export const qualityBatchTests = (it: ContractIt): void => {
  describe("CampaignQuality batches", () => {
    it.effect("in one batch, each tenant the account sends for pauses its own campaigns: FLAGGED all active, RED those of the template", () =>
      Effect.gen(function* () {
        const repo = yield* CampaignRepo.CampaignRepo
        const both = yield* storeWithCampaigns(false)
        const testOnly = yield* storeWithCampaigns(true)
        const item = (side: Side, event: Event) => ({ store: side.store, kind: "sandbox" as const, event })
        yield* CampaignQuality.onQualityEvents([
          item(both, template("spring_sale", "es_ES", "RED")),
          item(testOnly, number("FLAGGED", "TIER_2K")),
          item(both, capability(100_000))
        ])
        const statuses = (tenant: Tenant.Tenant) =>
          Effect.map(repo.list(tenant, { limit: 100 }), (slice) => Object.fromEntries(slice.items.map((c) => [c.name, c.pausedReason ?? c.status])))
        for (const tenant of both.tenants) {
          expect(yield* statuses(tenant)).toEqual({ c0: "active", c1: "template_quality_red", c2: "active", draft: "draft" })
          expect(yield* repo.messagingTier(tenant)).toEqual(Option.some("TIER_100K"))
        }
        const [live, test] = testOnly.tenants
        expect(yield* statuses(live)).toEqual({ c0: "active", c1: "active", c2: "active", draft: "draft" })
        expect(yield* statuses(test)).toEqual({
          c0: "number_quality_flagged",
          c1: "number_quality_flagged",
          c2: "number_quality_flagged",
          draft: "draft"
        })
        expect(yield* repo.messagingTier(live)).toEqual(Option.none())
        expect(yield* repo.messagingTier(test)).toEqual(Option.some("TIER_2K"))
      })
    )

    it.effect(
      "a batch of quality events has the effect of each in turn: same pauses and reasons, same tiers, same campaign.paused in the same order",
      () =>
        Effect.gen(function* () {
          const seen = { paused: 0, tiers: 0, active: 0 }
          for (const seed of [1, 2, 3, 4, 5, 6]) {
            const byOne = yield* sameInBatches({
              seed,
              length: 14,
              pool,
              one,
              batch: CampaignQuality.onQualityEvents,
              side: (label) => storeWithCampaigns(label === "b"),
              state
            })
            seen.paused += byOne.events.flat().length
            for (const t of Object.values(byOne.tenants) as Array<{ tier: unknown; campaigns: Array<{ status: Campaign.Status }> }>) {
              if (t.tier !== null) seen.tiers++
              seen.active += t.campaigns.filter((c) => c.status === "active").length
            }
          }
          // the streams did exercise what they are about: pauses, tiers, and campaigns left active
          expect(seen.paused).toBeGreaterThan(0)
          expect(seen.tiers).toBeGreaterThan(0)
          expect(seen.active).toBeGreaterThan(0)
        }),
      120_000
    )
  })
}
