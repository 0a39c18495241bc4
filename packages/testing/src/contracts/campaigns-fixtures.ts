/** Fixtures of the campaign contract: stores, campaigns and recipients written through the port, and recounts to compare counters with. */
import { Campaign, CampaignRepo, Id, Store, StoreRepo, type Tenant, type WebhookEvent } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { expect } from "vitest"

export type Scope = Tenant.Tenant

export const createStore = Effect.gen(function* () {
  const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
  yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
  return made.store
})

let phoneSeq = 0
/** A phone number not used before in this run (never ending in 0000..0002). */
export const phone = (): string => `+1777${String(1_000_000 + 10 * phoneSeq++ + 5).slice(-7)}`

export const newCampaign = (scope: Scope, overrides: Partial<Campaign.Campaign> = {}): Campaign.Campaign => {
  const now = new Date()
  return {
    id: Id.make("cmp"),
    storeId: scope.storeId,
    mode: scope.mode,
    name: "Spring sale",
    templateName: "spring_sale",
    templateLanguage: "en_US",
    parameters: ["Ann"],
    templateCategory: null,
    templateComponents: null,
    messagesPerSecond: null,
    status: "draft",
    scheduledAt: null,
    phoneNumberId: null,
    pausedReason: null,
    counters: Campaign.zeroCounters,
    launchedAt: null,
    completedAt: null,
    cancelledAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
}

export const pending = (p: string, overrides: Partial<CampaignRepo.NewRecipient> = {}): CampaignRepo.NewRecipient => ({
  id: Id.make("rcp"),
  phone: p,
  input: p,
  customerId: null,
  parameters: null,
  status: "pending",
  skipReason: null,
  ...overrides
})

export const repo = CampaignRepo.CampaignRepo

/** A campaign with `n` pending recipients, moved to `active` on a fresh sender number. */
export const activeCampaign = (n: number) =>
  Effect.gen(function* () {
    const r = yield* repo
    const store = yield* createStore
    const scope: Scope = { storeId: store.id, mode: "test" }
    const campaign = newCampaign(scope)
    yield* r.insert(campaign)
    const phones = Array.from({ length: n }, phone)
    yield* r.addRecipients(campaign.id, ["draft"], phones.map((p) => pending(p)), new Date())
    const phoneNumberId = `pn_${Id.randomToken(10)}`
    const active = yield* r.transition(campaign.id, { from: ["draft"], to: "active", now: new Date(), set: { phoneNumberId, launchedAt: new Date() } })
    return { store, scope, campaign: Option.getOrThrow(active), phones, phoneNumberId }
  })

/** The counters read back equal a recount from the rows. */
export const expectCountersExact = (campaignId: string) =>
  Effect.gen(function* () {
    const r = yield* repo
    const before = Option.getOrThrow(yield* r.get(campaignId)).counters
    const recounted = Option.getOrThrow(yield* r.recount(campaignId)).counters
    expect(recounted).toEqual(before)
    expect(Option.getOrThrow(yield* r.get(campaignId)).counters).toEqual(before)
    return before
  })

export const allRecipients = (campaignId: string) =>
  Effect.map(
    Effect.flatMap(repo, (r) => r.listRecipients(campaignId, { limit: 100 })),
    (slice) => slice.items
  )

export const report = (store: Store.Store, recipientId: string, status: string, error: WebhookEvent.MessageStatus["error"] = null): WebhookEvent.MessageStatus => ({
  _tag: "MessageStatus",
  phoneNumberId: store.sandbox.phoneNumberId,
  messageId: `wamid.${recipientId}`,
  status,
  timestamp: new Date(1_700_000_000_000),
  recipientId: "15550000000",
  callbackData: recipientId,
  error
})

export const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
