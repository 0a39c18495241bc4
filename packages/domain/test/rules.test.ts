import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Id, Message, OptOut, Pagination, Phone, Template, WebhookEvent } from "../src/index.js"

const body = (text: string, examples?: Array<string>): Template.TemplateData => ({
  name: "order_update",
  category: "UTILITY",
  language: "en_US",
  components: [{ type: "BODY", text, ...(examples ? { example: { body_text: [examples] } } : {}) }]
})

const issues = (data: Template.TemplateData) =>
  Either.match(Template.validate(data), { onLeft: (e) => e.details.map((d) => `${d.path}: ${d.message}`), onRight: () => [] })

describe("template validation", () => {
  it("accepts a well-formed template", () => {
    expect(issues(body("Hi {{1}}, order {{2}} shipped.", ["Ana", "A-1"]))).toEqual([])
  })
  it("names: lower-case letters, digits, underscores", () => {
    expect(issues({ ...body("Hello"), name: "Bad-Name" })[0]).toMatch(/^templateData.name:/)
    expect(issues({ ...body("Hello"), name: "" })[0]).toMatch(/^templateData.name:/)
    expect(issues({ ...body("Hello"), name: "a".repeat(513) })[0]).toMatch(/at most 512/)
  })
  it("placeholders start at 1, have no gaps, have examples, and are not at the edges or adjacent", () => {
    expect(issues(body("Hi {{2}} there", ["x"]))[0]).toMatch(/start at \{\{1\}\}/)
    expect(issues(body("Hi {{1}} and {{3}} ok", ["x", "y"]))[0]).toMatch(/no gaps/)
    expect(issues(body("Hi {{1}} ok"))[0]).toMatch(/example/)
    expect(issues(body("{{1}} is here", ["x"]))[0]).toMatch(/start or end/)
    expect(issues(body("Hi {{1}}{{2}} ok", ["x", "y"])).join()).toMatch(/adjacent/)
    expect(issues(body("Hi {{name}} ok", ["x"]))[0]).toMatch(/positional/)
  })
  it("the operator's length limits", () => {
    expect(issues(body("x".repeat(1025)))[0]).toMatch(/1024/)
    const header = {
      ...body("Hello"),
      components: [
        { type: "HEADER" as const, text: "h".repeat(61) },
        { type: "BODY" as const, text: "Hello" }
      ]
    }
    expect(issues(header)[0]).toMatch(/components\[0\].text: must be at most 60/)
    const noBody = { ...body("Hello"), components: [{ type: "FOOTER" as const, text: "f" }] }
    expect(issues(noBody)[0]).toMatch(/exactly one BODY/)
  })
  it("language codes", () => {
    expect(issues({ ...body("Hello"), language: "english" })[0]).toMatch(/^templateData.language/)
    expect(issues({ ...body("Hello"), language: "pt_BR" })).toEqual([])
  })
  it("counts body parameters and renders them", () => {
    const c = body("Hi {{1}}, {{2}} and {{1}} again.", ["a", "b"]).components
    expect(Template.bodyParameterCount(c)).toBe(2)
    expect(Template.renderBody(c, ["Ana", "Bo"])).toBe("Hi Ana, Bo and Ana again.")
  })
})

describe("message status", () => {
  it("only moves forward; failed is final; read before delivered stays read", () => {
    expect(Message.advance("accepted", "sent")).toBe("sent")
    expect(Message.advance("read", "delivered")).toBeUndefined()
    expect(Message.advance("sent", "read")).toBe("read")
    expect(Message.advance("sent", "sent")).toBeUndefined()
    expect(Message.advance("failed", "read")).toBeUndefined()
    expect(Message.advance("delivered", "failed")).toBeUndefined()
    expect(Message.advance("accepted", "failed")).toBe("failed")
    expect(Message.advance("accepted", "bogus")).toBeUndefined()
    for (const to of ["sent", "delivered", "read", "failed"] as const) {
      for (const from of Message.predecessors(to)) expect(Message.advance(from, to)).toBe(to)
    }
  })
})

describe("opt-out keywords", () => {
  it.each(["STOP", "stop", " Stop! ", "unsubscribe", "BAJA", "arrêt", "Abmelden", "opt out"])("%s opts out", (t) => {
    expect(OptOut.keywordIntent(t)).toBe("stop")
  })
  it.each(["START", "start", "Unstop"])("%s opts in", (t) => expect(OptOut.keywordIntent(t)).toBe("start"))
  it.each(["please stop sending me offers?", "stopwatch", "hello", ""])("%j is not a keyword", (t) => expect(OptOut.keywordIntent(t)).toBeUndefined())
})

describe("ids, phones, cursors", () => {
  it("ids are prefixed, sortable and unique", () => {
    const ids = Array.from({ length: 1000 }, () => Id.unsafeMake("tpl", Date.now()))
    expect(new Set(ids).size).toBe(1000)
    expect([...ids].sort()).toEqual(ids)
    expect(Id.isShaped("tpl", ids[0])).toBe(true)
    expect(Id.isShaped("cmp", ids[0])).toBe(false)
  })
  it("E.164 normalisation", () => {
    expect(Phone.normalize("+1 (555) 123-0001")).toBe("+15551230001")
    expect(Phone.normalize("15551230001")).toBeUndefined()
    expect(Phone.normalize("+0123456789")).toBeUndefined()
    expect(Phone.fromWaId("15551230001")).toBe("+15551230001")
  })
  it("typed cursors round-trip and refuse garbage and another position's text", () => {
    const Templates = Id.kind("tpl", "TemplateIdForTest")
    const cursor = Pagination.Cursor(Templates.schema)
    const id = Id.unsafeMake("tpl", Date.now())
    expect(Schema.decodeSync(cursor)(Schema.encodeSync(cursor)(id as never))).toBe(id)
    expect(Either.isLeft(Schema.decodeEither(cursor)("not-a-cursor"))).toBe(true)
    const bySeq = Pagination.Cursor(Schema.NumberFromString)
    expect(Either.isLeft(Schema.decodeEither(cursor)(Schema.encodeSync(bySeq)(42)))).toBe(true)
  })
  it("a page's next_cursor is the cursor schema's encoding of its last item, and none on the last page", () => {
    const Templates = Id.kind("tpl", "TemplateIdForTest")
    const ids = [Id.unsafeMake("tpl", 1_790_000_000_000), Id.unsafeMake("tpl", 1_790_000_000_001)]
    const page = Pagination.pageOf(Pagination.sliceOf(ids, 1), Templates.schema, (id) => id as never)
    expect(page.next_cursor).toBe(Schema.encodeSync(Pagination.Cursor(Templates.schema))(ids[0] as never))
    expect(Schema.decodeSync(Pagination.Cursor(Templates.schema))(page.next_cursor!)).toBe(ids[0])
    expect(Pagination.pageOf(Pagination.sliceOf(ids, 2), Templates.schema, (id) => id as never).next_cursor).toBeNull()
    const bySeq = Pagination.pageOf(Pagination.sliceOf([7, 8], 1), Pagination.Sequence("test"), (n) => n)
    expect(bySeq.next_cursor).toBe(Schema.encodeSync(Pagination.Cursor(Pagination.Sequence("test")))(7))
  })
})

describe("operator webhook parsing", () => {
  const metadata = { display_phone_number: "15550001111", phone_number_id: "111" }
  it("reads inbound messages with the profile name, statuses with errors and callback data, template updates, preferences", () => {
    const events = WebhookEvent.parse(
      {
        object: "whatsapp_business_account",
        entry: [
          {
            id: "999",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata,
                  contacts: [{ profile: { name: "Ana" }, wa_id: "15551230001" }],
                  messages: [{ from: "15551230001", id: "wamid.A", timestamp: "1700000000", type: "text", text: { body: "STOP" } }],
                  statuses: [
                    {
                      id: "wamid.B",
                      status: "failed",
                      timestamp: "1700000001",
                      recipient_id: "15551230000",
                      biz_opaque_callback_data: "msg_1",
                      errors: [{ code: 131026, title: "Message undeliverable" }]
                    }
                  ]
                }
              },
              {
                field: "message_template_status_update",
                value: {
                  event: "REJECTED",
                  message_template_id: 1,
                  message_template_name: "t",
                  message_template_language: "en_US",
                  reason: "INCORRECT_CATEGORY"
                }
              },
              {
                field: "user_preferences",
                value: { metadata, user_preferences: [{ wa_id: "15551230003", category: "marketing_messages", value: "stop" }] }
              },
              { field: "account_update", value: { whatever: true } }
            ]
          }
        ]
      },
      0
    )!
    expect(events.map((e) => e._tag)).toEqual(["InboundMessage", "MessageStatus", "TemplateStatus", "MarketingPreference"])
    expect(events[0]).toMatchObject({ phoneNumberId: "111", from: "15551230001", profileName: "Ana", text: "STOP", messageId: "wamid.A" })
    expect(events[1]).toMatchObject({ status: "failed", callbackData: "msg_1", error: { code: 131026, title: "Message undeliverable" } })
    expect(events[2]).toMatchObject({ wabaId: "999", name: "t", event: "REJECTED", reason: "INCORRECT_CATEGORY" })
    expect(events[3]).toMatchObject({ waId: "15551230003", optedOut: true })
  })
  it("answers undefined for what is not an envelope, and skips malformed entries", () => {
    expect(WebhookEvent.parse("nope", 0)).toBeUndefined()
    const malformed = { entry: [{ changes: [{ field: "messages", value: { messages: [{ id: "x" }] } }] }] }
    // an envelope names its object; one that does not is no operator envelope
    expect(WebhookEvent.parse(malformed, 0)).toBeUndefined()
    expect(WebhookEvent.parse({ object: "whatsapp_business_account", ...malformed }, 0)).toEqual([])
  })
})
