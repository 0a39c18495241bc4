/**
 * Fixtures of the messaging contract: stores, tenants, messages, caller webhook endpoints,
 * events and attempts. Ids come from their kinds and times from the suite's `TestClock`.
 */
import { Id, Message, Store, StoreRepo, type Tenant, Time, WebhookEndpoint } from "@switchboard/domain"
import { Effect } from "effect"

/** A new store written through the repository (rows below reference it). */
export const createStore = Effect.gen(function* () {
  const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
  yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
  return made.store
})

/** Two stores and three tenants: store A live, store A test, store B live. */
export const threeTenants = Effect.gen(function* () {
  const a = yield* createStore
  const b = yield* createStore
  const tenant = (storeId: Tenant.StoreId, mode: Tenant.Mode): Tenant.Tenant => ({ storeId, mode })
  return { aLive: tenant(a.id, "live"), aTest: tenant(a.id, "test"), bLive: tenant(b.id, "live") }
})

let phoneSeq = 0
/** A phone number not used before in this run. */
export const phone = (): string => `+1555${String(phoneSeq++).padStart(7, "0")}`

export const message = (tenant: Tenant.Tenant, overrides: Partial<Message.Message> = {}) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const message: Message.Message = {
      id: yield* Message.MessageId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      to: phone(),
      type: "text",
      content: { text: { body: "Your order has shipped ✓" } },
      status: "pending",
      operatorMessageId: null,
      error: null,
      flowToken: null,
      createdAt: now,
      updatedAt: now,
      ...overrides
    }
    return message
  })

export const endpoint = (tenant: Tenant.Tenant, events: ReadonlyArray<string>, overrides: Partial<WebhookEndpoint.WebhookEndpoint> = {}) =>
  Effect.gen(function* () {
    const now = yield* Time.now
    const endpoint: WebhookEndpoint.WebhookEndpoint = {
      id: yield* WebhookEndpoint.WebhookEndpointId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      url: `https://example.com/hooks/${Id.randomToken(6)}`,
      events,
      secret: WebhookEndpoint.newSecret(),
      status: "enabled",
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
      ...overrides
    }
    return endpoint
  })

export const event = (tenant: Tenant.Tenant, type: string, data: unknown = { n: 1 }) =>
  Effect.gen(function* () {
    const event: WebhookEndpoint.Event = {
      id: yield* WebhookEndpoint.EventId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      type,
      data,
      createdAt: yield* Time.now
    }
    return event
  })

export const attempt = (
  endpointId: WebhookEndpoint.WebhookEndpointId,
  eventId: WebhookEndpoint.EventId,
  n: number,
  overrides: Partial<WebhookEndpoint.DeliveryAttempt> = {}
) =>
  Effect.gen(function* () {
    const attempt: WebhookEndpoint.DeliveryAttempt = {
      id: yield* WebhookEndpoint.DeliveryId.generate,
      endpointId,
      eventId,
      attempt: n,
      statusCode: 500,
      error: "HTTP 500",
      durationMs: 42,
      createdAt: yield* Time.now,
      ...overrides
    }
    return attempt
  })

export const nowMillis = Time.now
