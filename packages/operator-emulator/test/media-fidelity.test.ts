/**
 * The emulator's media and rich templates against the operator's facts (issue 32): the
 * resumable upload API (a session, the bytes from `file_offset`, the handle `h`), a phone
 * number's media (multipart upload, lookup, expiry after 30 days), and the refusals of a
 * media header without a handle or with the wrong type, a wrong header format, a carousel
 * with mismatched cards, a media type or size out of bounds, an expired media id at send.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"
import { type Receiver, requests, startReceiver } from "./helpers.js"

const WABA = "700000000000077"
const PHONE = "800000000000077"
const CUSTOMER = "15551239877"
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex")

let emulator: Emulator
let receiver: Receiver
const { call, graph } = requests(() => emulator)

/** The handle of `bytes` through the resumable upload API. */
const handleOf = async (bytes: Buffer, type: string) => {
  const session = await graph("POST", `/app/uploads?file_name=x&file_length=${bytes.length}&file_type=${encodeURIComponent(type)}`)
  expect(session.status).toBe(200)
  expect(session.json.id).toMatch(/^upload:/)
  const done = await graph("POST", `/${session.json.id}`, new Uint8Array(bytes), {
    authorization: "OAuth sandbox",
    file_offset: "0",
    "content-type": type
  })
  expect(done.status).toBe(200)
  return done.json.h as string
}

const mediaUpload = async (bytes: Buffer, type: string) => {
  const form = new FormData()
  form.append("messaging_product", "whatsapp")
  form.append("type", type)
  form.append("file", new Blob([new Uint8Array(bytes)], { type }), "f")
  const res = await fetch(`${emulator.url}/v23.0/${PHONE}/media`, { method: "POST", headers: { authorization: "Bearer sandbox" }, body: form })
  return { status: res.status, json: (await res.json()) as any }
}

const template = (name: string, components: ReadonlyArray<unknown>) =>
  graph("POST", `/${WABA}/message_templates`, { name, language: "en_US", category: "MARKETING", components })

beforeAll(async () => {
  receiver = await startReceiver()
  emulator = await startEmulator({
    appSecret: "media-secret",
    webhookUrl: receiver.url,
    templateReviewDelayMs: 0,
    statusDelayMs: 5,
    webhookBatchMs: 0,
    pairBurst: 1_000_000
  })
  expect((await call("POST", "/_emulator/accounts", { waba_id: WABA, phone_number_id: PHONE, display_phone_number: "15550007777" })).status).toBe(200)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

describe("the resumable upload API", () => {
  it("a session, then the bytes from file_offset 0, answer a handle; a wrong offset is refused; GET answers the offset", async () => {
    const session = await graph("POST", `/app/uploads?file_name=a.png&file_length=${PNG.length}&file_type=image%2Fpng`)
    expect((await graph("GET", `/${session.json.id}`)).json).toEqual({ id: session.json.id, file_offset: 0 })
    const wrong = await graph("POST", `/${session.json.id}`, new Uint8Array(PNG), { file_offset: "5" })
    expect(wrong.status).toBe(400)
    expect(wrong.json.error.code).toBe(100)
    const half = await graph("POST", `/${session.json.id}`, new Uint8Array(PNG.subarray(0, 10)), { file_offset: "0" })
    expect(half.json).toEqual({ id: session.json.id, file_offset: 10 })
    const rest = await graph("POST", `/${session.json.id}`, new Uint8Array(PNG.subarray(10)), { file_offset: "10" })
    expect(rest.json.h).toMatch(/^4::/)
  })

  it("a type the operator does not take, or a length over its limit, opens no session", async () => {
    expect((await graph("POST", "/app/uploads?file_name=a.gif&file_length=10&file_type=image%2Fgif")).status).toBe(400)
    expect((await graph("POST", `/app/uploads?file_name=a.png&file_length=${6 * 1024 * 1024}&file_type=image%2Fpng`)).status).toBe(400)
  })
})

describe("a phone number's media", () => {
  it("uploads answer an id; GET answers its facts; a type or size out of bounds is 131053", async () => {
    const up = await mediaUpload(PNG, "image/png")
    expect(up.status).toBe(200)
    expect(up.json.id).toMatch(/^\d+$/)
    const got = await graph("GET", `/${up.json.id}`)
    expect(got.json).toMatchObject({ id: up.json.id, mime_type: "image/png", file_size: PNG.length, messaging_product: "whatsapp" })
    const gif = await mediaUpload(PNG, "image/gif")
    expect([gif.status, gif.json.error.code]).toEqual([400, 131053])
    const big = await mediaUpload(Buffer.alloc(5 * 1024 * 1024 + 1), "image/png")
    expect([big.status, big.json.error.code]).toEqual([400, 131053])
  })
})

describe("templates with media headers, carousels and offers", () => {
  it("a media header needs a handle of the right type; a LOCATION header takes none; an unknown format is refused (2388047)", async () => {
    const noHandle = await template("img_no_handle", [
      { type: "HEADER", format: "IMAGE" },
      { type: "BODY", text: "Hello there" }
    ])
    expect([noHandle.status, noHandle.json.error.error_subcode]).toEqual([400, 2388047])
    const png = await handleOf(PNG, "image/png")
    const asVideo = await template("video_png", [
      { type: "HEADER", format: "VIDEO", example: { header_handle: [png] } },
      { type: "BODY", text: "Hello there" }
    ])
    expect([asVideo.status, asVideo.json.error.error_subcode]).toEqual([400, 2388047])
    const badFormat = await template("bad_format", [
      { type: "HEADER", format: "AUDIO" },
      { type: "BODY", text: "Hello there" }
    ])
    expect(badFormat.status).toBe(400)
    expect(
      (
        await template("img_ok", [
          { type: "HEADER", format: "IMAGE", example: { header_handle: [png] } },
          { type: "BODY", text: "Hello there" }
        ])
      ).status
    ).toBe(200)
    expect(
      (
        await template("loc_ok", [
          { type: "HEADER", format: "LOCATION" },
          { type: "BODY", text: "Your pickup point" }
        ])
      ).status
    ).toBe(200)
  })

  it("a carousel's cards must match; an offer's text is at most 16 characters", async () => {
    const h = await handleOf(PNG, "image/png")
    const card = (buttons: ReadonlyArray<unknown>) => ({
      components: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: [h] } },
        { type: "BODY", text: "A plant" },
        { type: "BUTTONS", buttons }
      ]
    })
    const mismatched = await template("carousel_mismatch", [
      { type: "BODY", text: "Rare plants" },
      { type: "CAROUSEL", cards: [card([{ type: "QUICK_REPLY", text: "More" }]), card([{ type: "URL", text: "Shop", url: "https://x.example" }])] }
    ])
    expect(mismatched.status).toBe(400)
    expect(mismatched.json.error.error_data.details).toMatch(/does not match card 0/)
    const one = await template("carousel_one", [
      { type: "BODY", text: "Rare plants" },
      { type: "CAROUSEL", cards: [card([{ type: "QUICK_REPLY", text: "More" }])] }
    ])
    expect(one.status).toBe(400)
    const offer = await template("offer_long", [
      { type: "LIMITED_TIME_OFFER", limited_time_offer: { text: "This offer text is too long", has_expiration: true } },
      { type: "BODY", text: "Use the code today" }
    ])
    expect(offer.status).toBe(400)
  })

  it("a send names a media the number holds; once expired it is refused (131009)", async () => {
    const h = await handleOf(PNG, "image/png")
    expect(
      (
        await template("img_send", [
          { type: "HEADER", format: "IMAGE", example: { header_handle: [h] } },
          { type: "BODY", text: "Hello there" }
        ])
      ).status
    ).toBe(200)
    await new Promise((r) => setTimeout(r, 200))
    const media = (await mediaUpload(PNG, "image/png")).json.id
    const send = () =>
      graph("POST", `/${PHONE}/messages`, {
        messaging_product: "whatsapp",
        to: CUSTOMER,
        type: "template",
        template: {
          name: "img_send",
          language: { code: "en_US" },
          components: [{ type: "header", parameters: [{ type: "image", image: { id: media } }] }]
        }
      })
    const missing = await graph("POST", `/${PHONE}/messages`, {
      messaging_product: "whatsapp",
      to: CUSTOMER,
      type: "template",
      template: { name: "img_send", language: { code: "en_US" } }
    })
    expect(missing.status).toBe(400)
    expect((await send()).status).toBe(200)
    const sent = (await call("GET", `/_emulator/messages?phone_number_id=${PHONE}`)).json.data.at(-1)
    expect(sent.template.components).toEqual([{ type: "header", parameters: [{ type: "image", image: { id: media } }] }])
    expect((await call("POST", "/_emulator/media/expire", { media_id: media })).status).toBe(200)
    const expired = await send()
    expect([expired.status, expired.json.error.code]).toEqual([400, 131009])
  })
})
