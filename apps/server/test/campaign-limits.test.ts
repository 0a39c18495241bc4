/**
 * Campaigns that know the operator's limits (issue 30), end to end on both stores: the
 * emulator enforces a TIER_250 messaging limit over a short rolling window (the lanes and the
 * emulator share `messagingWindowMs`: the 24 hours of the operator, shortened for the test),
 * the dry run predicts what the campaign will meet, and the lane never sends past the limit:
 * the recipients beyond it wait (`waiting_for_limit`, `next_attempt_at`, the campaign's
 * `limited_until`) and go out when the window rolls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DIALECTS, type Dialect, eventually, root } from "@switchboard/testing"
import { type Harness, startHarness, startReceiver, type TestStore } from "./campaignHarness.js"

const WINDOW_MS = 12_000

/** Australian numbers (not +1: marketing to +1 is blocked by the operator's policy); endings avoid the sandbox's failing ones. */
const auPhone = (i: number) => `+61412${String(100_000 + i).padStart(6, "0")}`

const limits = (dialect: Dialect) => () => {
  let h: Harness
  let shop: TestStore
  beforeAll(async () => {
    h = await startHarness({
      dialect,
      lanes: { messagesPerSecond: 200, messagingWindowMs: WINDOW_MS },
      emulator: { messagesPerSecond: 200, defaultMessagingLimit: 250, messagingWindowMs: WINDOW_MS }
    })
    shop = await h.createStore()
    await h.approvedTemplate(shop.testKey, "spring_sale")
    expect(await h.importRates(readFileSync(join(root, "rates/sample-rate-card.csv"), "utf8"))).toBe(15)
  }, 60_000)
  afterAll(async () => {
    await h?.stop()
  })

  it("a 400-recipient marketing campaign on TIER_250: the dry run predicts 250 today and 2 days; 250 go, 150 wait, the rest go when the window rolls", async () => {
    const key = shop.testKey
    const created = await h.request("POST", "/chat/campaigns", key, {
      name: "Limited",
      template: { name: "spring_sale", language: "en_US", parameters: ["friend"] },
      messages_per_second: 200
    })
    expect(created.status).toBe(201)
    const id: string = created.json.id
    const phones = Array.from({ length: 400 }, (_, i) => auPhone(i))
    const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones: [...phones, phones[0], "12", "+15550001234"] })
    expect(added.status).toBe(201)

    const dry = await h.request("POST", `/chat/campaigns/${id}/dry-run`, key)
    expect(dry.status).toBe(200)
    expect(dry.json).toEqual({
      audience: {
        total: 403,
        unique: 402,
        to_send: 400,
        dropped: { duplicate: 1, opted_out: 0, invalid_number: 1, blocked_by_operator_policy: 1 }
      },
      messaging_limit: { tier: "TIER_250", outside_window: 400, remaining_24h: 250, days_needed: 2 },
      duration_seconds: 2,
      // the sample card's Australian marketing price, 0.0732 USD, 400 times
      cost: { currency: "USD", estimated: 29.28, by_category: { marketing: 29.28 }, by_country: { AU: 29.28 }, rate_card_date: "2025-07-01" }
    })
    expect((await h.request("GET", `/chat/campaigns/${id}`, key)).json.status).toBe("draft")
    expect((await h.emulatorGet("/stats")).sends).toBe(0)

    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
    // another store's id answers 404, a launched campaign 409
    const other = await h.createStore()
    expect((await h.request("POST", `/chat/campaigns/${id}/dry-run`, other.testKey)).status).toBe(404)
    const again = await h.request("POST", `/chat/campaigns/${id}/dry-run`, key)
    expect(again.status).toBe(409)
    expect(again.json.error.code).toBe("invalid_state")

    const held = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        // the lane claims the 250 the limit allows, then holds the rest; the sends and their outcomes follow
        return c.limited_until !== null && c.pending === 151 ? c : undefined
      },
      "the campaign limited with 151 recipients waiting",
      WINDOW_MS * 2
    )
    expect(held.status).toBe("active")
    expect(held.pending).toBe(151)
    const waiting = await h.request("GET", `/chat/campaigns/${id}/recipients?status=waiting_for_limit&limit=100`, key)
    expect(waiting.status).toBe(200)
    expect(waiting.json.data).toHaveLength(100)
    expect(waiting.json.next_cursor).not.toBeNull()
    expect(waiting.json.data.every((r: { next_attempt_at: string | null }) => r.next_attempt_at === held.limited_until)).toBe(true)
    const atHold = await h.emulatorGet("/stats")
    expect(atHold.sends).toBe(250)
    expect(atHold.duplicateRecipients).toBe(0)

    const done = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.status === "completed" ? c : undefined
      },
      "campaign completed after the window rolled",
      WINDOW_MS * 4
    )
    expect(done.limited_until).toBeNull()
    // the sandbox fails the numbers ending 0000, 0002 and 0006 (auPhone 0, 2 and 6): no pricing, not billed
    expect(done.failed).toBe(3)
    // actual cost: the messages the operator reported billable (the 398 delivered), at the card's price
    const costed = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.cost.actual === 29.1208 ? c : undefined
      },
      "every message priced from its status webhook",
      10_000
    )
    // the +1 number (dropped by the dry run, still sent by the sandbox) is priced at the card's rest-of-world rate, 0.0604
    expect(costed.cost).toEqual({
      currency: "USD",
      estimated: 29.3404,
      actual: 29.1208,
      by_category: { marketing: { estimated: 29.3404, actual: 29.1208 } }
    })
    const stats = await h.emulatorGet("/stats")
    expect(stats.sends).toBe(401)
    expect(stats.duplicateRecipients).toBe(0)
    // the second wave went out only after the first one's window: never 251 in one window
    const sent: Array<{ accepted_at: number }> = (await h.emulatorGet("/messages")).data
    const times = sent.map((m) => m.accepted_at).sort((a, b) => a - b)
    expect(times[250] - times[0]).toBeGreaterThanOrEqual(WINDOW_MS)
  }, 120_000)

  it("a number flagged for quality pauses its running campaign with paused_reason number_quality_flagged and a campaign.paused event", async () => {
    const flagged = await h.createStore()
    const key = flagged.testKey
    await h.approvedTemplate(key, "flag_sale")
    const receiver = await startReceiver()
    expect((await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events: ["campaign.paused"] })).status).toBe(201)
    const created = await h.request("POST", "/chat/campaigns", key, {
      name: "Slow",
      template: { name: "flag_sale", language: "en_US", parameters: ["friend"] },
      messages_per_second: 5
    })
    const id: string = created.json.id
    await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones: Array.from({ length: 100 }, (_, i) => auPhone(1000 + i)) })
    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
    await eventually(async () => (await h.request("GET", `/chat/campaigns/${id}`, key)).json.sent > 0, "the campaign sending", 20_000)

    const answer = await h.emulatorPost("/quality", { phone_number_id: flagged.store.sandbox.phoneNumberId, event: "FLAGGED" })
    expect(answer).toMatchObject({ ok: true, event: "FLAGGED" })
    const paused = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.status === "paused" ? c : undefined
      },
      "the campaign paused",
      20_000
    )
    expect(paused.paused_reason).toBe("number_quality_flagged")
    expect(paused.sent).toBeLessThan(100)
    const event = await eventually(async () => receiver.received.find((r) => r.body.type === "campaign.paused"), "campaign.paused delivered", 20_000)
    expect(event.body.data).toMatchObject({ reason: "number_quality_flagged" })
    await receiver.close()
  }, 120_000)
}

for (const dialect of DIALECTS) describe(`campaign limits (${dialect.id})`, limits(dialect))
