/** Fixtures of the campaign contract: stores, campaigns and recipients written through the ports, and recounts to compare counters with. */
import { Campaign, type CampaignRecipient, CampaignRepo, Id, Store, StoreRepo, type Tenant, Time, type WebhookEvent } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { expect } from "vitest"

export const createStore = Effect.gen(function* () {
  const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
  yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
  return made.store
})

/** The tenant of a store's test (or live) key. */
export const tenantOf = (store: Store.Store, mode: Tenant.Mode = "test"): Tenant.Tenant => ({ storeId: store.id, mode })

let phoneSeq = 0
/** A phone number not used before in this run (never ending in 0000..0002). */
export const phone = (): string => `+1777${String(1_000_000 + 10 * phoneSeq++ + 5).slice(-7)}`

/** A draft of the tenant (not stored), timed by the Clock. */
export const newCampaign = (tenant: Tenant.Tenant, overrides: Partial<Campaign.Campaign> = {}) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const campaign: Campaign.Campaign = {
      id: yield* Campaign.CampaignId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      templateHeader: null,
      name: "Spring sale",
      templateName: "spring_sale",
      templateLanguage: "en_US",
      parameters: ["Ann"],
      headerParameters: [],
      buttonParameters: [],
      templateCategory: null,
      templateComponents: null,
      messagesPerSecond: null,
      status: "draft",
      scheduledAt: null,
      phoneNumberId: null,
      pausedReason: null,
      limitedUntil: null,
      sendWindow: null,
      ...Campaign.zeroCounters,
      launchedAt: null,
      completedAt: null,
      cancelledAt: null,
      createdAt: now,
      updatedAt: now,
      ...overrides
    }
    return campaign
  })

/** A new recipient id (outside the Clock: fixtures build thousands synchronously). */
const recipientId = (): CampaignRecipient.RecipientId => Id.unsafeMake("rcp", Date.now()) as CampaignRecipient.RecipientId

export const pending = (p: string | null, overrides: Partial<CampaignRepo.NewRecipient> = {}): CampaignRepo.NewRecipient => ({
  id: recipientId(),
  phone: p,
  input: p ?? "",
  customerId: null,
  parameters: null,
  status: "pending",
  skipReason: null,
  ...overrides
})

export const repo = CampaignRepo.CampaignRepo
export const laneRepo = CampaignRepo.CampaignLaneRepo

/** A draft of a fresh store's test tenant, inserted. */
export const storedDraft = (overrides: Partial<Campaign.Campaign> = {}) =>
  Effect.gen(function* () {
    const tenant = tenantOf(yield* createStore)
    const campaign = yield* newCampaign(tenant, overrides)
    yield* (yield* repo).insert(tenant, campaign)
    return { tenant, campaign }
  })

/** A campaign with `n` pending recipients, moved to `active` on a fresh sender number. */
export const activeCampaign = (n: number) =>
  Effect.gen(function* () {
    const r = yield* repo
    const store = yield* createStore
    const tenant = tenantOf(store)
    const campaign = yield* newCampaign(tenant)
    yield* r.insert(tenant, campaign)
    const phones = Array.from({ length: n }, phone)
    const now = yield* Time.now
    yield* r.addRecipients(
      tenant,
      campaign.id,
      ["draft"],
      phones.map((p) => pending(p)),
      now
    )
    const phoneNumberId = `pn_${Id.randomToken(10)}`
    const active = yield* r.transition(tenant, campaign.id, { from: ["draft"], to: "active", now, set: { phoneNumberId, launchedAt: now } })
    return { store, tenant, campaign: Option.getOrThrow(active), phones, phoneNumberId }
  })

/** The counters read back (by the tenant and by the worker) equal a recount from the rows. */
export const expectCountersExact = (campaign: Pick<Campaign.Campaign, "id" | "storeId" | "mode">) =>
  Effect.gen(function* () {
    const tenant = Campaign.tenantOf(campaign)
    const before = Campaign.countersOf(Option.getOrThrow(yield* (yield* laneRepo).get(campaign.id)))
    expect(Campaign.countersOf(Option.getOrThrow(yield* (yield* repo).findById(tenant, campaign.id)))).toEqual(before)
    const recounted = Campaign.countersOf(Option.getOrThrow(yield* (yield* repo).recount(tenant, campaign.id)))
    expect(recounted).toEqual(before)
    expect(Campaign.countersOf(Option.getOrThrow(yield* (yield* laneRepo).get(campaign.id)))).toEqual(before)
    return before
  })

export const allRecipients = (campaign: Pick<Campaign.Campaign, "id" | "storeId" | "mode">) =>
  Effect.map(
    Effect.flatMap(repo, (r) => r.listRecipients(Campaign.tenantOf(campaign), campaign.id, { limit: 100 })),
    (slice) => slice.items
  )

export const report = (
  store: Store.Store,
  recipientId: string,
  status: string,
  error: WebhookEvent.MessageStatus["error"] = null
): WebhookEvent.MessageStatus => ({
  _tag: "MessageStatus",
  phoneNumberId: store.sandbox.phoneNumberId,
  messageId: `wamid.${recipientId}`,
  status,
  timestamp: 1_700_000_000_000,
  recipientId: "15550000000",
  callbackData: recipientId,
  error
})

export const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
