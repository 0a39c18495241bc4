/**
 * The messaging, template and webhook rules that depend on time or on the shape of what the
 * API shows: the 24-hour window through `TestClock`, the resources derived from the
 * entities (the JSON the routes answered before the entities became schemas), and path ids
 * that answer 404 without reaching storage.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option, Schema, TestClock } from "effect"
import {
  Customer,
  Errors,
  JobQueue,
  Message,
  MessageOperator,
  MessageSending,
  Messaging,
  MessagingRepo,
  OptOut,
  Store,
  Template,
  TemplateRepo,
  Tenant,
  Time,
  WebhookDeliveries,
  WebhookEndpoint,
  WebhookRepo,
  Webhooks
} from "../src/index.js"
import { FlowRepo, FlowResponseRepo, MediaPorts } from "../src/Modules.js"

const T0 = Date.parse("2030-01-31T09:00:00.000Z")

// ---------------------------------------------------------------------------------------
// in-memory ports, enough for one tenant

const unused = (port: string) => () => Effect.dieMessage(`${port} should not be reached`)

const customers = new Map<string, Customer.Customer>()
const messages = new Map<string, Message.Message>()
const sent: Array<MessageOperator.OutboundMessage> = []

const ports = Layer.mergeAll(
  Layer.succeed(MessagingRepo.CustomerRepo, {
    findById: (_, id) => Effect.succeed(Option.fromNullable(customers.get(id))),
    findByPhone: (_, phone) => Effect.succeed(Option.fromNullable([...customers.values()].find((c) => c.phone === phone))),
    findByInboundMessage: unused("findByInboundMessage"),
    findManyByIds: unused("findManyByIds"),
    list: unused("list")
  }),
  Layer.succeed(MessagingRepo.OptOutRepo, {
    add: () => Effect.succeed(true),
    remove: () => Effect.succeed(true),
    addMany: (_, phones) => Effect.succeed(new Set(phones)),
    removeMany: (_, phones) => Effect.succeed(new Set(phones)),
    isOptedOut: () => Effect.succeed(false),
    filterOptedOut: () => Effect.succeed(new Set<string>()),
    list: unused("list")
  }),
  Layer.succeed(MessagingRepo.MessageRepo, {
    insert: (_, message) => Effect.sync(() => void messages.set(message.id, message)),
    findById: (_, id) => Effect.succeed(Option.fromNullable(messages.get(id))),
    list: unused("messages.list"),
    markAccepted: () => Effect.succeed(true),
    advanceStatus: () => Effect.succeed(true)
  }),
  Layer.succeed(MessageOperator.MessageOperator, {
    sendMessage: (_, message) =>
      Effect.sync(() => {
        sent.push(message)
        return { messageId: `wamid.${sent.length}` }
      })
  }),
  Layer.succeed(TemplateRepo.TemplateRepo, {
    list: unused("templates.list"),
    findByName: unused("templates.findByName"),
    find: () => Effect.succeed(Option.none()),
    insert: unused("templates.insert"),
    replaceAll: unused("templates.replaceAll"),
    deleteByName: unused("templates.deleteByName")
  }),
  Layer.succeed(WebhookRepo.WebhookRepo, {
    insertEndpoint: unused("insertEndpoint"),
    findEndpoint: unused("findEndpoint"),
    listEndpoints: unused("listEndpoints"),
    updateEndpoint: unused("updateEndpoint"),
    deleteEndpoint: unused("deleteEndpoint"),
    subscribers: () => Effect.succeed([]),
    insertEvents: unused("insertEvents"),
    listAttempts: unused("listAttempts"),
    findAttempt: unused("findAttempt")
  }),
  // flow messages are sent in the e2e tests (apps/server/test/flows.test.ts): no flow exists here
  Layer.succeed(FlowRepo.FlowRepo, new Proxy({}, { get: (_, name) => unused(`flows.${String(name)}`) }) as FlowRepo.FlowRepo["Type"]),
  Layer.succeed(
    FlowResponseRepo.FlowResponseRepo,
    new Proxy({}, { get: (_, name) => unused(`flowResponses.${String(name)}`) }) as FlowResponseRepo.FlowResponseRepo["Type"]
  ),
  // text messages name no media
  Layer.succeed(MediaPorts.MediaRepo, new Proxy({}, { get: (_, name) => unused(`media.${String(name)}`) }) as MediaPorts.MediaRepo["Type"]),
  Layer.succeed(MediaPorts.MediaFiles, new Proxy({}, { get: (_, name) => unused(`mediaFiles.${String(name)}`) }) as MediaPorts.MediaFiles["Type"]),
  Layer.succeed(
    MediaPorts.MediaOperator,
    new Proxy({}, { get: (_, name) => unused(`mediaOperator.${String(name)}`) }) as MediaPorts.MediaOperator["Type"]
  ),
  // no endpoint subscribes, so no delivery is ever queued
  Layer.succeed(JobQueue.JobQueue, new Proxy({}, { get: (_, name) => unused(`jobs.${String(name)}`) }) as JobQueue.JobQueue["Type"])
)

/** The caller: a test key of a store without live credentials. */
const asCaller = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { store } = yield* Store.make({ name: "Shop" })
    const caller: Tenant.Caller = { store, tenant: { storeId: store.id, mode: "test" } }
    return yield* Effect.provideService(effect, Tenant.CurrentStore, caller)
  })

const customerWhoWroteAt = (at: Time.Millis) =>
  Effect.gen(function* () {
    const customer: Customer.Customer = {
      id: yield* Customer.CustomerId.generate,
      storeId: yield* Tenant.StoreId.generate,
      mode: "test",
      phone: "+15551230007",
      waId: "15551230007",
      profileName: "Ana",
      lastInboundAt: at,
      createdAt: at,
      updatedAt: at
    }
    customers.set(customer.id, customer)
    return customer
  })

describe("the 24-hour customer window (TestClock)", () => {
  it.effect("a text goes while the window is open and is refused from the 24th hour on", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      customers.clear()
      const customer = yield* customerWhoWroteAt(T0)
      const text: Message.SendMessage = { to: customer.phone, type: "text", text: { body: "hello back" } }

      yield* TestClock.adjust(Time.DAY - 1)
      const accepted = yield* asCaller(MessageSending.send(text))
      expect(accepted).toMatchObject({ status: "accepted", operatorMessageId: `wamid.${sent.length}`, createdAt: T0 + Time.DAY - 1 })
      expect(Customer.view(customer, false, yield* Time.now)).toMatchObject({ windowOpen: true, windowExpiresAt: T0 + Time.DAY })

      yield* TestClock.adjust(1)
      const refused = yield* Effect.either(asCaller(MessageSending.send(text)))
      expect(Either.isLeft(refused) && refused.left).toBeInstanceOf(Errors.OutsideCustomerWindow)
      expect(Customer.view(customer, false, yield* Time.now).windowOpen).toBe(false)
    }).pipe(Effect.provide(ports))
  )

  it.effect("a customer who never wrote has no window", () =>
    Effect.gen(function* () {
      expect(Customer.windowOpen({ lastInboundAt: null }, yield* Time.now)).toBe(false)
      expect(Customer.windowOpen(undefined, yield* Time.now)).toBe(false)
    })
  )
})

describe("path ids", () => {
  it.effect("a malformed or foreign-kind id answers 404 without reaching storage", () =>
    Effect.gen(function* () {
      for (const id of ["nope", "cus_01JD00000000000000000000AA", `msg_${"0".repeat(25)}`]) {
        const found = yield* Effect.either(asCaller(Messaging.getMessage(id)))
        expect(Either.isLeft(found) && found.left).toEqual(new Errors.ResourceNotFound({ resource: "message", id }))
      }
      const endpoint = yield* Effect.either(asCaller(Webhooks.get("whe_nope")))
      expect(Either.isLeft(endpoint) && endpoint.left).toEqual(new Errors.ResourceNotFound({ resource: "webhook endpoint", id: "whe_nope" }))
      const removed = yield* Effect.either(asCaller(Webhooks.remove("tpl_01JD00000000000000000000AA")))
      expect(Either.isLeft(removed) && removed.left).toBeInstanceOf(Errors.ResourceNotFound)
    }).pipe(Effect.provide(ports))
  )
})

describe("resources derived from the entities", () => {
  const storeId = Id("str")
  const keys = (o: object) => Object.keys(o)
  function Id(prefix: string) {
    return `${prefix}_01JD0000000000000000000000`
  }
  /** The id, store and mode an entity of the store starts with. */
  const owned = <I, M extends Tenant.Mode>(id: I, mode: M) => ({ id, storeId: storeId as Tenant.StoreId, mode })

  it("a message: error title as message, flow_token only on flow messages, ISO times", () => {
    const message = {
      ...owned(Id("msg") as Message.MessageId, "test"),
      to: "+15551230007",
      type: "text" as const,
      content: { body: "hi" },
      status: "failed" as const,
      operatorMessageId: "wamid.1",
      error: { code: 131026, title: "Message undeliverable" },
      flowToken: null,
      createdAt: T0,
      updatedAt: T0 + 1500
    }
    const json = Schema.encodeSync(Message.MessageResource)(message)
    expect(json).toEqual({
      id: message.id,
      to: "+15551230007",
      type: "text",
      status: "failed",
      operator_message_id: "wamid.1",
      error: { code: 131026, message: "Message undeliverable" },
      created_at: "2030-01-31T09:00:00.000Z",
      updated_at: "2030-01-31T09:00:01.500Z"
    })
    expect(keys(json)).toEqual(["id", "to", "type", "status", "operator_message_id", "error", "created_at", "updated_at"])
    const flow = Schema.encodeSync(Message.MessageResource)({ ...message, type: "flow", error: null, flowToken: "ft_1" })
    expect(keys(flow)).toEqual(["id", "to", "type", "status", "operator_message_id", "error", "flow_token", "created_at", "updated_at"])
    expect(flow).toMatchObject({ error: null, flow_token: "ft_1" })
  })

  it("a customer: its window and opt-out at the time of the request", () => {
    const customer: Customer.Customer = {
      ...owned(Id("cus") as Customer.CustomerId, "live"),
      phone: "+15551230007",
      waId: "15551230007",
      profileName: null,
      lastInboundAt: T0,
      createdAt: T0 - 1000,
      updatedAt: T0
    }
    const json = Schema.encodeSync(Customer.CustomerResource)(Customer.view(customer, true, T0 + Time.HOUR))
    expect(json).toEqual({
      id: customer.id,
      phone: "+15551230007",
      wa_id: "15551230007",
      profile_name: null,
      last_message_at: "2030-01-31T09:00:00.000Z",
      window_open: true,
      window_expires_at: "2030-02-01T09:00:00.000Z",
      opted_out: true,
      created_at: "2030-01-31T08:59:59.000Z"
    })
    expect(keys(json)).toEqual([
      "id",
      "phone",
      "wa_id",
      "profile_name",
      "last_message_at",
      "window_open",
      "window_expires_at",
      "opted_out",
      "created_at"
    ])
    const never = Schema.encodeSync(Customer.CustomerResource)(Customer.view({ ...customer, lastInboundAt: null }, false, T0))
    expect(never).toMatchObject({ last_message_at: null, window_open: false, window_expires_at: null })
  })

  it("a template: components shown as stored, even shapes we never submit", () => {
    const components = [
      { type: "HEADER", format: "IMAGE", example: { header_handle: ["h"] } },
      { type: "BODY", text: "Hi" }
    ]
    const template = {
      id: Id("tpl") as Template.TemplateId,
      storeId: storeId as Tenant.StoreId,
      name: "spring_sale",
      language: "en_US",
      category: "MARKETING" as const,
      status: "APPROVED" as const,
      components: components as unknown as ReadonlyArray<Template.Component>,
      rejectedReason: null,
      qualityScore: null,
      operatorId: "123",
      createdAt: T0,
      updatedAt: T0
    }
    const json = Schema.encodeSync(Template.TemplateResource)(template)
    expect(keys(json)).toEqual([
      "id",
      "name",
      "language",
      "category",
      "status",
      "components",
      "rejected_reason",
      "quality_score",
      "created_at",
      "updated_at"
    ])
    expect(json.components).toEqual(components)
  })

  it("an endpoint (its secret only on creation), a delivery and an opt-out", () => {
    const endpoint: WebhookEndpoint.WebhookEndpoint = {
      ...owned(Id("whe") as WebhookEndpoint.WebhookEndpointId, "live"),
      url: "https://example.com/hooks",
      events: ["message.status"],
      secret: "whsec_abc",
      status: "disabled",
      disabledReason: "the endpoint answered 410 Gone",
      createdAt: T0,
      updatedAt: T0
    }
    const shown = Schema.encodeSync(WebhookEndpoint.EndpointResource)(endpoint)
    expect(keys(shown)).toEqual(["id", "url", "events", "status", "disabled_reason", "created_at", "updated_at"])
    expect(Schema.encodeSync(WebhookEndpoint.CreatedEndpoint)(endpoint)).toEqual({ ...shown, secret: "whsec_abc" })

    const delivery = {
      id: Id("dlv") as WebhookEndpoint.DeliveryId,
      endpointId: endpoint.id,
      eventId: Id("evt") as WebhookEndpoint.EventId,
      attempt: 2,
      statusCode: null,
      error: "connection refused",
      durationMs: 12,
      createdAt: T0,
      eventType: "message.status"
    }
    expect(Schema.encodeSync(WebhookEndpoint.DeliveryResource)(delivery)).toEqual({
      id: delivery.id,
      endpoint_id: endpoint.id,
      event_id: delivery.eventId,
      event_type: "message.status",
      attempt: 2,
      status_code: null,
      error: "connection refused",
      duration_ms: 12,
      created_at: "2030-01-31T09:00:00.000Z"
    })
    expect(Schema.encodeSync(OptOut.OptOutResource)({ phone: "+15551230007", source: "keyword", createdAt: T0 })).toEqual({
      phone: "+15551230007",
      source: "keyword",
      created_at: "2030-01-31T09:00:00.000Z"
    })
  })

  it("a delivery's body carries the event's id, type, ISO time and data", () => {
    const event = {
      ...owned(Id("evt") as WebhookEndpoint.EventId, "live"),
      type: "customer.opted_in",
      data: { phone: "+1555" },
      createdAt: T0
    }
    expect(JSON.parse(WebhookEndpoint.payloadOf(event))).toEqual({
      id: event.id,
      type: "customer.opted_in",
      created_at: "2030-01-31T09:00:00.000Z",
      data: { phone: "+1555" }
    })
  })
})

describe("caller webhook deliveries", () => {
  it("retry for about three days, then give up", () => {
    const total = WebhookDeliveries.RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThan(2.5 * Time.DAY)
    expect(total).toBeLessThan(3.5 * Time.DAY)
    expect(WebhookDeliveries.retryDelayMs(1)).toBe(5_000)
    expect(WebhookDeliveries.retryDelayMs(99)).toBe(43_200_000)
    expect(WebhookDeliveries.deliverJob).toMatchObject({ kind: "webhook.deliver", transactional: false, maxAttempts: WebhookDeliveries.MAX_ATTEMPTS })
  })

  it("a job whose payload names no event and endpoint ids does not decode", () => {
    const decode = Schema.decodeUnknownEither(WebhookDeliveries.deliverJob.payload)
    expect(Either.isLeft(decode({ eventId: "x", endpointId: "y" }))).toBe(true)
    expect(Either.isRight(decode({ eventId: Id("evt"), endpointId: Id("whe") }))).toBe(true)
    function Id(prefix: string) {
      return `${prefix}_01JD0000000000000000000000`
    }
  })
})
