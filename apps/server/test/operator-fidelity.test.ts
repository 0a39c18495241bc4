/**
 * The operator's wire format end to end (real server, real emulator, real HTTP):
 * - the sandbox inbound route answers once the customer exists, so a reply right after it
 *   is inside the window (issue 11, item 14);
 * - a sandbox customer on a store without live credentials never reaches live data (item 3);
 * - templates go with every parameter they declare, from the message and campaign routes
 *   (item 8);
 * - webhook intake: the envelope's object, the operator's notices, interactive replies,
 *   template status, category and quality notices (item 10).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, freePort, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

let h: Harness
let shop: CreatedStore
let emulator: string
let receiver: Awaited<ReturnType<typeof startReceiver>>
let account: { waba: string; phone: string }

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${emulator}/_emulator${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, json: (await res.json()) as any }
}

/** Posts a signed operator webhook of the shop's sandbox account and waits until the inbox has processed it. */
const operatorWebhook = async (payload: Record<string, unknown>) => {
  const before = Number((await h.query<{ n: number }>("SELECT count(*) AS n FROM inbox"))[0].n)
  const posted = await control("POST", "/webhook", { payload })
  expect(posted.json.delivered).toBe(true)
  await eventually(
    async () => {
      const rows = await h.query<{ n: number }>("SELECT count(*) AS n FROM inbox WHERE processed_at IS NOT NULL")
      return Number(rows[0].n) > before
    },
    "webhook processed",
    10_000
  )
}

const envelope = (field: string, value: Record<string, unknown>, object = "whatsapp_business_account") => ({
  object,
  entry: [{ id: account.waba, time: Math.floor(Date.now() / 1000), changes: [{ field, value }] }]
})
const messages = (from: string, message: Record<string, unknown>) =>
  envelope("messages", {
    messaging_product: "whatsapp",
    metadata: { display_phone_number: "15550000000", phone_number_id: account.phone },
    contacts: [{ profile: { name: "Ana" }, wa_id: from }],
    messages: [{ from, id: `wamid.e2e${Math.random().toString(36).slice(2)}`, timestamp: String(Math.floor(Date.now() / 1000)), ...message }]
  })

const customers = async (key: string) => (await h.request("GET", "/chat/customers?limit=100", key)).json.data as Array<any>
const events = (type: string) => receiver.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === type)

beforeAll(async () => {
  const port = await freePort()
  emulator = `http://127.0.0.1:${port}`
  h = await startServer({ SWITCHBOARD_ALLOW_PRIVATE_URLS: "true", SWITCHBOARD_EMULATOR_PORT: String(port) })
  shop = h.createStore("Fidelity shop")
  const [row] = await h.query<{ w: string; p: string }>(
    `SELECT sandbox_waba_id AS w, sandbox_phone_number_id AS p FROM stores WHERE id = '${shop.id}'`
  )
  account = { waba: row.w, phone: row.p }
  receiver = await startReceiver()
  for (const key of [shop.test_key, shop.live_key]) {
    const hook = await h.request("POST", "/chat/webhooks", key, {
      url: receiver.url,
      events: ["message.received", "template.status", "template.category", "template.quality"]
    })
    expect(hook.status).toBe(201)
  }
})

afterAll(async () => {
  await h?.stop()
  receiver?.server.close()
})

describe("the sandbox inbound route (item 14)", () => {
  it("answers once the customer exists: a reply sent right after it is never outside the window", async () => {
    for (let i = 0; i < 5; i++) {
      const from = `+1555777010${i}`
      const inbound = await h.request("POST", "/chat/sandbox/inbound-messages", shop.test_key, { from, text: `hello ${i}` })
      expect(inbound.status).toBe(202)
      expect(inbound.json.customer_id).toMatch(/^cus_/)
      const reply = await h.request("POST", "/chat/messages", shop.test_key, { to: from, type: "text", text: { body: "hi back" } })
      expect(reply.status).toBe(201)
    }
  })
})

describe("test keys never touch live data (item 3)", () => {
  it("a sandbox customer's message and STOP stay on the test side of a store without live credentials", async () => {
    const from = "+15557770200"
    expect((await h.request("POST", "/chat/sandbox/inbound-messages", shop.test_key, { from, text: "hello" })).status).toBe(202)
    expect((await h.request("POST", "/chat/sandbox/inbound-messages", shop.test_key, { from, text: "STOP" })).status).toBe(202)
    expect((await customers(shop.test_key)).some((c) => c.phone === from)).toBe(true)
    const testOptOuts = (await h.request("GET", "/chat/opt-outs", shop.test_key)).json.data
    expect(testOptOuts.map((o: any) => o.phone)).toContain(from)

    expect(await customers(shop.live_key)).toEqual([])
    expect((await h.request("GET", "/chat/opt-outs", shop.live_key)).json.data).toEqual([])
    // the live key may not write free-form to someone who wrote only to the sandbox
    const live = await h.request("POST", "/chat/messages", shop.live_key, { to: from, type: "text", text: { body: "hi" } })
    expect(live.status).toBe(409)
    expect(live.json.error.code).toBe("outside_customer_window")
  })
})

describe("templates with every kind of parameter (item 8)", () => {
  const tracking = {
    templateData: {
      name: "order_tracking",
      category: "UTILITY",
      language: "en_US",
      components: [
        { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["A123"] } },
        { type: "BODY", text: "Hi {{1}}, your order has shipped.", example: { body_text: [["Ana"]] } },
        {
          type: "BUTTONS",
          buttons: [
            { type: "URL", text: "Track", url: "https://shop.example/t/{{1}}", example: ["https://shop.example/t/A123"] },
            { type: "QUICK_REPLY", text: "Stop updates" }
          ]
        }
      ]
    }
  }
  const sent = async () => (await control("GET", `/messages?phone_number_id=${account.phone}`)).json.data as Array<any>

  beforeAll(async () => {
    expect((await h.request("POST", "/chat/templates", shop.live_key, tracking)).status).toBe(201)
    await eventually(
      async () => {
        const sync = await h.request("POST", "/chat/templates/sync", shop.live_key)
        return sync.json.data.some((t: any) => t.name === "order_tracking" && t.status === "APPROVED")
      },
      "template approved",
      10_000
    )
  })

  it("the message route sends header, body and buttons by index and sub-type; a missing one is refused before the operator", async () => {
    const to = "+15557770301"
    const template = {
      name: "order_tracking",
      language: "en_US",
      parameters: ["Ana"],
      header_parameters: ["A123"],
      buttons: [
        { index: 0, sub_type: "url", parameter: "A123" },
        { index: 1, sub_type: "quick_reply", parameter: "STOP_A123" }
      ]
    }
    const ok = await h.request("POST", "/chat/messages", shop.test_key, { to, type: "template", template })
    expect(ok.status).toBe(201)
    const operatorId = ok.json.operator_message_id
    // the template as we sent it, its buttons named button_parameters
    const { buttons, ...named } = template
    expect((await sent()).find((m) => m.id === operatorId).template).toEqual({
      ...named,
      button_parameters: buttons,
      // the components exactly as the operator received them
      components: [
        { type: "header", parameters: [{ type: "text", text: "A123" }] },
        { type: "body", parameters: [{ type: "text", text: "Ana" }] },
        { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "A123" }] },
        { type: "button", sub_type: "quick_reply", index: "1", parameters: [{ type: "payload", payload: "STOP_A123" }] }
      ]
    })

    const noButton = await h.request("POST", "/chat/messages", shop.test_key, { to, type: "template", template: { ...template, buttons: [] } })
    expect(noButton.status).toBe(400)
    expect(noButton.json.error.details.map((d: any) => d.path)).toEqual(["template.buttons"])
    const noHeader = await h.request("POST", "/chat/messages", shop.test_key, {
      to,
      type: "template",
      template: { ...template, header_parameters: undefined }
    })
    expect(noHeader.status).toBe(400)
    expect(noHeader.json.error.details.map((d: any) => d.path)).toEqual(["template.header_parameters"])
  })

  it("the campaign route takes them too, checks them at launch, and every recipient gets them", async () => {
    const template = {
      name: "order_tracking",
      language: "en_US",
      parameters: ["friend"],
      header_parameters: ["A1"],
      buttons: [{ index: 0, sub_type: "url", parameter: "A1" }]
    }
    const incomplete = await h.request("POST", "/chat/campaigns", shop.test_key, { name: "Shipping", template: { ...template, buttons: [] } })
    expect(incomplete.status).toBe(201)
    expect(incomplete.json.template).toMatchObject({ header_parameters: ["A1"], buttons: [] })
    expect((await h.request("POST", `/chat/campaigns/${incomplete.json.id}/recipients`, shop.test_key, { phones: ["+15557770401"] })).status).toBe(
      201
    )
    const refused = await h.request("POST", `/chat/campaigns/${incomplete.json.id}/launch`, shop.test_key)
    expect(refused.status).toBe(400)
    expect(refused.json.error.details.map((d: any) => d.path)).toEqual(["template.buttons"])

    const created = await h.request("POST", "/chat/campaigns", shop.test_key, { name: "Shipping", template })
    expect(created.json.template).toMatchObject({
      parameters: ["friend"],
      header_parameters: ["A1"],
      buttons: [{ index: 0, sub_type: "url", parameter: "A1" }]
    })
    const phones = ["+15557770411", "+15557770412", "+15557770413"]
    expect((await h.request("POST", `/chat/campaigns/${created.json.id}/recipients`, shop.test_key, { phones })).status).toBe(201)
    expect((await h.request("POST", `/chat/campaigns/${created.json.id}/launch`, shop.test_key)).status).toBe(200)
    const done = await eventually(
      async () => {
        const c = await h.request("GET", `/chat/campaigns/${created.json.id}`, shop.test_key)
        return c.json.status === "completed" ? c.json : undefined
      },
      "campaign completed",
      20_000
    )
    expect(done.sent).toBe(3)
    const toCampaign = (await sent()).filter((m) => phones.includes(`+${m.to}`))
    expect(toCampaign).toHaveLength(3)
    for (const m of toCampaign) {
      expect(m.template).toMatchObject({
        parameters: ["friend"],
        header_parameters: ["A1"],
        button_parameters: [{ index: 0, sub_type: "url", parameter: "A1" }]
      })
    }
  })
})

describe("webhook intake (item 10)", () => {
  it("an envelope whose object is not whatsapp_business_account is not applied", async () => {
    await operatorWebhook({ ...messages("15557770501", { type: "text", text: { body: "hi" } }), object: "page" })
    expect((await customers(shop.test_key)).some((c) => c.phone === "+15557770501")).toBe(false)
    const [entry] = await h.query<{ outcome: string }>("SELECT outcome FROM inbox ORDER BY received_at DESC LIMIT 1")
    expect(entry.outcome).toBe("not an operator envelope")
  })

  it("the operator's notices are recorded as what they are, never as a customer's message", async () => {
    const from = "15557770601"
    await operatorWebhook(
      messages(from, { type: "system", system: { body: "User changed number", wa_id: "15557770602", type: "user_changed_number" } })
    )
    await operatorWebhook(messages(from, { type: "unsupported", errors: [{ code: 131051, title: "Message type unknown" }] }))
    await operatorWebhook(messages(from, { type: "revoke", revoke: { original_message_id: "wamid.gone" } }))
    await operatorWebhook(
      messages(from, { type: "edit", edit: { original_message_id: "wamid.x", message: { type: "text", text: { body: "STOP" } } } })
    )
    expect((await customers(shop.test_key)).some((c) => c.phone === `+${from}`)).toBe(false)
    expect((await h.request("GET", "/chat/opt-outs", shop.test_key)).json.data.some((o: any) => o.phone === `+${from}`)).toBe(false)
    const rows = await h.query<{ type: string }>(`SELECT type FROM inbound_messages WHERE from_phone = '+${from}' ORDER BY type`)
    expect(rows.map((r) => r.type)).toEqual(["edit", "revoke", "system", "unsupported"])
    expect(events("message.received").some((e) => e.data.from === `+${from}`)).toBe(false)
    // and the window stays closed
    const text = await h.request("POST", "/chat/messages", shop.test_key, { to: `+${from}`, type: "text", text: { body: "hi" } })
    expect(text.status).toBe(409)
  })

  it("interactive replies keep what was chosen", async () => {
    const from = "15557770701"
    await operatorWebhook(
      messages(from, {
        type: "interactive",
        interactive: { type: "list_reply", list_reply: { id: "slot_9am", title: "9:00", description: "Tomorrow" } }
      })
    )
    await operatorWebhook(
      messages(from, { type: "interactive", interactive: { type: "button_reply", button_reply: { id: "confirm_42", title: "Confirm" } } })
    )
    const received = await eventually(
      async () => {
        const mine = events("message.received").filter((e) => e.data.from === `+${from}`)
        return mine.length >= 2 ? mine : undefined
      },
      "message.received of both replies",
      10_000
    )
    expect(received.map((e) => [e.data.text, e.data.reply]).sort()).toEqual(
      [
        ["9:00", { id: "slot_9am", title: "9:00", description: "Tomorrow" }],
        ["Confirm", { id: "confirm_42", title: "Confirm", description: null }]
      ].sort()
    )
  })

  it("template status is mapped as sync maps it; category and quality notices update the template and reach the caller", async () => {
    const template = async () =>
      ((await h.request("GET", "/chat/templates?limit=100", shop.live_key)).json.data as Array<any>).find((t) => t.name === "order_tracking")
    expect((await control("POST", "/templates/status", { waba_id: account.waba, name: "order_tracking", event: "PAUSED" })).status).toBe(200)
    await eventually(async () => (await template()).status === "PAUSED", "paused", 10_000)
    await operatorWebhook(
      envelope("message_template_status_update", {
        event: "UNARCHIVED",
        message_template_id: 1,
        message_template_name: "order_tracking",
        message_template_language: "en_US",
        reason: null
      })
    )
    expect((await template()).status).toBe("APPROVED")

    expect((await control("POST", "/templates/quality", { waba_id: account.waba, name: "order_tracking", score: "YELLOW" })).status).toBe(200)
    await eventually(async () => (await template()).quality_score === "YELLOW", "quality recorded", 10_000)
    expect((await control("POST", "/templates/category", { waba_id: account.waba, name: "order_tracking", category: "MARKETING" })).status).toBe(200)
    await eventually(async () => (await template()).category === "MARKETING", "category recorded", 10_000)

    const quality = await eventually(async () => events("template.quality")[0], "template.quality event", 10_000)
    expect(quality.data).toEqual({ name: "order_tracking", language: "en_US", quality_score: "YELLOW", previous_quality_score: "UNKNOWN" })
    const category = await eventually(async () => events("template.category")[0], "template.category event", 10_000)
    expect(category.data).toMatchObject({ name: "order_tracking", category: "MARKETING", previous_category: "UTILITY" })
  })
})
