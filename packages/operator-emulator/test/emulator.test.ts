/**
 * The emulator over real HTTP: a tiny node:http receiver stands in for the business's webhook endpoint.
 *
 * Over 500 lines on purpose: one suite per edge of the emulator, sharing one receiver and
 * one emulator process setup; split it by edge table when a module adds its own file.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator } from "../src/index.js"
import type { Emulator, EmulatorOptions } from "../src/index.js"

const APP_SECRET = "test-app-secret"

interface Received {
  readonly raw: string
  readonly body: any
  readonly signature: string | undefined
  readonly validSignature: boolean
  /** What the receiver answered. */
  readonly answered: number
}

/** A webhook receiver recording every POST; `answer` picks the HTTP status of each. */
class Receiver {
  readonly received: Received[] = []
  answer: (body: any) => number = () => 200
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const signature = req.headers["x-hub-signature-256"] as string | undefined
      const expected = Buffer.from(`sha256=${createHmac("sha256", APP_SECRET).update(raw).digest("hex")}`)
      const validSignature = signature !== undefined && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), expected)
      const body = JSON.parse(raw.toString("utf8"))
      const answered = this.answer(body)
      this.received.push({ raw: raw.toString("utf8"), body, signature, validSignature, answered })
      res.writeHead(answered).end("ok")
    })
  })
  url = ""

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  /** `value`s of every change with this field received and acknowledged with a 2xx. */
  values(field: string): Array<{ value: any; entryId: string; validSignature: boolean }> {
    return this.received
      .filter((r) => r.answered < 300)
      .flatMap((r) =>
        r.body.entry.flatMap((entry: any) =>
          entry.changes
            .filter((change: any) => change.field === field)
            .map((change: any) => ({ value: change.value, entryId: entry.id, validSignature: r.validSignature }))
        )
      )
  }

  /** Every status object received for messages of this phone number id. */
  statuses(phoneNumberId: string): any[] {
    return this.values("messages")
      .filter((v) => v.value.metadata?.phone_number_id === phoneNumberId && v.value.statuses !== undefined)
      .flatMap((v) => v.value.statuses)
  }
}

const waitFor = async <A>(probe: () => A | undefined | false, timeoutMs = 3000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const call = async (
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = "any-token"
): Promise<{ status: number; headers: Headers; json: any }> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== null) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, json: text.length > 0 ? JSON.parse(text) : undefined }
}

const fastOptions: Partial<EmulatorOptions> = {
  templateReviewDelayMs: 120,
  statusDelayMs: 20,
  webhookBatchMs: 5
}

let receiver: Receiver
let emulator: Emulator
const graph = (method: string, path: string, body?: unknown, token?: string | null) => call(emulator.url, method, `/v23.0${path}`, body, token)
const control = (method: string, path: string, body?: unknown) => call(emulator.url, method, `/_emulator${path}`, body, null)

const register = (waba: string, phone: string) =>
  control("POST", "/accounts", { waba_id: waba, phone_number_id: phone, display_phone_number: "15550001234" })

const templateBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  language: "en_US",
  category: "UTILITY",
  components: [{ type: "BODY", text: "Hi {{1}}, your order {{2}} has shipped." }],
  ...extra
})

const sendText = (phone: string, to: string, text = "hello", extra: Record<string, unknown> = {}) =>
  graph("POST", `/${phone}/messages`, { messaging_product: "whatsapp", to, type: "text", text: { body: text }, ...extra })

const sendTemplate = (phone: string, to: string, name: string, parameters: string[], extra: Record<string, unknown> = {}) =>
  graph("POST", `/${phone}/messages`, {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to,
    type: "template",
    template: {
      name,
      language: { code: "en_US", policy: "deterministic" },
      components: [{ type: "body", parameters: parameters.map((text) => ({ type: "text", text })) }]
    },
    ...extra
  })

/** Creates a template and waits until it is approved. */
const approvedTemplate = async (waba: string, name: string) => {
  const created = await graph("POST", `/${waba}/message_templates`, templateBody(name))
  expect(created.status).toBe(200)
  await waitFor(() => receiver.values("message_template_status_update").find((v) => v.value.message_template_name === name))
}

beforeAll(async () => {
  receiver = new Receiver()
  await receiver.start()
  emulator = await startEmulator({ appSecret: APP_SECRET, webhookUrl: receiver.url, ...fastOptions })
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

describe("templates", () => {
  it("goes PENDING then APPROVED after the review delay, with a signed status webhook", async () => {
    const created = await graph("POST", "/waba1/message_templates", templateBody("order_update"))
    expect(created.status).toBe(200)
    expect(created.json).toEqual({ id: expect.stringMatching(/^\d+$/), status: "PENDING", category: "UTILITY" })
    expect(created.headers.get("x-fb-trace-id")).toBeTruthy()
    expect(created.headers.get("x-business-use-case-usage")).toBeTruthy()

    const pending = await graph("GET", "/waba1/message_templates?name=order_update")
    expect(pending.json.data).toHaveLength(1)
    expect(pending.json.data[0]).toMatchObject({ id: created.json.id, name: "order_update", language: "en_US", status: "PENDING" })

    const update = await waitFor(() =>
      receiver.values("message_template_status_update").find((v) => v.value.message_template_name === "order_update")
    )
    expect(update.validSignature).toBe(true)
    expect(update.entryId).toBe("waba1")
    expect(update.value).toMatchObject({
      event: "APPROVED",
      message_template_id: Number(created.json.id),
      message_template_language: "en_US",
      message_template_category: "UTILITY",
      reason: "NONE"
    })
    const listed = await graph("GET", "/waba1/message_templates")
    expect(listed.json.data.find((t: any) => t.name === "order_update").status).toBe("APPROVED")
  })

  it("settles on read once the review time has passed, even before the timer's webhook", async () => {
    const created = await graph("POST", "/waba_lazy/message_templates", templateBody("lazy_one"))
    await sleep(fastOptions.templateReviewDelayMs! + 10)
    const listed = await graph("GET", "/waba_lazy/message_templates")
    expect(listed.json.data[0]).toMatchObject({ id: created.json.id, status: "APPROVED" })
    await waitFor(() => receiver.values("message_template_status_update").find((v) => v.value.message_template_name === "lazy_one"))
    await sleep(50)
    expect(receiver.values("message_template_status_update").filter((v) => v.value.message_template_name === "lazy_one")).toHaveLength(1)
  })

  it("rejects a promotional UTILITY template as INCORRECT_CATEGORY", async () => {
    const created = await graph(
      "POST",
      "/waba1/message_templates",
      templateBody("promo_utility", { components: [{ type: "BODY", text: "Hi {{1}}, get 20% off your next order with code {{2}} today!" }] })
    )
    expect(created.json.status).toBe("PENDING")
    const update = await waitFor(() =>
      receiver.values("message_template_status_update").find((v) => v.value.message_template_name === "promo_utility")
    )
    expect(update.value).toMatchObject({
      event: "REJECTED",
      reason: "INCORRECT_CATEGORY",
      rejection_info: { reason: expect.any(String), recommendation: expect.any(String) }
    })
    const listed = await graph("GET", "/waba1/message_templates?name=promo_utility")
    expect(listed.json.data[0]).toMatchObject({ status: "REJECTED", rejected_reason: "INCORRECT_CATEGORY" })
  })

  it("validates creation like the operator", async () => {
    const badName = await graph("POST", "/waba1/message_templates", templateBody("Bad Name"))
    expect(badName.status).toBe(400)
    expect(badName.json.error).toMatchObject({ code: 100, type: "OAuthException", fbtrace_id: expect.any(String) })
    expect(badName.json.error.error_user_msg).toBeTruthy()

    const atEnd = await graph(
      "POST",
      "/waba1/message_templates",
      templateBody("var_at_end", { components: [{ type: "BODY", text: "Your code is {{1}}" }] })
    )
    expect(atEnd.json.error).toMatchObject({ code: 100, error_subcode: 2388299 })

    const tooLong = await graph(
      "POST",
      "/waba1/message_templates",
      templateBody("too_long", { components: [{ type: "BODY", text: "a".repeat(1025) }] })
    )
    expect(tooLong.json.error).toMatchObject({ code: 100, error_subcode: 2388040 })

    const gap = await graph(
      "POST",
      "/waba1/message_templates",
      templateBody("gap", { components: [{ type: "BODY", text: "Hi {{1}} and {{3}} there" }] })
    )
    expect(gap.json.error.code).toBe(100)

    const badCategory = await graph("POST", "/waba1/message_templates", templateBody("bad_category", { category: "PROMO" }))
    expect(badCategory.json.error.code).toBe(100)

    await graph("POST", "/waba1/message_templates", templateBody("dupe"))
    const dupe = await graph("POST", "/waba1/message_templates", templateBody("dupe"))
    expect(dupe.json.error).toMatchObject({ code: 100, error_subcode: 2388024 })

    const malformed = await graph("POST", "/waba1/message_templates", "{not json")
    expect(malformed.json.error.code).toBe(100)
  })

  it("pages by cursor in creation order and deletes by name", async () => {
    for (const name of ["page_a", "page_b", "page_c"]) await graph("POST", "/waba_pages/message_templates", templateBody(name))
    const first = await graph("GET", "/waba_pages/message_templates?limit=2")
    expect(first.json.data.map((t: any) => t.name)).toEqual(["page_a", "page_b"])
    expect(first.json.paging.next).toContain("after=")
    const second = await call(emulator.url, "GET", new URL(first.json.paging.next).pathname + new URL(first.json.paging.next).search)
    expect(second.json.data.map((t: any) => t.name)).toEqual(["page_c"])
    expect(second.json.paging.next).toBeUndefined()

    const deleted = await graph("DELETE", "/waba_pages/message_templates?name=page_b")
    expect(deleted.json).toEqual({ success: true })
    const missing = await graph("DELETE", "/waba_pages/message_templates?name=page_b")
    expect(missing.status).toBe(400)
    expect(missing.json.error.code).toBe(100)
    expect(missing.json.error.message).toMatch(/not found/)
  })
})

describe("messages", () => {
  it("refuses free-form text outside the customer window (131047), accepts it after an inbound message", async () => {
    await register("waba2", "1002")
    const outside = await sendText("1002", "+15551230001")
    expect(outside.status).toBe(400)
    expect(outside.json.error).toMatchObject({ code: 131047, error_data: { messaging_product: "whatsapp" } })

    const inbound = await control("POST", "/inbound", { phone_number_id: "1002", from: "+15551230001", text: "Hi!", profile_name: "Ana" })
    expect(inbound.status).toBe(200)
    expect(inbound.json).toMatchObject({ message_id: expect.stringMatching(/^wamid\./), delivered: true, status: 200 })
    const webhook = receiver.values("messages").find((v) => v.value.messages?.[0]?.id === inbound.json.message_id)!
    expect(webhook.validSignature).toBe(true)
    expect(webhook.value).toMatchObject({
      metadata: { phone_number_id: "1002", display_phone_number: "15550001234" },
      contacts: [{ profile: { name: "Ana" }, wa_id: "15551230001" }],
      messages: [{ from: "15551230001", type: "text", text: { body: "Hi!" }, timestamp: expect.stringMatching(/^\d+$/) }]
    })

    const inside = await sendText("1002", "+15551230001")
    expect(inside.status).toBe(200)
    expect(inside.json).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: "+15551230001", wa_id: "15551230001" }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: "accepted" }]
    })
  })

  it("answers code 100 subcode 33 for an unknown phone number and 190 without a token", async () => {
    const unknown = await sendText("999999", "15551230001")
    expect(unknown.status).toBe(400)
    expect(unknown.json.error).toMatchObject({ code: 100, error_subcode: 33 })
    const noToken = await graph("POST", "/1002/messages", { messaging_product: "whatsapp" }, null)
    expect(noToken.status).toBe(401)
    expect(noToken.json.error.code).toBe(190)
    const unknownRoute = await graph("GET", "/1002/nothing_here")
    expect(unknownRoute.json.error.code).toBe(100)
  })

  it("emits the sandbox outcome of each number ending, echoing the callback data", async () => {
    await register("waba3", "1003")
    await approvedTemplate("waba3", "shipping_note")
    const recipients = { undeliverable: "15551110000", unread: "15551110001", optedOut: "15551110002", normal: "15551119999" }
    const ids: Record<string, string> = {}
    for (const [label, to] of Object.entries(recipients)) {
      const sent = await sendTemplate("1003", to, "shipping_note", ["Ana", "A123"], { biz_opaque_callback_data: `cb-${label}` })
      expect(sent.status).toBe(200)
      ids[label] = sent.json.messages[0].id
    }
    const sequenceOf = (id: string) => receiver.statuses("1003").filter((s) => s.id === id)
    await waitFor(() => sequenceOf(ids.normal).length === 3 && sequenceOf(ids.unread).length === 2)
    await sleep(100) // nothing more may arrive

    expect(sequenceOf(ids.normal).map((s) => s.status)).toEqual(["sent", "delivered", "read"])
    expect(sequenceOf(ids.unread).map((s) => s.status)).toEqual(["sent", "delivered"])
    expect(sequenceOf(ids.undeliverable).map((s) => s.status)).toEqual(["failed"])
    expect(sequenceOf(ids.undeliverable)[0].errors[0]).toMatchObject({ code: 131026, title: "Message undeliverable" })
    expect(sequenceOf(ids.optedOut).map((s) => s.status)).toEqual(["failed"])
    expect(sequenceOf(ids.optedOut)[0].errors[0].code).toBe(131050)

    for (const [label, id] of Object.entries(ids)) {
      for (const status of sequenceOf(id)) {
        expect(status.biz_opaque_callback_data).toBe(`cb-${label}`)
        expect(status.recipient_id).toBe(recipients[label as keyof typeof recipients])
      }
    }
    expect(sequenceOf(ids.normal)[0].pricing).toMatchObject({ pricing_model: "PMP", category: "utility" })
    expect(receiver.values("messages").every((v) => v.validSignature)).toBe(true)

    const recorded = await control("GET", "/messages?phone_number_id=1003&to=15551119999")
    expect(recorded.json.data).toEqual([
      expect.objectContaining({
        id: ids.normal,
        type: "template",
        template: {
          name: "shipping_note",
          language: "en_US",
          parameters: ["Ana", "A123"],
          components: [
            {
              type: "body",
              parameters: [
                { type: "text", text: "Ana" },
                { type: "text", text: "A123" }
              ]
            }
          ]
        },
        biz_opaque_callback_data: "cb-normal"
      })
    ])
  })

  it("checks template sends: unknown 132001, parameter count 132000, paused 132015", async () => {
    await register("waba4", "1004")
    await approvedTemplate("waba4", "param_check")
    expect((await sendTemplate("1004", "15552220001", "nope", [])).json.error.code).toBe(132001)
    expect((await sendTemplate("1004", "15552220001", "param_check", ["only one"])).json.error.code).toBe(132000)
    const paused = await control("POST", "/templates/status", { waba_id: "waba4", name: "param_check", event: "PAUSED" })
    expect(paused.status).toBe(200)
    expect((await sendTemplate("1004", "15552220001", "param_check", ["a", "b"])).json.error.code).toBe(132015)
    await waitFor(() =>
      receiver.values("message_template_status_update").find((v) => v.value.message_template_name === "param_check" && v.value.event === "PAUSED")
    )
  })

  it("limits throughput per number in a sliding one-second window (130429)", async () => {
    await register("waba5", "1005")
    await approvedTemplate("waba5", "burst")
    emulator.configure({ messagesPerSecond: 10 })
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => sendTemplate("1005", `1555300${String(i).padStart(4, "1")}`, "burst", ["a", "b"]))
      )
      const limited = answers.filter((a) => a.status === 429)
      expect(limited.length).toBeGreaterThan(0)
      expect(limited[0].json.error.code).toBe(130429)
      const stats = await control("GET", "/stats?phone_number_id=1005")
      expect(stats.json.maxInAnyOneSecondWindow).toBeLessThanOrEqual(10)
      expect(stats.json.rejected429).toBe(limited.length)
      expect(stats.json.sends).toBe(30 - limited.length)
    } finally {
      emulator.configure({ messagesPerSecond: 80 })
    }
  })

  it("limits the pair rate to the same user (131056)", async () => {
    await register("waba6", "1006")
    await approvedTemplate("waba6", "pair")
    emulator.configure({ pairBurst: 2 })
    try {
      const codes = []
      for (let i = 0; i < 3; i++) codes.push((await sendTemplate("1006", "15554440003", "pair", ["a", "b"])).status)
      expect(codes).toEqual([200, 200, 400])
      expect((await sendTemplate("1006", "15554440003", "pair", ["a", "b"])).json.error.code).toBe(131056)
    } finally {
      emulator.configure({ pairBurst: 5 })
    }
  })

  it("records an accepted-but-lost send although it answers 500, and never records a plain 5xx", async () => {
    await register("waba7", "1007")
    await approvedTemplate("waba7", "lossy")
    emulator.configure({ rateAcceptedButLost: 1 })
    const lost = await sendTemplate("1007", "15556660005", "lossy", ["a", "b"], { biz_opaque_callback_data: "lost-1" })
    emulator.configure({ rateAcceptedButLost: 0, rate5xx: 1 })
    const failed = await sendTemplate("1007", "15556660006", "lossy", ["a", "b"], { biz_opaque_callback_data: "failed-1" })
    emulator.configure({ rate5xx: 0 })

    expect(lost.status).toBe(500)
    expect(lost.json.error.code).toBe(131016)
    expect(failed.status).toBe(500)
    expect(failed.json.error.code).toBe(131016)
    const recorded = await control("GET", "/messages?phone_number_id=1007")
    expect(recorded.json.data.map((m: any) => m.biz_opaque_callback_data)).toEqual(["lost-1"])
    await waitFor(() => receiver.statuses("1007").find((s) => s.biz_opaque_callback_data === "lost-1" && s.status === "read"))

    const again = await sendTemplate("1007", "15556660007", "lossy", ["a", "b"], { biz_opaque_callback_data: "lost-1" })
    expect(again.status).toBe(200)
    const stats = await control("GET", "/stats?phone_number_id=1007")
    expect(stats.json).toMatchObject({ sends: 2, duplicatesByCallbackData: 1, lostResponses: 1, rejected5xx: 1 })
  })
})

describe("control API", () => {
  it("applies configuration patches, refuses bad ones, and resets sends but keeps templates", async () => {
    const applied = await control("POST", "/config", { statusDelayMs: 25 })
    expect(applied.json.config.statusDelayMs).toBe(25)
    const refused = await control("POST", "/config", { rate429: 2 })
    expect(refused.status).toBe(400)
    await control("POST", "/config", { statusDelayMs: fastOptions.statusDelayMs })

    await register("waba10", "1010")
    await approvedTemplate("waba10", "kept")
    expect((await sendTemplate("1010", "15551010003", "kept", ["a", "b"])).status).toBe(200)
    expect((await control("GET", "/stats?phone_number_id=1010")).json.sends).toBe(1)
    expect((await control("POST", "/reset")).json).toEqual({ ok: true })
    expect((await control("GET", "/stats?phone_number_id=1010")).json).toMatchObject({ sends: 0, firstSendAt: null })
    expect((await sendTemplate("1010", "15551010003", "kept", ["a", "b"])).status).toBe(200)
  })
})

describe("webhook delivery", () => {
  it("retries a failing receiver with back-off until it answers 2xx", async () => {
    await register("waba8", "1008")
    let failures = 0
    receiver.answer = (body) => {
      const statuses = body.entry?.[0]?.changes?.[0]?.value?.statuses ?? []
      const isSent = statuses.some((s: any) => s.biz_opaque_callback_data === "retry-me" && s.status === "sent")
      if (isSent && failures < 2) {
        failures++
        return 503
      }
      return 200
    }
    try {
      await control("POST", "/inbound", { phone_number_id: "1008", from: "15557770003", text: "hi" })
      const started = Date.now()
      await sendText("1008", "15557770003", "hello", { biz_opaque_callback_data: "retry-me" })
      await waitFor(() => receiver.statuses("1008").some((s) => s.status === "sent"))
      // 100 ms then 200 ms of back-off before the third attempt succeeds.
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)
      expect(failures).toBe(2)
      await waitFor(() => receiver.statuses("1008").some((s) => s.status === "read"))
      expect(
        receiver
          .statuses("1008")
          .map((s) => s.status)
          .sort()
      ).toEqual(["delivered", "read", "sent"])
    } finally {
      receiver.answer = () => 200
    }
  })

  it("posts arbitrary payloads with valid, invalid or no signature", async () => {
    const payload = { object: "whatsapp_business_account", entry: [{ id: "forged", changes: [] }] }
    for (const signature of ["valid", "invalid", "none"] as const) {
      const answer = await control("POST", "/webhook", { payload, signature })
      expect(answer.json).toMatchObject({ delivered: true, status: 200 })
    }
    const forged = receiver.received.filter((r) => r.body.entry?.[0]?.id === "forged")
    expect(forged.map((r) => r.validSignature)).toEqual([true, false, false])
    expect(forged[2].signature).toBeUndefined()
  })

  it("holds background webhooks until a webhook URL is set", async () => {
    const late = await startEmulator({ appSecret: APP_SECRET, ...fastOptions })
    try {
      await call(late.url, "POST", "/v23.0/waba_late/message_templates", templateBody("held_review"))
      await sleep(fastOptions.templateReviewDelayMs! + 30)
      expect(receiver.values("message_template_status_update").some((v) => v.value.message_template_name === "held_review")).toBe(false)
      late.setWebhookUrl(receiver.url)
      const update = await waitFor(() =>
        receiver.values("message_template_status_update").find((v) => v.value.message_template_name === "held_review")
      )
      expect(update.value.event).toBe("APPROVED")
    } finally {
      await late.close()
    }
  })

  it("reports a receiver refusing an inbound message as 502", async () => {
    await register("waba9", "1009")
    receiver.answer = () => 401
    try {
      const inbound = await control("POST", "/inbound", { phone_number_id: "1009", from: "15558880001", text: "hi" })
      expect(inbound.status).toBe(502)
      expect(inbound.json).toMatchObject({ delivered: false, status: 401 })
    } finally {
      receiver.answer = () => 200
    }
  })
})

describe("state file", () => {
  it("keeps accounts, templates and customer windows across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "operator-emulator-"))
    const stateFile = join(dir, "state.json")
    try {
      const first = await startEmulator({ appSecret: APP_SECRET, webhookUrl: receiver.url, stateFile, ...fastOptions })
      await call(first.url, "POST", "/_emulator/accounts", { waba_id: "waba_p", phone_number_id: "2001" }, null)
      const created = await call(first.url, "POST", "/v23.0/waba_p/message_templates", templateBody("persisted"))
      await call(first.url, "POST", "/_emulator/inbound", { phone_number_id: "2001", from: "15559990001", text: "hi" }, null)
      await first.close()
      expect(JSON.parse(readFileSync(stateFile, "utf8")).templates.templates).toHaveLength(1)

      await sleep(fastOptions.templateReviewDelayMs! + 20)
      const second = await startEmulator({ appSecret: APP_SECRET, webhookUrl: receiver.url, stateFile, ...fastOptions })
      try {
        const listed = await call(second.url, "GET", "/v23.0/waba_p/message_templates")
        expect(listed.json.data).toEqual([expect.objectContaining({ id: created.json.id, name: "persisted", status: "APPROVED" })])
        const text = await call(second.url, "POST", "/v23.0/2001/messages", {
          messaging_product: "whatsapp",
          to: "15559990001",
          type: "text",
          text: { body: "still open" }
        })
        expect(text.status).toBe(200)
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("requires the configured access token when one is set", async () => {
    const strict = await startEmulator({ appSecret: APP_SECRET, accessToken: "right" })
    try {
      const wrong = await call(strict.url, "GET", "/v23.0/waba_x/message_templates", undefined, "wrong")
      expect(wrong.status).toBe(401)
      expect(wrong.json.error.code).toBe(190)
      const right = await call(strict.url, "GET", "/v21.0/waba_x/message_templates", undefined, "right")
      expect(right.status).toBe(200)
      expect(right.json).toEqual({ data: [] })
    } finally {
      await strict.close()
    }
  })
})
