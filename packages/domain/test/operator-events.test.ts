/**
 * What the operator's webhooks do (GRAPH_API.md §2): the envelope's `object`, the operator's
 * notices kept apart from customer messages, interactive replies with what was chosen,
 * template status, category and quality notices; what the sandbox number's events may touch
 * (test data only); and the template send's parameters by component (Appendix B.2).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Option, TestClock } from "effect"
import {
  type Customer,
  type InboundMessage,
  JobQueue,
  Messaging,
  MessagingEvents,
  MessagingRepo,
  SandboxCustomer,
  Store,
  Template,
  TemplateRepo,
  Templates,
  TemplateSend,
  Tenant,
  type WebhookEndpoint,
  WebhookEvent,
  WebhookRepo
} from "../src/index.js"

const envelope = (field: string, value: Record<string, unknown>, object = "whatsapp_business_account") => ({
  object,
  entry: [{ id: "102290129340398", time: 1_700_000_000, changes: [{ field, value }] }]
})
const metadata = { display_phone_number: "15550001111", phone_number_id: "800000000000001" }
const messages = (...items: Array<Record<string, unknown>>) =>
  envelope("messages", {
    messaging_product: "whatsapp",
    metadata,
    contacts: [{ profile: { name: "Ana" }, wa_id: "15551230007" }],
    messages: items.map((m, i) => ({ from: "15551230007", id: `wamid.${i}`, timestamp: "1700000000", ...m }))
  })

describe("WebhookEvent.parse", () => {
  it("takes only envelopes whose object is whatsapp_business_account", () => {
    const text = { type: "text", text: { body: "hi" } }
    expect(WebhookEvent.parse(messages(text), 0)).toHaveLength(1)
    expect(WebhookEvent.parse({ ...messages(text), object: "page" }, 0)).toBeUndefined()
    expect(WebhookEvent.parse({ ...messages(text), object: undefined }, 0)).toBeUndefined()
    expect(WebhookEvent.parse({ entry: [] }, 0)).toBeUndefined()
  })

  it("system, revoke, edit and unsupported are the operator's notices, never customer messages", () => {
    const events = WebhookEvent.parse(
      messages(
        { type: "system", system: { body: "User A changed from 15551230007 to 15551230008", wa_id: "15551230008", type: "user_changed_number" } },
        { type: "revoke", revoke: { original_message_id: "wamid.original" } },
        { type: "edit", edit: { original_message_id: "wamid.original", message: { type: "text", text: { body: "Text was edited" } } } },
        { type: "unsupported", errors: [{ code: 131051, title: "Message type unknown" }] },
        { type: "text", text: { body: "a real message" } }
      ),
      0
    )!
    expect(events.map((e) => e._tag)).toEqual(["OperatorNotice", "OperatorNotice", "OperatorNotice", "OperatorNotice", "InboundMessage"])
    expect(events.slice(0, 4)).toEqual([
      expect.objectContaining({
        kind: "system",
        from: "15551230007",
        text: "User A changed from 15551230007 to 15551230008",
        originalMessageId: null
      }),
      expect.objectContaining({ kind: "revoke", text: null, originalMessageId: "wamid.original" }),
      expect.objectContaining({ kind: "edit", text: "Text was edited", originalMessageId: "wamid.original" }),
      expect.objectContaining({ kind: "unsupported", text: "Message type unknown" })
    ])
    // a system notice may name no number at all (a user id change)
    const noNumber = WebhookEvent.parse(
      envelope("messages", {
        metadata,
        messages: [{ id: "wamid.x", timestamp: "1", type: "system", system: { body: "changed", type: "user_changed_user_id" } }]
      }),
      0
    )!
    expect(noNumber).toEqual([expect.objectContaining({ _tag: "OperatorNotice", kind: "system", from: null })])
  })

  it("interactive replies keep what was chosen: button, list row (with its description), template quick reply", () => {
    const events = WebhookEvent.parse(
      messages(
        { type: "interactive", context: { id: "wamid.q" }, interactive: { type: "button_reply", button_reply: { id: "yes_42", title: "Yes" } } },
        { type: "interactive", interactive: { type: "list_reply", list_reply: { id: "slot_9am", title: "9:00", description: "Tomorrow morning" } } },
        { type: "button", button: { payload: "STOP_PROMOS", text: "Stop promotions" } }
      ),
      0
    ) as Array<WebhookEvent.InboundMessage>
    expect(events.map((e) => [e.type, e.text, e.reply])).toEqual([
      ["interactive", "Yes", { id: "yes_42", title: "Yes", description: null }],
      ["interactive", "9:00", { id: "slot_9am", title: "9:00", description: "Tomorrow morning" }],
      ["button", "Stop promotions", { id: "STOP_PROMOS", title: "Stop promotions", description: null }]
    ])
    expect((WebhookEvent.parse(messages({ type: "text", text: { body: "hi" } }), 0)![0] as WebhookEvent.InboundMessage).reply).toBeNull()
  })

  it("template category and quality notices name the template and what changed", () => {
    const base = { message_template_id: 12345678, message_template_name: "my_template", message_template_language: "en_US" }
    expect(WebhookEvent.parse(envelope("template_category_update", { ...base, previous_category: "UTILITY", new_category: "MARKETING" }), 0)).toEqual(
      [
        {
          _tag: "TemplateCategoryUpdate",
          wabaId: "102290129340398",
          name: "my_template",
          language: "en_US",
          category: "MARKETING",
          previousCategory: "UTILITY",
          upcomingCategory: null,
          effectiveAt: null
        }
      ]
    )
    const impending = WebhookEvent.parse(
      envelope("template_category_update", {
        ...base,
        correct_category: "MARKETING",
        new_category: "UTILITY",
        category_update_timestamp: 1_900_000_000
      }),
      0
    )!
    expect(impending[0]).toMatchObject({ category: "UTILITY", upcomingCategory: "MARKETING", effectiveAt: 1_900_000_000_000 })
    expect(
      WebhookEvent.parse(envelope("message_template_quality_update", { ...base, previous_quality_score: "GREEN", new_quality_score: "YELLOW" }), 0)
    ).toEqual([
      { _tag: "TemplateQualityUpdate", wabaId: "102290129340398", name: "my_template", language: "en_US", score: "YELLOW", previousScore: "GREEN" }
    ])
  })
})

// ---------------------------------------------------------------------------------------
// in-memory ports that record what each handler wrote, and in which tenant

interface Written {
  readonly port: string
  readonly tenant: Tenant.Tenant | { readonly storeId: string }
  readonly what: unknown
}
let written: Array<Written> = []
const templates = new Map<
  string,
  { status: Template.Status; category: Template.Category; qualityScore: Template.QualityScore | null; rejectedReason: string | null }
>()

const ports = Layer.mergeAll(
  Layer.succeed(MessagingRepo.InboundMessageRepo, {
    record: (tenant, message) =>
      Effect.sync(() => {
        written.push({ port: "inbound", tenant, what: message })
        return true
      }),
    recordMany: () => Effect.dieMessage("unused")
  }),
  Layer.succeed(MessagingRepo.CustomerInboundRepo, {
    recordInbound: (tenant, input) =>
      Effect.sync(() => {
        written.push({ port: "customer", tenant, what: input })
        const customer: Customer.Customer = {
          id: input.newId,
          storeId: tenant.storeId,
          mode: tenant.mode,
          phone: input.phone,
          waId: input.waId,
          profileName: input.profileName,
          lastInboundAt: input.at,
          createdAt: input.at,
          updatedAt: input.at
        }
        return customer
      }),
    recordInbounds: () => Effect.dieMessage("unused")
  }),
  Layer.succeed(MessagingRepo.OptOutRepo, {
    add: (tenant, phone, source) =>
      Effect.sync(() => {
        written.push({ port: "optOut", tenant, what: { phone, source } })
        return true
      }),
    remove: (tenant, phone) =>
      Effect.sync(() => {
        written.push({ port: "optIn", tenant, what: phone })
        return true
      }),
    addMany: (tenant, phones, source) =>
      Effect.sync(() => {
        for (const phone of phones) written.push({ port: "optOut", tenant, what: { phone, source } })
        return new Set(phones)
      }),
    removeMany: (tenant, phones) =>
      Effect.sync(() => {
        for (const phone of phones) written.push({ port: "optIn", tenant, what: phone })
        return new Set(phones)
      }),
    isOptedOut: () => Effect.succeed(false),
    filterOptedOut: () => Effect.succeed(new Set<string>()),
    list: () => Effect.dieMessage("unused")
  }),
  Layer.succeed(TemplateRepo.TemplateStatusRepo, {
    updateStatus: (storeId, name, language, update) =>
      Effect.sync(() => {
        const key = `${name}/${language}`
        const row = templates.get(key)
        if (row === undefined || (row.status === update.status && row.rejectedReason === update.rejectedReason)) return false
        templates.set(key, { ...row, status: update.status, rejectedReason: update.rejectedReason, category: update.category ?? row.category })
        written.push({ port: "templateStatus", tenant: { storeId }, what: update })
        return true
      }),
    updateDetails: (storeId, name, language, update) =>
      Effect.sync(() => {
        const key = `${name}/${language}`
        const row = templates.get(key)
        if (row === undefined) return false
        const next = { ...row, category: update.category ?? row.category, qualityScore: update.qualityScore ?? row.qualityScore }
        if (next.category === row.category && next.qualityScore === row.qualityScore) return false
        templates.set(key, next)
        written.push({ port: "templateDetails", tenant: { storeId }, what: update })
        return true
      }),
    detailsOf: () => Effect.dieMessage("unused"),
    writeDetails: () => Effect.dieMessage("unused")
  }),
  // every caller event is recorded as written (one subscribing endpoint per tenant)
  Layer.succeed(WebhookRepo.WebhookRepo, {
    insertEndpoint: () => Effect.dieMessage("unused"),
    findEndpoint: () => Effect.dieMessage("unused"),
    listEndpoints: () => Effect.dieMessage("unused"),
    updateEndpoint: () => Effect.dieMessage("unused"),
    deleteEndpoint: () => Effect.dieMessage("unused"),
    subscribers: () => Effect.succeed([{ id: "whe_1" } as unknown as WebhookEndpoint.WebhookEndpoint]),
    insertEvents: (tenant, events) =>
      Effect.sync(() => {
        for (const event of events) written.push({ port: "event", tenant, what: { type: event.type, data: event.data } })
      }),
    listAttempts: () => Effect.dieMessage("unused"),
    findAttempt: () => Effect.dieMessage("unused")
  }),
  Layer.succeed(JobQueue.JobQueue, { enqueue: () => Effect.succeed("job_1"), enqueueAll: () => Effect.void } as unknown as JobQueue.JobQueue["Type"])
)

const embeddedStore = Store.make({ name: "Shop" }).pipe(Effect.map(({ store }) => store))
const modesWritten = (port: string) => [...new Set(written.filter((w) => w.port === port).map((w) => (w.tenant as Tenant.Tenant).mode))]
const inbound = (text: string, extra: Partial<WebhookEvent.InboundMessage> = {}): WebhookEvent.InboundMessage => ({
  _tag: "InboundMessage",
  phoneNumberId: "800000000000001",
  from: "15551230007",
  profileName: "Ana",
  messageId: `wamid.${text}`,
  timestamp: 1_700_000_000_000,
  type: "text",
  text,
  reply: null,
  raw: {},
  ...extra
})

describe("test keys never touch live data (a store without live credentials)", () => {
  it.effect("a sandbox customer's message and STOP write test data only", () =>
    Effect.gen(function* () {
      written = []
      const store = yield* embeddedStore
      expect(store.live).toBeNull()
      yield* MessagingEvents.onInboundMessage(store, "sandbox", inbound("hello"))
      yield* MessagingEvents.onInboundMessage(store, "sandbox", inbound("STOP"))
      for (const port of ["inbound", "customer", "optOut", "event"]) expect(modesWritten(port)).toEqual(["test"])
      expect(written.filter((w) => w.port === "optOut")).toHaveLength(1)
    }).pipe(Effect.provide(ports))
  )

  it.effect("the sandbox's marketing preference signal opts out on the test side only; a live number's events stay live", () =>
    Effect.gen(function* () {
      written = []
      const store = yield* embeddedStore
      yield* MessagingEvents.onMarketingPreference(store, "sandbox", {
        _tag: "MarketingPreference",
        phoneNumberId: "1",
        waId: "15551230007",
        optedOut: true
      })
      expect(modesWritten("optOut")).toEqual(["test"])
      written = []
      yield* MessagingEvents.onInboundMessage(store, "live", inbound("STOP", { messageId: "wamid.live" }))
      expect(modesWritten("optOut")).toEqual(["live"])
      expect(MessagingEvents.modesOf(store, "sandbox")).toEqual(["test"])
    }).pipe(Effect.provide(ports))
  )
})

describe("the operator's notices", () => {
  it.effect("are recorded as what they are, and touch no customer, no window, no keyword, no message.received", () =>
    Effect.gen(function* () {
      written = []
      const store = yield* embeddedStore
      const events = WebhookEvent.parse(
        messages(
          { type: "system", system: { body: "STOP", type: "user_changed_number" } },
          { type: "revoke", revoke: { original_message_id: "wamid.o" } },
          { type: "edit", edit: { original_message_id: "wamid.o", message: { type: "text", text: { body: "STOP" } } } },
          { type: "unsupported", errors: [{ code: 131051, title: "Message type unknown" }] }
        ),
        0
      ) as Array<WebhookEvent.OperatorNotice>
      for (const event of events) yield* MessagingEvents.onOperatorNotice(store, "sandbox", event)
      expect(written.map((w) => w.port)).toEqual(["inbound", "inbound", "inbound", "inbound"])
      expect(written.map((w) => (w.what as InboundMessage.InboundMessage).type)).toEqual(["system", "revoke", "edit", "unsupported"])
      expect(written.map((w) => (w.what as InboundMessage.InboundMessage).from)).toEqual(Array(4).fill("+15551230007"))
    }).pipe(Effect.provide(ports))
  )

  it.effect("a reply to buttons or a list reaches the caller with what was chosen", () =>
    Effect.gen(function* () {
      written = []
      const store = yield* embeddedStore
      const [event] = WebhookEvent.parse(
        messages({
          type: "interactive",
          interactive: { type: "list_reply", list_reply: { id: "slot_9am", title: "9:00", description: "Tomorrow" } }
        }),
        0
      ) as Array<WebhookEvent.InboundMessage>
      yield* MessagingEvents.onInboundMessage(store, "sandbox", event)
      const received = written.find((w) => w.port === "event")!.what as { type: string; data: Record<string, unknown> }
      expect(received.type).toBe("message.received")
      expect(received.data).toMatchObject({ type: "interactive", text: "9:00", reply: { id: "slot_9am", title: "9:00", description: "Tomorrow" } })
    }).pipe(Effect.provide(ports))
  )
})

describe("template notices", () => {
  const storeId = "str_00000000000000000000000001" as Tenant.StoreId
  const reset = () => {
    written = []
    templates.clear()
    templates.set("promo/en_US", { status: "ARCHIVED", category: "UTILITY", qualityScore: null, rejectedReason: null })
  }

  it.effect("every status the operator reports is mapped as sync maps it: UNARCHIVED, LOCKED and REINSTATED are APPROVED", () =>
    Effect.gen(function* () {
      for (const event of ["UNARCHIVED", "LOCKED", "REINSTATED"]) {
        reset()
        expect(yield* Templates.applyStatusUpdate(storeId, { name: "promo", language: "en_US", event, reason: null })).toBe(true)
        expect(templates.get("promo/en_US")!.status).toBe("APPROVED")
        expect(written.filter((w) => w.port === "event").map((w) => (w.what as any).data.status)).toEqual(["APPROVED", "APPROVED"])
      }
      const reported = [
        "APPROVED",
        "REJECTED",
        "PENDING",
        "FLAGGED",
        "PAUSED",
        "DISABLED",
        "REINSTATED",
        "IN_APPEAL",
        "PENDING_DELETION",
        "DELETED",
        "LIMIT_EXCEEDED",
        "ARCHIVED",
        "UNARCHIVED",
        "LOCKED"
      ]
      for (const event of reported) {
        reset()
        yield* Templates.applyStatusUpdate(storeId, { name: "promo", language: "en_US", event, reason: null })
        expect(templates.get("promo/en_US")!.status).toBe(Template.statusFromOperator(event))
      }
      reset()
      expect(yield* Templates.applyStatusUpdate(storeId, { name: "promo", language: "en_US", event: "SOMETHING_NEW", reason: null })).toBe(false)
      expect(Template.statusFromOperator("SOMETHING_NEW")).toBeUndefined()
    }).pipe(Effect.provide(ports))
  )

  it.effect("a completed category change updates the template and goes on as template.category; an impending one only goes on", () =>
    Effect.gen(function* () {
      reset()
      const update = {
        name: "promo",
        language: "en_US",
        category: "MARKETING" as const,
        previousCategory: "UTILITY" as const,
        upcomingCategory: null,
        effectiveAt: null
      }
      expect(yield* Templates.applyCategoryUpdate(storeId, update)).toBe(true)
      expect(templates.get("promo/en_US")!.category).toBe("MARKETING")
      const events = written.filter((w) => w.port === "event")
      expect(events.map((w) => [(w.tenant as Tenant.Tenant).mode, (w.what as any).type])).toEqual([
        ["live", "template.category"],
        ["test", "template.category"]
      ])
      expect((events[0].what as any).data).toEqual({
        name: "promo",
        language: "en_US",
        category: "MARKETING",
        previous_category: "UTILITY",
        upcoming_category: null,
        effective_at: null
      })
      // a repeated notice changes nothing and says nothing
      written = []
      expect(yield* Templates.applyCategoryUpdate(storeId, update)).toBe(false)
      expect(written).toEqual([])

      const impending = { ...update, category: "MARKETING" as const, upcomingCategory: "UTILITY" as const, effectiveAt: 1_900_000_000_000 }
      expect(yield* Templates.applyCategoryUpdate(storeId, impending)).toBe(false)
      expect(templates.get("promo/en_US")!.category).toBe("MARKETING")
      expect((written.find((w) => w.port === "event")!.what as any).data).toMatchObject({
        upcoming_category: "UTILITY",
        effective_at: "2030-03-17T17:46:40.000Z"
      })
    }).pipe(Effect.provide(ports))
  )

  it.effect("a quality rating updates the template and goes on as template.quality", () =>
    Effect.gen(function* () {
      reset()
      expect(yield* Templates.applyQualityUpdate(storeId, { name: "promo", language: "en_US", score: "RED", previousScore: "GREEN" })).toBe(true)
      expect(templates.get("promo/en_US")!.qualityScore).toBe("RED")
      expect(written.find((w) => w.port === "event")!.what as any).toEqual({
        type: "template.quality",
        data: { name: "promo", language: "en_US", quality_score: "RED", previous_quality_score: "GREEN" }
      })
      expect(yield* Templates.applyQualityUpdate(storeId, { name: "nope", language: "en_US", score: "RED", previousScore: null })).toBe(false)
    }).pipe(Effect.provide(ports))
  )
})

describe("a template send names every parameter the template declares (B.2)", () => {
  const components: ReadonlyArray<Template.Component> = [
    { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["A123"] } },
    { type: "BODY", text: "Hi {{1}}, order {{2}} shipped.", example: { body_text: [["Ana", "A123"]] } },
    {
      type: "BUTTONS",
      buttons: [
        { type: "QUICK_REPLY", text: "Stop updates" },
        { type: "URL", text: "Track", url: "https://x.example/t/{{1}}", example: ["https://x.example/t/A123"] },
        { type: "URL", text: "Shop", url: "https://x.example/shop" },
        { type: "COPY_CODE", text: "Copy", example: ["SPRING25"] }
      ]
    }
  ]
  const paths = (send: Omit<TemplateSend.TemplateSend, "name" | "language">) => TemplateSend.check(components, send).map((i) => i.path)

  it("the template of Appendix B.1 is valid: a header may end with its variable (a body may not)", () => {
    const data = { name: "order_update", category: "UTILITY" as const, language: "en_US", components }
    expect(Either.isRight(Template.validate(data))).toBe(true)
    const endsWithVariable = { ...data, components: [{ type: "BODY" as const, text: "Your order {{1}}", example: { body_text: [["A1"]] } }] }
    expect(Either.isLeft(Template.validate(endsWithVariable))).toBe(true)
  })

  it("what each component asks for", () => {
    expect(TemplateSend.needsOf(components)).toEqual({
      header: 1,
      body: 2,
      buttons: [
        { index: 0, type: "QUICK_REPLY", subType: "quick_reply", required: false },
        { index: 1, type: "URL", subType: "url", required: true },
        { index: 3, type: "COPY_CODE", subType: "copy_code", required: true }
      ]
    })
    const otp: ReadonlyArray<Template.Component> = [
      { type: "BODY", text: "Your code is {{1}}.", example: { body_text: [["1"]] } },
      { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] }
    ]
    expect(TemplateSend.needsOf(otp).buttons).toEqual([{ index: 0, type: "OTP", subType: "url", required: true }])
  })

  it("a complete send passes; each missing, extra or mistyped parameter is named", () => {
    const complete = {
      parameters: ["Ana", "A123"],
      header_parameters: ["A123"],
      buttons: [
        { index: 1, sub_type: "url" as const, parameter: "A123" },
        { index: 3, sub_type: "copy_code" as const, parameter: "SPRING25" }
      ]
    }
    expect(paths(complete)).toEqual([])
    expect(paths({ ...complete, buttons: [...complete.buttons, { index: 0, sub_type: "quick_reply", parameter: "STOP" }] })).toEqual([])
    expect(paths({ ...complete, header_parameters: undefined })).toEqual(["template.header_parameters"])
    expect(paths({ ...complete, parameters: ["Ana"] })).toEqual(["template.parameters"])
    expect(paths({ ...complete, buttons: [complete.buttons[1]] })).toEqual(["template.buttons"])
    expect(paths({ ...complete, buttons: [{ ...complete.buttons[0], sub_type: "quick_reply" }, complete.buttons[1]] })).toEqual([
      "template.buttons[0].sub_type"
    ])
    expect(paths({ ...complete, buttons: [...complete.buttons, { index: 2, sub_type: "url", parameter: "x" }] })).toEqual([
      "template.buttons[2].index"
    ])
    expect(paths({ ...complete, buttons: [...complete.buttons, complete.buttons[0]] })).toEqual(["template.buttons[2].index"])
    expect(TemplateSend.check([{ type: "BODY", text: "Hello" }], { parameters: [], header_parameters: ["x"] }).map((i) => i.message)).toEqual([
      "the template's header takes no parameter"
    ])
  })
})

describe("the sandbox inbound route answers once the customer exists (TestClock)", () => {
  const run = (appliedAfterPolls: number) =>
    Effect.gen(function* () {
      const { store } = yield* Store.make({ name: "Shop" })
      let polls = 0
      const customer = { id: "cus_01JD0000000000000000000001" } as Customer.Customer
      const layer = Layer.mergeAll(
        Layer.succeed(SandboxCustomer.SandboxCustomer, {
          sendInbound: () => Effect.succeed({ messageId: "wamid.sandbox" }),
          sendPayment: () => Effect.die("not used"),
          flowDataExchange: () => Effect.die("not used")
        }),
        Layer.succeed(MessagingRepo.CustomerRepo, {
          findByInboundMessage: (tenant, wamid) =>
            Effect.sync(() => {
              expect([tenant.mode, wamid]).toEqual(["test", "wamid.sandbox"])
              return ++polls > appliedAfterPolls ? Option.some(customer) : Option.none()
            }),
          findById: () => Effect.dieMessage("unused"),
          findByPhone: () => Effect.dieMessage("unused"),
          findManyByIds: () => Effect.dieMessage("unused"),
          list: () => Effect.dieMessage("unused")
        }),
        Layer.succeed(Tenant.CurrentStore, { store, tenant: { storeId: store.id, mode: "test" } })
      )
      const fiber = yield* Effect.fork(Messaging.sandboxInbound({ from: "+15551230007", text: "hello" }).pipe(Effect.provide(layer)))
      yield* TestClock.adjust("11 seconds")
      return { answer: yield* Fiber.join(fiber), polls }
    })

  it.effect("it waits until the inbox applied the message, and names the customer", () =>
    Effect.gen(function* () {
      const { answer, polls } = yield* run(3)
      expect(answer).toEqual({ accepted: true, operator_message_id: "wamid.sandbox", customer_id: "cus_01JD0000000000000000000001" })
      expect(polls).toBe(4)
    })
  )

  it.effect("a message not applied within the timeout is still accepted, without a customer", () =>
    Effect.gen(function* () {
      const { answer } = yield* run(Number.POSITIVE_INFINITY)
      expect(answer).toEqual({ accepted: true, operator_message_id: "wamid.sandbox", customer_id: null })
    })
  )
})
