/**
 * Send windows (issue 30), end to end on both stores: a campaign's `send_window` applies in
 * each recipient's local time, from the phone number (Australian mobiles: Sydney). A window
 * that closed an hour ago there holds the recipients (`waiting_for_window`, `next_attempt_at`
 * at the next opening, the campaign active with `limited_until`), and the dry run counts them;
 * a window open now sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, type Dialect, eventually } from "@switchboard/testing"
import { type Harness, startHarness, type TestStore } from "./campaignHarness.js"

const ZONE = "Australia/Sydney"
const auPhone = (i: number) => `+61412${String(200_000 + i).padStart(6, "0")}`

/** The hour (0..23) and minute in Sydney at `at`. */
const sydney = (at: number) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: ZONE, hourCycle: "h23", hour: "numeric", minute: "numeric" }).formatToParts(at)
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value)
  return { hour: get("hour"), minute: get("minute") }
}
const clock = (hour: number) => `${String((hour + 24) % 24).padStart(2, "0")}:00`

const windows = (dialect: Dialect) => () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ dialect, lanes: { messagesPerSecond: 50 }, emulator: { messagesPerSecond: 50 } })
  }, 60_000)
  afterAll(async () => {
    await h?.stop()
  })

  const campaign = async (shop: TestStore, template: string, sendWindow: { from: string; to: string }, phones: ReadonlyArray<string>) => {
    const created = await h.request("POST", "/chat/campaigns", shop.testKey, {
      name: "Windowed",
      template: { name: template, language: "en_US", parameters: ["friend"] },
      send_window: sendWindow
    })
    expect(created.status).toBe(201)
    expect(created.json.send_window).toEqual(sendWindow)
    const id: string = created.json.id
    expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, shop.testKey, { phones })).status).toBe(201)
    return id
  }

  it("a window that closed an hour ago in the recipients' zone holds them until it opens again; the dry run counts them", async () => {
    const shop = await h.createStore()
    await h.approvedTemplate(shop.testKey, "night_sale")
    const now = sydney(Date.now())
    // closed an hour ago in Sydney (whatever the time of day the test runs)
    const window = { from: clock(now.hour - 3), to: clock(now.hour - 1) }
    const phones = Array.from({ length: 5 }, (_, i) => auPhone(10 + i))
    const id = await campaign(shop, "night_sale", window, phones)

    const dry = await h.request("POST", `/chat/campaigns/${id}/dry-run`, shop.testKey)
    expect(dry.status).toBe(200)
    expect(dry.json.audience).toMatchObject({ total: 5, to_send: 5, outside_send_window: 5 })

    const launchedAt = Date.now()
    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, shop.testKey)).status).toBe(200)
    const held = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, shop.testKey)).json
        return c.limited_until !== null && c.limited_until !== undefined ? c : undefined
      },
      "the campaign limited by its send window",
      20_000
    )
    expect(held.status).toBe("active")
    expect(held.pending).toBe(5)
    const waiting = await h.request("GET", `/chat/campaigns/${id}/recipients?status=waiting_for_window`, shop.testKey)
    expect(waiting.status).toBe(200)
    expect(waiting.json.data).toHaveLength(5)
    const opening = Date.parse(held.limited_until)
    for (const r of waiting.json.data) expect(r.next_attempt_at).toBe(held.limited_until)
    // the next opening: `from` in Sydney, 21 to 23 hours from now (the window started 3 hours ago)
    expect(sydney(opening)).toEqual({ hour: (now.hour - 3 + 24) % 24, minute: 0 })
    expect(opening - launchedAt).toBeGreaterThan(20 * 3_600_000)
    expect(opening - launchedAt).toBeLessThanOrEqual(24 * 3_600_000)
    // nothing went out, and the lane keeps it that way
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const sent: Array<{ to: string }> = (await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data
    expect(sent).toHaveLength(0)
    expect((await h.request("GET", `/chat/campaigns/${id}`, shop.testKey)).json).toMatchObject({ status: "active", sent: 0, pending: 5 })
  }, 60_000)

  it("a window open now sends", async () => {
    const shop = await h.createStore()
    await h.approvedTemplate(shop.testKey, "day_sale")
    const now = sydney(Date.now())
    const window = { from: clock(now.hour - 1), to: clock(now.hour + 2) }
    const phones = Array.from({ length: 3 }, (_, i) => auPhone(40 + i))
    const id = await campaign(shop, "day_sale", window, phones)
    const dry = await h.request("POST", `/chat/campaigns/${id}/dry-run`, shop.testKey)
    expect(dry.json.audience).toMatchObject({ to_send: 3, outside_send_window: 0 })
    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, shop.testKey)).status).toBe(200)
    const done = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, shop.testKey)).json
        return c.status === "completed" ? c : undefined
      },
      "the campaign completed",
      20_000
    )
    expect(done.sent).toBe(3)
    expect(done.limited_until).toBeNull()
  }, 60_000)
}

for (const dialect of DIALECTS) describe(`campaign send windows (${dialect.id})`, windows(dialect))
