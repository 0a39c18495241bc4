/**
 * The emulator refuses what the operator refuses, and answers the list shapes it answers
 * (GRAPH_API.md §1.2, §3.3, §4.1, §4.6, §5.4, Appendix B.2): interactive messages without an
 * `action`, template sends missing a header or button parameter, flow messages naming a flow
 * the WABA does not have; phone numbers with their `status`; template lists with `fields`,
 * `summary` and `name_or_content`; quality and category notices as the operator sends them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"
import { type Receiver, requests, startReceiver, waitFor } from "./helpers.js"

const WABA = "700000000000001"
const PHONE = "800000000000001"
const CUSTOMER = "15551239876"

let emulator: Emulator
let receiver: Receiver
const { graph, control, upload } = requests(() => emulator)
const screen = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: id,
  layout: { type: "SingleColumnLayout", children: [{ type: "TextBody", text: "Hi" }] },
  ...extra
})
const VALID_FLOW_JSON = JSON.stringify({ version: "7.3", screens: [screen("BOOK", { terminal: true })] })
const send = (message: Record<string, unknown>) =>
  graph("POST", `/${PHONE}/messages`, { messaging_product: "whatsapp", recipient_type: "individual", to: CUSTOMER, ...message })

const changes = (field: string) =>
  receiver.received.flatMap((body) => body.entry.flatMap((e: any) => e.changes.filter((c: any) => c.field === field).map((c: any) => c.value)))

/** Creates a template and waits until the review approved it. */
const approved = async (template: Record<string, unknown>) => {
  const created = await graph("POST", `/${WABA}/message_templates`, { language: "en_US", ...template })
  expect(created.status).toBe(200)
  await waitFor(() => changes("message_template_status_update").find((v) => v.message_template_name === template.name && v.event === "APPROVED"))
  return created.json.id as string
}

beforeAll(async () => {
  receiver = await startReceiver()
  emulator = await startEmulator({
    appSecret: "fidelity-secret",
    webhookUrl: receiver.url,
    templateReviewDelayMs: 0,
    statusDelayMs: 5,
    webhookBatchMs: 0,
    // one customer gets every send here: the pair rate is not what these tests are about
    pairBurst: 1_000_000
  })
  expect((await control("POST", "/accounts", { waba_id: WABA, phone_number_id: PHONE, display_phone_number: "15550001111" })).status).toBe(200)
  // the customer writes first, so free-form messages are inside the window
  expect((await control("POST", "/inbound", { phone_number_id: PHONE, from: CUSTOMER, text: "hi" })).status).toBe(200)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

describe("interactive messages", () => {
  it("without an action are refused (131008); with one they go", async () => {
    const bare = await send({ type: "interactive", interactive: { type: "button", body: { text: "Pick one" } } })
    expect(bare.status).toBe(400)
    expect(bare.json.error.code).toBe(131008)
    expect(bare.json.error.error_data.details).toContain("action")
    const ok = await send({
      type: "interactive",
      interactive: { type: "button", body: { text: "Pick one" }, action: { buttons: [{ type: "reply", reply: { id: "yes", title: "Yes" } }] } }
    })
    expect(ok.status).toBe(200)
  })
})

describe("template sends carry every parameter the template declares (B.2)", () => {
  const track = {
    name: "order_tracking",
    category: "UTILITY",
    components: [
      { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["A123"] } },
      { type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } },
      {
        type: "BUTTONS",
        buttons: [
          { type: "QUICK_REPLY", text: "Stop updates" },
          { type: "URL", text: "Track", url: "https://shop.example/t/{{1}}", example: ["https://shop.example/t/A123"] }
        ]
      }
    ]
  }
  const template = (components: ReadonlyArray<unknown>, name = track.name) => ({
    type: "template",
    template: { name, language: { code: "en_US", policy: "deterministic" }, components }
  })
  const header = { type: "header", parameters: [{ type: "text", text: "A123" }] }
  const body = { type: "body", parameters: [{ type: "text", text: "Ana" }] }
  const urlButton = { type: "button", sub_type: "url", index: "1", parameters: [{ type: "text", text: "A123" }] }

  beforeAll(() => approved(track))

  it("a send without the header parameter is refused (132000)", async () => {
    const res = await send(template([body, urlButton]))
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe(132000)
    expect(res.json.error.error_data.details).toMatch(/^header:/)
  })

  it("a send without the dynamic URL button's parameter is refused (131008)", async () => {
    const res = await send(template([header, body]))
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe(131008)
    expect(res.json.error.error_data.details).toBe("buttons: Button at index 1 of type Url requires a parameter")
  })

  it("a button parameter of the wrong sub-type or for a button that takes none is refused (131009)", async () => {
    const wrongType = await send(template([header, body, { ...urlButton, sub_type: "quick_reply" }]))
    expect(wrongType.json.error.code).toBe(131009)
    const noSuchButton = await send(template([header, body, urlButton, { ...urlButton, index: "4" }]))
    expect(noSuchButton.json.error.code).toBe(131009)
  })

  it("header, body and buttons by index and sub-type go, and are recorded", async () => {
    const quickReply = { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: "STOP_A123" }] }
    const res = await send(template([header, body, quickReply, urlButton]))
    expect(res.status).toBe(200)
    const id = res.json.messages[0].id
    const sent = (await control("GET", `/messages?phone_number_id=${PHONE}`)).json.data.find((m: any) => m.id === id)
    expect(sent.template).toEqual({
      name: "order_tracking",
      language: "en_US",
      parameters: ["Ana"],
      header_parameters: ["A123"],
      button_parameters: [
        { index: 0, sub_type: "quick_reply", parameter: "STOP_A123" },
        { index: 1, sub_type: "url", parameter: "A123" }
      ],
      // and the components exactly as sent
      components: [header, body, quickReply, urlButton]
    })
  })

  it("an AUTHENTICATION template's OTP button needs its code", async () => {
    await approved({
      name: "login_code",
      category: "AUTHENTICATION",
      components: [
        { type: "BODY", text: "Your code is {{1}}. Do not share it.", example: { body_text: [["123456"]] } },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] }
      ]
    })
    const code = { type: "body", parameters: [{ type: "text", text: "482910" }] }
    const missing = await send(template([code], "login_code"))
    expect(missing.json.error.code).toBe(131008)
    const ok = await send(
      template([code, { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482910" }] }], "login_code")
    )
    expect(ok.status).toBe(200)
  })
})

describe("flow messages", () => {
  const flow = (parameters: Record<string, unknown>) => ({
    type: "interactive",
    interactive: {
      type: "flow",
      body: { text: "Book a table" },
      action: {
        name: "flow",
        parameters: { flow_message_version: "3", flow_token: "ft_1", flow_cta: "Book", flow_action: "navigate", ...parameters }
      }
    }
  })

  it("naming a flow the WABA does not have is refused (131009)", async () => {
    const res = await send(flow({ flow_id: "999999999999999" }))
    expect(res.status).toBe(400)
    expect(res.json.error.code).toBe(131009)
    expect((await send(flow({ flow_name: "no_such_flow" }))).json.error.code).toBe(131009)
  })

  it("a flow goes in the mode its status allows: a draft as draft, once published as published", async () => {
    const created = await graph("POST", `/${WABA}/flows`, { name: "booking", categories: ["APPOINTMENT_BOOKING"] })
    expect(created.status).toBe(200)
    const id = created.json.id
    // publishing needs a Flow JSON (139002)
    expect((await graph("POST", `/${id}/publish`)).json.error.code).toBe(139002)
    expect((await upload(id, VALID_FLOW_JSON)).json).toEqual({ success: true, validation_errors: [] })
    expect((await graph("GET", `/${id}`)).json).toMatchObject({ id, name: "booking", status: "DRAFT" })
    expect((await send(flow({ flow_id: id }))).json.error.code).toBe(131009)
    expect((await send(flow({ flow_id: id, mode: "draft" }))).status).toBe(200)
    expect((await graph("POST", `/${id}/publish`)).json).toEqual({ success: true })
    expect((await send(flow({ flow_id: id }))).status).toBe(200)
    expect((await send(flow({ flow_name: "booking" }))).status).toBe(200)
    expect((await graph("POST", `/${id}/publish`)).json.error.code).toBe(139002)
    expect((await control("POST", "/flows/status", { flow_id: id, status: "BLOCKED" })).status).toBe(200)
    expect((await send(flow({ flow_id: id }))).json.error.code).toBe(132068)
    expect((await graph("GET", `/${WABA}/flows`)).json.data.map((f: any) => f.id)).toContain(id)
  })

  it("the WABA's flow list pages as the operator's lists do: limit, paging.cursors.after, paging.next while more follow", async () => {
    for (const name of ["page_a", "page_b", "page_c"]) await graph("POST", `/${WABA}/flows`, { name, categories: ["OTHER"] })
    const all = (await graph("GET", `/${WABA}/flows?limit=100`)).json
    expect(all.paging.next).toBeUndefined()
    const ids: Array<string> = []
    let page = (await graph("GET", `/${WABA}/flows?limit=2`)).json
    for (;;) {
      expect(page.data.length).toBeLessThanOrEqual(2)
      ids.push(...page.data.map((f: any) => f.id))
      expect(page.data[0]).toMatchObject({ id: expect.any(String), name: expect.any(String), status: expect.any(String) })
      if (page.paging.next === undefined) break
      page = (await graph("GET", `/${WABA}/flows?limit=2&after=${page.paging.cursors.after}`)).json
    }
    expect(ids).toEqual(all.data.map((f: any) => f.id))
    expect(ids.length).toBeGreaterThanOrEqual(3)
  })

  it("only a DRAFT takes new JSON or endpoint, or is deleted (139001, 139004); an endpoint flow needs its endpoint to publish", async () => {
    const id = (await graph("POST", `/${WABA}/flows`, { name: "with_endpoint", categories: ["OTHER"] })).json.id
    const json = JSON.stringify({
      version: "7.3",
      data_api_version: "3.0",
      routing_model: { BOOK: [] },
      screens: [screen("BOOK", { terminal: true })]
    })
    expect((await upload(id, "{not json")).json.validation_errors[0]).toMatchObject({ error_type: "JSON_SYNTAX_ERROR" })
    expect((await upload(id, json)).json).toEqual({ success: true, validation_errors: [] })
    expect((await graph("POST", `/${id}/publish`)).json.error.code).toBe(139002)
    expect((await graph("POST", `/${id}`, { endpoint_uri: "https://example.com/flow" })).json).toEqual({ success: true })
    expect((await graph("GET", `/${id}`)).json).toMatchObject({
      endpoint_uri: "https://example.com/flow",
      json_version: "7.3",
      preview: { preview_url: expect.any(String) }
    })
    expect((await graph("POST", `/${id}/publish`)).json).toEqual({ success: true })
    expect((await upload(id, json)).json.error.code).toBe(139001)
    expect((await graph("POST", `/${id}`, { endpoint_uri: "https://example.com/other" })).json.error.code).toBe(139001)
    expect((await graph("DELETE", `/${id}`)).json.error.code).toBe(139004)
    const clone = (await graph("POST", `/${WABA}/flows`, { name: "with_endpoint_v2", categories: ["OTHER"], clone_flow_id: id })).json.id
    expect((await graph("GET", `/${clone}`)).json).toMatchObject({ status: "DRAFT", json_version: "7.3", endpoint_uri: "https://example.com/flow" })
    expect((await graph("DELETE", `/${clone}`)).json).toEqual({ success: true })
    expect((await graph("GET", `/${clone}`)).json.error.code).toBe(100)
    expect((await graph("POST", `/${id}/deprecate`)).json).toEqual({ success: true })
    expect((await graph("POST", `/${id}/deprecate`)).json.error.code).toBe(139003)
  })

  it("a phone number's business public key is registered and read back", async () => {
    expect((await graph("POST", `/${PHONE}/whatsapp_business_encryption`, { business_public_key: "nope" })).json.error.code).toBe(100)
    const pem = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n"
    expect((await graph("POST", `/${PHONE}/whatsapp_business_encryption`, { business_public_key: pem })).json).toEqual({ success: true })
    expect((await graph("GET", `/${PHONE}/whatsapp_business_encryption`)).json.data[0]).toMatchObject({ business_public_key: pem })
  })

  it("a flow of another WABA is unknown to this sender", async () => {
    const other = await control("POST", "/flows", { waba_id: "700000000000999", name: "elsewhere" })
    expect(other.json.status).toBe("PUBLISHED")
    expect((await send(flow({ flow_id: other.json.id }))).json.error.code).toBe(131009)
  })
})

describe("lists", () => {
  it("phone numbers carry their status", async () => {
    const res = await graph("GET", `/${WABA}/phone_numbers`)
    expect(res.json.data).toEqual([expect.objectContaining({ id: PHONE, status: "CONNECTED" })])
  })

  it("template lists honour fields, summary and name_or_content", async () => {
    await approved({ name: "spring_news", category: "MARKETING", components: [{ type: "BODY", text: "Our garden collection is here." }] })
    const fields = await graph("GET", `/${WABA}/message_templates?fields=name,status&name=spring_news`)
    expect(fields.json.data).toEqual([{ id: expect.any(String), name: "spring_news", status: "APPROVED" }])

    const byContent = await graph("GET", `/${WABA}/message_templates?name_or_content=GARDEN&fields=name`)
    expect(byContent.json.data.map((t: any) => t.name)).toEqual(["spring_news"])
    const byName = await graph("GET", `/${WABA}/message_templates?name_or_content=order_track&fields=name`)
    expect(byName.json.data.map((t: any) => t.name)).toEqual(["order_tracking"])

    const all = await graph("GET", `/${WABA}/message_templates?summary=total_count,message_template_limit&limit=1`)
    expect(all.json.data).toHaveLength(1)
    expect(all.json.summary).toEqual({ total_count: 3, message_template_limit: 250 })
    const marketing = await graph("GET", `/${WABA}/message_templates?category=MARKETING&summary=true`)
    expect(marketing.json.summary).toEqual({ total_count: 1, message_template_count: 3, message_template_limit: 250 })

    const quality = await graph("GET", `/${WABA}/message_templates?fields=quality_score&name=spring_news`)
    expect(quality.json.data[0].quality_score.score).toBe("UNKNOWN")
  })

  it("quality ratings and re-categorisations reach the business as the operator sends them (A.8, A.9)", async () => {
    expect((await control("POST", "/templates/quality", { waba_id: WABA, name: "spring_news", score: "YELLOW" })).status).toBe(200)
    const rated = await waitFor(() => changes("message_template_quality_update").find((v) => v.message_template_name === "spring_news"))
    expect(rated).toMatchObject({ previous_quality_score: "UNKNOWN", new_quality_score: "YELLOW", message_template_language: "en_US" })
    expect((await graph("GET", `/${WABA}/message_templates?fields=quality_score&name=spring_news`)).json.data[0].quality_score.score).toBe("YELLOW")

    await control("POST", "/templates/category", { waba_id: WABA, name: "order_tracking", category: "MARKETING", impending_at: 1_900_000_000 })
    const impending = await waitFor(() => changes("template_category_update").find((v) => v.correct_category !== undefined))
    expect(impending).toMatchObject({ correct_category: "MARKETING", new_category: "UTILITY", category_update_timestamp: 1_900_000_000 })
    await control("POST", "/templates/category", { waba_id: WABA, name: "order_tracking", category: "MARKETING" })
    const done = await waitFor(() => changes("template_category_update").find((v) => v.previous_category !== undefined))
    expect(done).toMatchObject({ previous_category: "UTILITY", new_category: "MARKETING", message_template_name: "order_tracking" })
  })
})
