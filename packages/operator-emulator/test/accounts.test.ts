/**
 * Registering a sandbox number again (`POST /_emulator/accounts`, which every server process
 * does before its first call for the number) keeps what the number's operator state holds: a
 * server killed after it changed the commerce settings, and started again, finds them changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Emulator, startEmulator } from "../src/index.js"
import { requests } from "./helpers.js"

const WABA = "700000000000041"
const PHONE = "800000000000041"

let emulator: Emulator
const { graph, control } = requests(() => emulator)

beforeAll(async () => {
  emulator = await startEmulator({ appSecret: "accounts-secret" })
})
afterAll(() => emulator?.close())

describe("a number registered again", () => {
  it("keeps its commerce settings; a number never set shows the defaults", async () => {
    const register = () => control("POST", "/accounts", { waba_id: WABA, phone_number_id: PHONE, display_phone_number: "+15550000041" })
    expect((await register()).status).toBe(200)
    const settings = async () => (await graph("GET", `/${PHONE}/whatsapp_commerce_settings`)).json.data[0]
    expect(await settings()).toMatchObject({ is_cart_enabled: true, is_catalog_visible: false })
    expect((await graph("POST", `/${PHONE}/whatsapp_commerce_settings?is_catalog_visible=true&is_cart_enabled=false`)).status).toBe(200)
    expect((await register()).status).toBe(200)
    expect(await settings()).toMatchObject({ is_cart_enabled: false, is_catalog_visible: true })
    // moved to another WABA by a registration: still its settings
    expect((await control("POST", "/accounts", { waba_id: "700000000000042", phone_number_id: PHONE })).status).toBe(200)
    expect(await settings()).toMatchObject({ is_cart_enabled: false, is_catalog_visible: true })
  })
})
