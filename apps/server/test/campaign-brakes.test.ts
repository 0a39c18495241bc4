/**
 * The per-code refusal brakes (issue 30), end to end on both stores, with the emulator told
 * to refuse (`POST /_emulator/refusals`): a burst of 131048 (spam rate limit) pauses the
 * campaign with `paused_reason: refusal_rate` and a `campaign.paused` event, failing nobody;
 * a 131049 (per-user marketing cap) fails only its recipient, retryable, and the campaign's
 * retry sends it later. The thresholds are lowered for the test (131048: 2; the lane waits
 * the operator's 5 s after each).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, type Dialect, eventually } from "@switchboard/testing"
import { type Harness, startHarness, startReceiver } from "./campaignHarness.js"

const auPhone = (i: number) => `+61412${String(300_000 + i).padStart(6, "0")}`

const brakes = (dialect: Dialect) => () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({
      dialect,
      lanes: { messagesPerSecond: 20, refusalBrakes: { window: 200, thresholds: { 131048: 2, 131049: 3, 131064: 2 } } },
      emulator: { messagesPerSecond: 20 }
    })
  }, 60_000)
  afterAll(async () => {
    await h?.stop()
  })

  const launched = async (key: string, template: string, phones: ReadonlyArray<string>) => {
    const created = await h.request("POST", "/chat/campaigns", key, {
      name: "Braked",
      template: { name: template, language: "en_US", parameters: ["friend"] },
      messages_per_second: 5
    })
    const id: string = created.json.id
    expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones })).status).toBe(201)
    expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
    return id
  }

  it("a burst of 131048 pauses the campaign with refusal_rate and campaign.paused; nobody fails", async () => {
    const shop = await h.createStore()
    const key = shop.testKey
    await h.approvedTemplate(key, "spam_sale")
    const receiver = await startReceiver()
    expect((await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events: ["campaign.paused"] })).status).toBe(201)
    const forced = await h.emulatorPost("/refusals", { phone_number_id: shop.store.sandbox.phoneNumberId, code: 131048, count: 10 })
    expect(forced).toMatchObject({ ok: true, code: 131048, count: 10 })
    const id = await launched(
      key,
      "spam_sale",
      Array.from({ length: 10 }, (_, i) => auPhone(10 + i))
    )

    const paused = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.status === "paused" ? c : undefined
      },
      "the campaign paused by the refusal brake",
      30_000
    )
    expect(paused.paused_reason).toBe("refusal_rate")
    expect(paused.sent).toBe(0)
    expect(paused.failed).toBe(0)
    const event = await eventually(async () => receiver.received.find((r) => r.body.type === "campaign.paused"), "campaign.paused delivered", 20_000)
    expect(event.body.data).toMatchObject({ reason: "refusal_rate" })
    expect(event.body.data.detail).toContain("131048")
    expect((await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).sends).toBe(0)
    await receiver.close()
  }, 60_000)

  it("a 131049 fails only its recipient, retryable; the campaign completes and its retry sends it", async () => {
    const shop = await h.createStore()
    const key = shop.testKey
    await h.approvedTemplate(key, "capped_sale")
    const phones = Array.from({ length: 4 }, (_, i) => auPhone(40 + i))
    await h.emulatorPost("/refusals", { phone_number_id: shop.store.sandbox.phoneNumberId, code: 131049, to: phones[2] })
    const id = await launched(key, "capped_sale", phones)

    const done = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.status === "completed" ? c : undefined
      },
      "the campaign completed",
      30_000
    )
    expect(done.paused_reason).toBeNull()
    expect(done.failed).toBe(1)
    const failed = (await h.request("GET", `/chat/campaigns/${id}/recipients?status=failed`, key)).json.data
    expect(failed).toHaveLength(1)
    expect(failed[0].phone).toBe(phones[2])
    expect(failed[0].failure).toMatchObject({ code: 131049, retryable: true })

    expect((await h.request("POST", `/chat/campaigns/${id}/retry`, key)).status).toBe(200)
    await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.status === "completed" && c.failed === 0 ? c : undefined
      },
      "the retried recipient sent",
      30_000
    )
    const sentTo: Array<{ to: string }> = (await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data
    expect(sentTo.map((m) => `+${m.to}`).sort()).toEqual([...phones].sort())
  }, 60_000)
}

for (const dialect of DIALECTS) describe(`campaign refusal brakes (${dialect.id})`, brakes(dialect))
