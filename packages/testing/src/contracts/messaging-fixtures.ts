/** Fixtures of the messaging contract: stores, scopes, messages, caller webhook endpoints, events and attempts. */
import { Id, Message, MessagingRepo, Store, StoreRepo, WebhookEndpoint } from "@switchboard/domain"
import { Effect } from "effect"

export type Scope = MessagingRepo.Scope

/** A new store written through the repository (rows below reference it). */
export const createStore = Effect.gen(function* () {
  const made = yield* Store.make({ name: `Shop ${Id.randomToken(6)}`, live: null })
  yield* (yield* StoreRepo.StoreRepo).create(made.store, made.keys)
  return made.store
})

/** Two stores and three scopes: store A live, store A test, store B live. */
export const threeScopes = Effect.gen(function* () {
  const a = yield* createStore
  const b = yield* createStore
  return {
    aLive: { storeId: a.id, mode: "live" } as Scope,
    aTest: { storeId: a.id, mode: "test" } as Scope,
    bLive: { storeId: b.id, mode: "live" } as Scope
  }
})

let phoneSeq = 0
/** A phone number not used before in this run. */
export const phone = (): string => `+1555${String(phoneSeq++).padStart(7, "0")}`

export const message = (scope: Scope, overrides: Partial<Message.Message> = {}): Message.Message => {
  const now = new Date()
  return {
    id: Id.make("msg"),
    storeId: scope.storeId,
    mode: scope.mode,
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
}

export const endpoint = (
  scope: Scope,
  events: ReadonlyArray<WebhookEndpoint.EventType>,
  overrides: Partial<WebhookEndpoint.WebhookEndpoint> = {}
): WebhookEndpoint.WebhookEndpoint => {
  const now = new Date()
  return {
    id: Id.make("we"),
    storeId: scope.storeId,
    mode: scope.mode,
    url: `https://example.com/hooks/${Id.randomToken(6)}`,
    events,
    secret: WebhookEndpoint.newSecret(),
    status: "enabled",
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
    ...overrides
  }
}

export const event = (scope: Scope, type: WebhookEndpoint.EventType, data: unknown = { n: 1 }): WebhookEndpoint.Event => ({
  id: Id.make("evt"),
  storeId: scope.storeId,
  mode: scope.mode,
  type,
  data,
  createdAt: new Date()
})

export const attempt = (endpointId: string, eventId: string, n: number, overrides: Partial<WebhookEndpoint.DeliveryAttempt> = {}) => ({
  id: Id.make("dlv"),
  endpointId,
  eventId,
  attempt: n,
  statusCode: 500,
  error: "HTTP 500",
  durationMs: 42,
  createdAt: new Date(),
  ...overrides
})

export const nowMillis = Effect.clockWith((clock) => clock.currentTimeMillis)
