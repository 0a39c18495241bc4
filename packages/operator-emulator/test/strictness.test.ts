/**
 * The emulator is as strict as the operator (issue 28, item 5):
 * - `product` and `product_list` need a catalog connected to the sender's WABA and products
 *   that exist in it; `product_list` its text header, at most 10 sections and 30 items
 *   (131008 missing, 131009 invalid);
 * - `flow_cta` at most 30 characters, `voice_call` `ttl_minutes` 1 to 43,200 (131009);
 * - the Flow JSON is uploaded as Meta documents it (multipart `file`, `name`, `asset_type`),
 *   validation errors are answered, and an invalid Flow JSON is not published (139002);
 * - `health_status` on a phone number and a WABA, in the operator's shape;
 * - a catalog is connected only by its owner or a business it was shared with.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"
import { type Receiver, requests, startReceiver } from "./helpers.js"

const WABA = "700000000000041"
const PHONE = "800000000000041"
const BUSINESS = `8${WABA.slice(1)}`
const OTHER_WABA = "700000000000042"
const OTHER_BUSINESS = `8${OTHER_WABA.slice(1)}`
const CUSTOMER = "15551230041"

let emulator: Emulator
let receiver: Receiver
let catalogId: string

const { graph, control, upload } = requests(() => emulator)
const send = (interactive: Record<string, unknown>) =>
  graph("POST", `/${PHONE}/messages`, { messaging_product: "whatsapp", to: CUSTOMER, type: "interactive", interactive })

const product = (retailerId: string, catalog = catalogId) => ({
  type: "product",
  body: { text: "Have a look" },
  action: { catalog_id: catalog, product_retailer_id: retailerId }
})
const productList = (sections: ReadonlyArray<ReadonlyArray<string>>, header: unknown = { type: "text", text: "Our picks" }) => ({
  type: "product_list",
  ...(header === null ? {} : { header }),
  body: { text: "Pick one" },
  action: {
    catalog_id: catalogId,
    sections: sections.map((ids, i) => ({ title: `Section ${i + 1}`, product_items: ids.map((id) => ({ product_retailer_id: id })) }))
  }
})
const SKUS = Array.from({ length: 31 }, (_, i) => `SKU-${i + 1}`)

beforeAll(async () => {
  receiver = await startReceiver()
  emulator = await startEmulator({
    appSecret: "strict-secret",
    webhookUrl: receiver.url,
    statusDelayMs: 5,
    webhookBatchMs: 0,
    itemsBatchProcessMs: 0,
    pairBurst: 1_000_000
  })
  expect((await control("POST", "/accounts", { waba_id: WABA, phone_number_id: PHONE })).status).toBe(200)
  expect((await control("POST", "/accounts", { waba_id: OTHER_WABA, phone_number_id: "800000000000042" })).status).toBe(200)
  expect((await control("POST", "/inbound", { phone_number_id: PHONE, from: CUSTOMER, text: "hi" })).status).toBe(200)
  catalogId = (await graph("POST", `/${BUSINESS}/owned_product_catalogs`, { name: "Shop" })).json.id
  const requests = SKUS.map((id) => ({
    method: "CREATE",
    data: { id, name: id, price: 1000, currency: "USD", image_url: "https://shop.example/p.png" }
  }))
  expect((await graph("POST", `/${catalogId}/items_batch`, { item_type: "PRODUCT_ITEM", requests })).status).toBe(200)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

describe("product messages", () => {
  it("a catalog not connected to the sender's WABA is refused (131009); once connected, a known product goes", async () => {
    const unconnected = await send(product("SKU-1"))
    expect(unconnected.status).toBe(400)
    expect(unconnected.json.error).toMatchObject({ code: 131009, type: "OAuthException" })
    expect(unconnected.json.error.error_data.details).toContain("not connected")
    expect((await graph("POST", `/${WABA}/product_catalogs`, { catalog_id: catalogId })).json).toEqual({ success: true })
    expect((await send(product("SKU-1"))).status).toBe(200)
  })

  it("an unknown product_retailer_id, or a catalog that does not exist, is refused (131009); a missing one is 131008", async () => {
    const unknown = await send(product("NOPE-1"))
    expect(unknown.json.error.code).toBe(131009)
    expect(unknown.json.error.error_data.details).toContain("NOPE-1")
    expect((await send(product("SKU-1", "123456789"))).json.error.code).toBe(131009)
    const missing = await send({ type: "product", body: { text: "x" }, action: { catalog_id: catalogId } })
    expect(missing.json.error.code).toBe(131008)
    expect(missing.json.error.error_data.details).toContain("product_retailer_id")
  })

  it("product_list: a text header, 1 to 10 sections, at most 30 items in all, every product in the catalog", async () => {
    const noHeader = await send(productList([["SKU-1"]], null))
    expect(noHeader.json.error.code).toBe(131008)
    expect(noHeader.json.error.error_data.details).toContain("header")
    expect((await send(productList([["SKU-1"]], { type: "image", image: { link: "https://x/y.png" } }))).json.error.code).toBe(131009)
    const eleven = Array.from({ length: 11 }, (_, i) => [SKUS[i]])
    expect((await send(productList(eleven))).json.error.code).toBe(131009)
    expect((await send(productList(eleven.slice(0, 10)))).status).toBe(200)
    const thirtyOne = [SKUS.slice(0, 16), SKUS.slice(16, 31)]
    const tooMany = await send(productList(thirtyOne))
    expect(tooMany.json.error.code).toBe(131009)
    expect(tooMany.json.error.error_data.details).toContain("at most 30")
    expect((await send(productList([SKUS.slice(0, 15), SKUS.slice(15, 30)]))).status).toBe(200)
    expect((await send(productList([["SKU-1", "GHOST"]]))).json.error.code).toBe(131009)
    expect((await send(productList([]))).json.error.code).toBe(131008)
    // the accepted send is recorded with its interactive object as sent
    const sent = (await control("GET", `/messages?phone_number_id=${PHONE}`)).json.data
    expect(sent.at(-1).interactive).toMatchObject({ type: "product_list", header: { type: "text", text: "Our picks" } })
  })
})

describe("parameter limits", () => {
  const flowMessage = (cta: string) => ({
    type: "flow",
    body: { text: "Book" },
    action: { name: "flow", parameters: { flow_message_version: "3", flow_name: "booking", flow_cta: cta, mode: "draft" } }
  })
  const callButton = (parameters: Record<string, unknown>) => ({
    type: "voice_call",
    body: { text: "Call us" },
    action: { name: "voice_call", parameters }
  })

  it("flow_cta longer than 30 characters is refused (131009); 30 goes", async () => {
    expect((await graph("POST", `/${WABA}/flows`, { name: "booking", categories: ["OTHER"] })).status).toBe(200)
    const long = await send(flowMessage("x".repeat(31)))
    expect(long.status).toBe(400)
    expect(long.json.error.code).toBe(131009)
    expect(long.json.error.error_data.details).toContain("flow_cta")
    expect((await send(flowMessage("x".repeat(30)))).status).toBe(200)
    expect((await send(flowMessage(""))).json.error.code).toBe(131008)
  })

  it("voice_call ttl_minutes outside 1..43200 is refused (131009); the bounds go", async () => {
    for (const ttl of [0, 43_201, 50_000, 1.5, "ten"]) {
      const answer = await send(callButton({ ttl_minutes: ttl }))
      expect(answer.json.error?.code, String(ttl)).toBe(131009)
      expect(answer.json.error.error_data.details).toContain("ttl_minutes")
    }
    expect((await send(callButton({ ttl_minutes: 1 }))).status).toBe(200)
    expect((await send(callButton({ ttl_minutes: 43_200 }))).status).toBe(200)
    expect((await send(callButton({}))).status).toBe(200)
  })
})

describe("Flow JSON upload and validation", () => {
  const valid = {
    version: "7.3",
    screens: [
      {
        id: "START",
        title: "Start",
        layout: {
          type: "SingleColumnLayout",
          children: [{ type: "Footer", label: "Next", "on-click-action": { name: "navigate", next: { type: "screen", name: "DONE" }, payload: {} } }]
        }
      },
      { id: "DONE", title: "Done", terminal: true, layout: { type: "SingleColumnLayout", children: [] } }
    ]
  }
  let flowId: string

  beforeAll(async () => {
    flowId = (await graph("POST", `/${WABA}/flows`, { name: "signup", categories: ["SIGN_UP"] })).json.id
  })

  it("the multipart upload with file, name and asset_type is taken; a JSON body or a missing field is error 100", async () => {
    const json = await graph("POST", `/${flowId}/assets`, { name: "flow.json", asset_type: "FLOW_JSON", file: JSON.stringify(valid) })
    expect(json.status).toBe(400)
    expect(json.json.error.code).toBe(100)
    expect((await upload(flowId, JSON.stringify(valid), { name: "flow.json" })).json.error.code).toBe(100)
    expect((await upload(flowId, JSON.stringify(valid), { asset_type: "FLOW_JSON" })).json.error.code).toBe(100)
    expect((await upload(flowId, JSON.stringify(valid), { name: "flow.json", asset_type: "IMAGE" })).json.error.code).toBe(100)
    expect((await upload(flowId, JSON.stringify(valid))).json).toEqual({ success: true, validation_errors: [] })
    const asset = (await graph("GET", `/${flowId}/assets`)).json.data[0]
    expect(JSON.parse(Buffer.from(asset.download_url.split(",")[1], "base64").toString("utf8"))).toEqual(valid)
  })

  it("a flow created with a flow_json answers its validation; publishing at creation needs a valid one (139002)", async () => {
    const created = await graph("POST", `/${WABA}/flows`, {
      name: "inline",
      categories: ["OTHER"],
      flow_json: JSON.stringify({ version: "7.3", screens: [] })
    })
    expect(created.json).toMatchObject({ id: expect.any(String), success: true })
    expect(created.json.validation_errors[0]).toMatchObject({ error_type: "JSON_SCHEMA_ERROR" })
    const published = await graph("POST", `/${WABA}/flows`, { name: "inline2", categories: ["OTHER"], flow_json: "{}", publish: true })
    expect(published.json.error.code).toBe(139002)
    const ok = await graph("POST", `/${WABA}/flows`, { name: "inline3", categories: ["OTHER"], flow_json: JSON.stringify(valid), publish: true })
    expect(ok.json).toMatchObject({ success: true, validation_errors: [] })
    expect((await graph("GET", `/${ok.json.id}`)).json.status).toBe("PUBLISHED")
  })

  it("an invalid Flow JSON is saved with its validation errors, and publishing it is refused with 139002", async () => {
    const broken = {
      version: "7.3",
      routing_model: { START: ["NOWHERE"] },
      screens: [
        { ...valid.screens[0], layout: { type: "SingleColumnLayout", children: [] } },
        { id: "SUCCESS", layout: {} }
      ]
    }
    const saved = await upload(flowId, JSON.stringify(broken))
    expect(saved.json.success).toBe(true)
    const errors = saved.json.validation_errors.map((e: any) => e.error)
    expect(errors).toEqual(expect.arrayContaining(["RESERVED_SCREEN_ID", "MISSING_TERMINAL_SCREEN", "INVALID_ROUTING_MODEL"]))
    for (const e of saved.json.validation_errors) {
      expect(e).toMatchObject({ error_type: expect.any(String), message: expect.any(String), line_start: expect.any(Number) })
    }
    expect((await graph("GET", `/${flowId}`)).json.validation_errors.length).toBe(saved.json.validation_errors.length)
    const refused = await graph("POST", `/${flowId}/publish`)
    expect(refused.status).toBe(400)
    expect(refused.json.error.code).toBe(139002)
    // an unsupported version, a navigation to a screen that does not exist
    const navigation = structuredClone(valid)
    navigation.screens[0].layout.children[0]["on-click-action"].next.name = "LOST"
    expect((await upload(flowId, JSON.stringify(navigation))).json.validation_errors.map((e: any) => e.error)).toContain("INVALID_NAVIGATION")
    expect((await upload(flowId, JSON.stringify({ ...valid, version: "1.0" }))).json.validation_errors[0].error).toBe("INVALID_PROPERTY_VALUE")
    expect((await graph("POST", `/${flowId}/publish`)).json.error.code).toBe(139002)
    expect((await upload(flowId, JSON.stringify(valid))).json.validation_errors).toEqual([])
    expect((await graph("POST", `/${flowId}/publish`)).json).toEqual({ success: true })
  })
})

describe("health_status", () => {
  it("a phone number answers its own, its WABA's, business's and app's health; a WABA its own three", async () => {
    const phone = await graph("GET", `/${PHONE}?fields=health_status`)
    expect(phone.status).toBe(200)
    expect(phone.json.id).toBe(PHONE)
    expect(phone.json.health_status.can_send_message).toBe("AVAILABLE")
    expect(phone.json.health_status.entities.map((e: any) => [e.entity_type, e.id, e.can_send_message])).toEqual([
      ["PHONE_NUMBER", PHONE, "AVAILABLE"],
      ["WABA", WABA, "AVAILABLE"],
      ["BUSINESS", BUSINESS, "AVAILABLE"],
      ["APP", expect.any(String), "AVAILABLE"]
    ])
    const waba = await graph("GET", `/${WABA}?fields=health_status`)
    expect(waba.json.health_status.entities.map((e: any) => e.entity_type)).toEqual(["WABA", "BUSINESS", "APP"])
    // without the field it is not answered
    expect((await graph("GET", `/${PHONE}`)).json.health_status).toBeUndefined()
  })

  it("a blocked WABA blocks the number's overall status, with the error; a limited number shows its additional_info", async () => {
    expect((await control("POST", "/node-health", { id: WABA, can_send_message: "BLOCKED", error_code: 141010 })).status).toBe(200)
    expect((await control("POST", "/node-health", { id: PHONE, can_send_message: "LIMITED", additional_info: "Low quality" })).status).toBe(200)
    const phone = (await graph("GET", `/${PHONE}?fields=health_status`)).json.health_status
    expect(phone.can_send_message).toBe("BLOCKED")
    expect(phone.entities[0]).toMatchObject({ entity_type: "PHONE_NUMBER", can_send_message: "LIMITED", additional_info: ["Low quality"] })
    expect(phone.entities[1]).toMatchObject({
      entity_type: "WABA",
      can_send_message: "BLOCKED",
      errors: [{ error_code: 141010, error_description: expect.any(String), possible_solution: expect.any(String) }]
    })
    expect((await control("POST", "/node-health", { id: WABA, can_send_message: "AVAILABLE" })).status).toBe(200)
    expect((await graph("GET", `/${PHONE}?fields=health_status`)).json.health_status.can_send_message).toBe("LIMITED")
    expect((await control("POST", "/node-health", { id: PHONE, can_send_message: "SOMETIMES" })).status).toBe(400)
    await control("POST", "/node-health", { id: PHONE, can_send_message: "AVAILABLE" })
  })
})

describe("catalog ownership", () => {
  it("another business's catalog cannot be connected until the owner shares it", async () => {
    const foreign = (await graph("POST", `/${OTHER_BUSINESS}/owned_product_catalogs`, { name: "Theirs" })).json.id
    const refused = await graph("POST", `/${WABA}/product_catalogs`, { catalog_id: foreign })
    expect(refused.status).toBe(400)
    expect(refused.json.error).toMatchObject({ code: 100, error_subcode: 33 })
    expect((await graph("GET", `/${WABA}/product_catalogs`)).json.data.map((c: any) => c.id)).not.toContain(foreign)

    const shared = await control("POST", "/catalogs/share", { catalog_id: foreign, business_id: BUSINESS })
    expect(shared.json).toMatchObject({ owner: OTHER_BUSINESS, shared_with: [BUSINESS] })
    expect((await graph("POST", `/${WABA}/product_catalogs`, { catalog_id: foreign })).json).toEqual({ success: true })
    expect((await graph("GET", `/${WABA}/product_catalogs`)).json.data.map((c: any) => c.id)).toContain(foreign)

    // the owner stops sharing: the catalog leaves our WABA and cannot be connected again
    await control("POST", "/catalogs/share", { catalog_id: foreign, business_id: BUSINESS, shared: false })
    expect((await graph("GET", `/${WABA}/product_catalogs`)).json.data.map((c: any) => c.id)).not.toContain(foreign)
    expect((await graph("POST", `/${WABA}/product_catalogs`, { catalog_id: foreign })).json.error.code).toBe(100)
    expect((await control("POST", "/catalogs/share", { catalog_id: "1", business_id: BUSINESS })).status).toBe(404)
  })
})
