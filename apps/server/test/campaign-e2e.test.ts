/**
 * Campaigns end to end: the HTTP API, the job runner, the campaign lanes, a real store and
 * the operator emulator over real HTTP (its signed status webhooks come back through our
 * inbound route). Sandbox outcomes (DESIGN.md): 0000 undeliverable (131026), 0001 delivered
 * never read, 0002 stopped marketing (131050), anything else read.
 *
 * Over 500 lines on purpose: every scenario shares one started server, emulator and store
 * per dialect (starting them is most of the run time); a second file would start them twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, type Dialect, eventually, sleep } from "@switchboard/testing"
import { type Harness, sandboxPhone, startHarness, startReceiver, type TestStore } from "./campaignHarness.js"

const TERMINAL = new Set(["completed", "cancelled"])

interface Outcome {
  readonly read: number
  readonly delivered: number
  readonly sent: number
  readonly failed: number
}

/** What the emulator says the recipients of these numbers experience. */
const expectedOutcome = (phones: ReadonlyArray<string>): Outcome => {
  let read = 0
  let delivered = 0
  let failed = 0
  for (const p of phones) {
    if (p.endsWith("0000") || p.endsWith("0002")) failed++
    else if (p.endsWith("0001")) delivered++
    else {
      delivered++
      read++
    }
  }
  return { read, delivered, sent: delivered, failed }
}

const allRecipients = async (h: Harness, key: string, id: string, status?: string) => {
  const out: Array<any> = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ limit: "100", ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) })
    const page = await h.request("GET", `/chat/campaigns/${id}/recipients?${query}`, key)
    expect(page.status).toBe(200)
    out.push(...page.json.data)
    cursor = page.json.next_cursor
  } while (cursor !== null)
  return out
}

const campaignFlow = (dialect: Dialect) => () => {
  let h: Harness
  let shop: TestStore
  beforeAll(async () => {
    h = await startHarness({ dialect, lanes: { messagesPerSecond: 100 }, emulator: { messagesPerSecond: 100 } })
    shop = await h.createStore()
    await h.approvedTemplate(shop.testKey, "spring_sale")
  }, 60_000)
  afterAll(async () => {
    await h?.stop()
  })

  it("a campaign of sandbox numbers completes with counters equal to the emulator's outcomes; failures carry the operator's reason", async () => {
    const key = shop.testKey
    const receiver = await startReceiver()
    const hook = await h.request("POST", "/chat/webhooks", key, {
      url: receiver.url,
      events: ["campaign.launched", "campaign.progress", "campaign.completed", "campaign.paused", "campaign.cancelled"]
    })
    expect(hook.status).toBe(201)

    const created = await h.request("POST", "/chat/campaigns", key, {
      name: "Spring sale",
      template: { name: "spring_sale", language: "en_US", parameters: ["friend"] }
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ status: "draft", sent: 0, delivered: 0, read: 0, failed: 0, total: 0 })
    const id: string = created.json.id
    expect(id).toMatch(/^cmp_/)

    const good = [
      ...Array.from({ length: 4 }, (_, i) => sandboxPhone(100 + i, "0000")),
      ...Array.from({ length: 6 }, (_, i) => sandboxPhone(200 + i, "0001")),
      ...Array.from({ length: 3 }, (_, i) => sandboxPhone(300 + i, "0002")),
      ...Array.from({ length: 47 }, (_, i) => sandboxPhone(400 + i, String(1000 + i)))
    ]
    const optedOutBefore = sandboxPhone(900, "4444")
    const optedOutAtLaunch = sandboxPhone(901, "5555")
    expect((await h.request("POST", "/chat/opt-outs", key, { phone: optedOutBefore })).status).toBe(201)
    const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, key, {
      phones: [...good, optedOutBefore, optedOutAtLaunch, "12345", "not a number", good[10]],
      customerIds: ["cus_01JD00000000000000000000AA"],
      parameters: { [good[20]]: ["Zoe"] }
    })
    expect(added.status).toBe(201)
    expect(added.json).toEqual({
      added: good.length + 1,
      skipped: 5,
      total: good.length + 6,
      skipped_by_reason: { opted_out: 1, duplicate: 1, invalid_number: 2, unknown_customer: 1 }
    })
    expect((await h.request("POST", "/chat/opt-outs", key, { phone: optedOutAtLaunch })).status).toBe(201)

    const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, key)
    expect(launched.status).toBe(200)
    expect(launched.json).toMatchObject({ status: "active", skipped: 6, template: { category: "MARKETING" } })

    const done = await eventually(
      async () => {
        const c = await h.request("GET", `/chat/campaigns/${id}`, key)
        return c.json.status === "completed" ? c.json : undefined
      },
      "campaign completed",
      30_000
    )
    expect(done.pending).toBe(0)

    const expected = expectedOutcome(good)
    // status webhooks keep arriving after completion (delivered, read): wait until they settle
    const final = await eventually(
      async () => {
        const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
        return c.read === expected.read && c.delivered === expected.delivered ? c : undefined
      },
      "read and delivered counters",
      15_000
    )
    expect(final).toMatchObject({
      sent: expected.sent,
      delivered: expected.delivered,
      read: expected.read,
      failed: expected.failed,
      total: good.length + 6,
      skipped: 6
    })
    for (const field of ["sent", "delivered", "read", "failed", "total", "skipped", "pending"]) expect(Number.isInteger(final[field])).toBe(true)

    // the emulator's view: each number once, within the rate, with the frozen parameters
    const pnid = shop.store.sandbox.phoneNumberId
    const stats = await h.emulatorGet(`/stats?phone_number_id=${pnid}`)
    expect(stats).toMatchObject({ sends: good.length, duplicateRecipients: 0, duplicatesByCallbackData: 0, rejected429: 0 })
    expect(stats.maxInAnyOneSecondWindow).toBeLessThanOrEqual(100)
    const messages: Array<any> = (await h.emulatorGet(`/messages?phone_number_id=${pnid}`)).data
    const byTo = new Map(messages.map((m) => [`+${m.to}`, m]))
    expect(byTo.get(good[20]).template.parameters).toEqual(["Zoe"])
    expect(byTo.get(good[21]).template.parameters).toEqual(["friend"])
    expect(byTo.has(optedOutBefore)).toBe(false)
    expect(byTo.has(optedOutAtLaunch)).toBe(false)

    // failed recipients show the operator's code and reason
    const failed = await allRecipients(h, key, id, "failed")
    expect(failed).toHaveLength(expected.failed)
    for (const r of failed) {
      const code = r.phone.endsWith("0000") ? 131026 : 131050
      expect(r.failure).toMatchObject({ code, retryable: false })
      expect(r.failure.reason.length).toBeGreaterThan(3)
    }
    const skipped = await allRecipients(h, key, id, "skipped")
    expect(skipped.map((r: any) => r.skip_reason).sort()).toEqual([
      "duplicate",
      "invalid_number",
      "invalid_number",
      "opted_out",
      "opted_out",
      "unknown_customer"
    ])
    // 131050 put those contacts on the opt-out list
    const optOuts = (await h.request("GET", "/chat/opt-outs?limit=100", key)).json.data.map((o: any) => o.phone)
    for (const p of good.filter((x) => x.endsWith("0002"))) expect(optOuts).toContain(p)

    // recalculation from the rows gives the same figures
    const recalculated = await h.request("POST", `/chat/campaigns/${id}/recalculate`, key)
    expect(recalculated.status).toBe(200)
    for (const field of ["sent", "delivered", "read", "failed", "total", "skipped", "pending", "cancelled"]) {
      expect(recalculated.json[field]).toBe(final[field])
    }

    // nothing here can be retried: every failure is permanent
    const retry = await h.request("POST", `/chat/campaigns/${id}/retry`, key)
    expect(retry.status).toBe(409)
    expect(retry.json.error.code).toBe("invalid_state")

    // caller events, in the transaction of each change
    await eventually(async () => receiver.received.some((r) => r.body.type === "campaign.completed"), "campaign.completed delivered", 10_000)
    const types = receiver.received.map((r) => r.body.type)
    expect(types).toContain("campaign.launched")
    expect(types).toContain("campaign.progress")
    expect(receiver.received.find((r) => r.body.type === "campaign.launched")!.body.data.id).toBe(id)
    expect(receiver.received.every((r) => typeof r.headers["webhook-signature"] === "string")).toBe(true)
    await receiver.close()
  }, 60_000)

  it("retry resends only the failed recipients whose failure can be retried", async () => {
    const key = shop.testKey
    await h.emulator.configure({ statusDelayMs: 1500 })
    try {
      const id = (
        await h.request("POST", "/chat/campaigns", key, { name: "Retry", template: { name: "spring_sale", language: "en_US", parameters: ["x"] } })
      ).json.id
      const phones = [...Array.from({ length: 8 }, (_, i) => sandboxPhone(500 + i, String(2000 + i))), sandboxPhone(510, "0000")]
      expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones })).status).toBe(201)
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
      // once accepted, the operator reports a transient failure (131000) for three of them, through the signed webhook path
      const accepted = await eventually(
        async () => {
          const rows = await allRecipients(h, key, id, "accepted")
          return rows.length >= 8 ? rows : undefined
        },
        "accepted",
        15_000
      )
      const victims = accepted.filter((r: any) => !r.phone.endsWith("0000")).slice(0, 3)
      const pnid = shop.store.sandbox.phoneNumberId
      const forged = await h.emulatorPost("/webhook", {
        payload: {
          object: "whatsapp_business_account",
          entry: [
            {
              id: shop.store.sandbox.wabaId,
              changes: [
                {
                  field: "messages",
                  value: {
                    messaging_product: "whatsapp",
                    metadata: { display_phone_number: shop.store.sandbox.displayPhoneNumber, phone_number_id: pnid },
                    statuses: victims.map((r: any) => ({
                      id: r.operator_message_id,
                      status: "failed",
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      recipient_id: r.phone.slice(1),
                      biz_opaque_callback_data: r.id,
                      errors: [{ code: 131000, title: "Something went wrong" }]
                    }))
                  }
                }
              ]
            }
          ]
        }
      })
      expect(forged.delivered).toBe(true)
      const completed = await eventually(
        async () => {
          const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return c.status === "completed" && c.read === 5 && c.failed === 4 ? c : undefined
        },
        "first pass settled",
        20_000
      )
      expect(completed.sent).toBe(5)
      const failed = await allRecipients(h, key, id, "failed")
      expect(
        failed
          .filter((r: any) => r.failure.retryable)
          .map((r: any) => r.id)
          .sort()
      ).toEqual(victims.map((r: any) => r.id).sort())

      const retried = await h.request("POST", `/chat/campaigns/${id}/retry`, key)
      expect(retried.status).toBe(200)
      expect(retried.json).toMatchObject({ status: "active", failed: 1 })
      const after = await eventually(
        async () => {
          const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return c.status === "completed" && c.read === 8 ? c : undefined
        },
        "second pass settled",
        20_000
      )
      expect(after).toMatchObject({ failed: 1, sent: 8, delivered: 8, read: 8, pending: 0 })
      const messages: Array<any> = (await h.emulatorGet(`/messages?phone_number_id=${pnid}`)).data
      const count = (phone: string) => messages.filter((m) => `+${m.to}` === phone).length
      for (const r of victims) expect(count(r.phone)).toBe(2)
      for (const p of phones.filter((p) => !victims.some((v: any) => v.phone === p))) expect(count(p)).toBe(1)
      // a completed campaign without retryable failures refuses another retry
      expect((await h.request("POST", `/chat/campaigns/${id}/retry`, key)).status).toBe(409)
    } finally {
      await h.emulator.configure({ statusDelayMs: 100 })
    }
  }, 60_000)
}

const campaignsEndToEnd = (dialect: Dialect) => () => {
  describe("a full campaign", campaignFlow(dialect))

  describe("controls, scoping and the state machine", () => {
    let h: Harness
    let shop: TestStore
    let other: TestStore
    beforeAll(async () => {
      h = await startHarness({ dialect, lanes: { messagesPerSecond: 20, perUserGapMs: 1500 }, emulator: { messagesPerSecond: 20 } })
      shop = await h.createStore()
      other = await h.createStore()
      await h.approvedTemplate(shop.testKey, "promo")
    }, 60_000)
    afterAll(async () => {
      await h?.stop()
    })

    const newCampaign = async (key: string, n: number, prefix: number, extra: Record<string, unknown> = {}) => {
      const c = await h.request("POST", "/chat/campaigns", key, {
        name: "Promo",
        template: { name: "promo", language: "en_US", parameters: ["you"] },
        ...extra
      })
      expect(c.status).toBe(201)
      const phones = Array.from({ length: n }, (_, i) => sandboxPhone(prefix, String(3000 + i)))
      expect((await h.request("POST", `/chat/campaigns/${c.json.id}/recipients`, key, { phones })).status).toBe(201)
      return { id: c.json.id as string, phones }
    }
    const sends = async () => (await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).sends as number

    it("another store's campaign id answers 404 resource_not_found on every route, byte for byte as an unknown id", async () => {
      const { id } = await newCampaign(shop.testKey, 2, 600)
      const unknown = "cmp_01JD0000000000000000000000"
      const routes: Array<[string, string, unknown?]> = [
        ["GET", ""],
        ["PATCH", "", { name: "x" }],
        ["DELETE", ""],
        ["GET", "/recipients"],
        ["POST", "/recipients", { phones: ["+15550001234"] }],
        ...["launch", "pause", "resume", "cancel", "retry", "recalculate"].map((op): [string, string] => ["POST", `/${op}`])
      ]
      for (const [method, suffix, body] of routes) {
        const theirs = await h.request(method, `/chat/campaigns/${id}${suffix}`, other.testKey, body)
        const missing = await h.request(method, `/chat/campaigns/${unknown}${suffix}`, other.testKey, body)
        expect(theirs.status, `${method} ${suffix}`).toBe(404)
        expect(theirs.json.error.code).toBe("resource_not_found")
        expect(theirs.text.replace(id, "<id>")).toBe(missing.text.replace(unknown, "<id>"))
        // the same store's other mode does not see it either
        const otherMode = await h.request(method, `/chat/campaigns/${id}${suffix}`, shop.liveKey, body)
        expect(otherMode.status).toBe(404)
      }
      expect((await h.request("GET", "/chat/campaigns", other.testKey)).json.data).toEqual([])
      expect((await h.request("GET", `/chat/campaigns/${id}`, shop.testKey)).json.status).toBe("draft")
    })

    it("edits only drafts; refuses what the state machine refuses with 409 invalid_state naming the status; unknown fields are 400", async () => {
      const key = shop.testKey
      const { id } = await newCampaign(key, 3, 610)
      const patched = await h.request("PATCH", `/chat/campaigns/${id}`, key, { name: "Renamed", messages_per_second: 10 })
      expect(patched.status).toBe(200)
      expect(patched.json).toMatchObject({ name: "Renamed", messages_per_second: 10 })
      expect((await h.request("PATCH", `/chat/campaigns/${id}`, key, { nme: "typo" })).status).toBe(400)
      expect((await h.request("POST", "/chat/campaigns", key, { name: "x", template: { name: "promo", language: "en_US" }, extra: 1 })).status).toBe(
        400
      )
      expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones: [], customer_ids: [] })).status).toBe(400)
      expect(
        (await h.request("POST", "/chat/campaigns", key, { name: "x", template: { name: "promo", language: "en_US" }, messages_per_second: 5000 }))
          .status
      ).toBe(400)
      for (const op of ["pause", "resume", "retry"]) {
        const refused = await h.request("POST", `/chat/campaigns/${id}/${op}`, key)
        expect(refused.status).toBe(409)
        expect(refused.json.error).toMatchObject({ code: "invalid_state", details: { status: "draft" } })
      }
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
      for (const [method, path, body] of [
        ["PATCH", "", { name: "late" }],
        ["DELETE", ""],
        ["POST", "/launch"],
        ["POST", "/resume"],
        ["POST", "/recipients", { phones: ["+15550009999"] }]
      ] as Array<[string, string, unknown?]>) {
        const refused = await h.request(method, `/chat/campaigns/${id}${path}`, key, body)
        expect(refused.status, `${method} ${path}`).toBe(409)
        expect(refused.json.error.code).toBe("invalid_state")
        expect(["active", "completed"]).toContain(refused.json.error.details.status)
      }
      await eventually(async () => (await h.request("GET", `/chat/campaigns/${id}`, key)).json.status === "completed", "completed", 20_000)
      expect((await h.request("POST", `/chat/campaigns/${id}/cancel`, key)).json.error.details.status).toBe("completed")
      // a draft can be deleted, with its recipients
      const { id: draft } = await newCampaign(key, 2, 611)
      expect((await h.request("DELETE", `/chat/campaigns/${draft}`, key)).json).toEqual({ id: draft, deleted: true })
      expect((await h.request("GET", `/chat/campaigns/${draft}`, key)).status).toBe(404)
      // a launch without an approved template or recipients is refused
      const noTemplate = (
        await h.request("POST", "/chat/campaigns", key, { name: "x", template: { name: "missing", language: "en_US", parameters: ["a"] } })
      ).json.id
      await h.request("POST", `/chat/campaigns/${noTemplate}/recipients`, key, { phones: ["+15556120001"] })
      expect((await h.request("POST", `/chat/campaigns/${noTemplate}/launch`, key)).status).toBe(400)
      const empty = (
        await h.request("POST", "/chat/campaigns", key, { name: "x", template: { name: "promo", language: "en_US", parameters: ["a"] } })
      ).json.id
      expect((await h.request("POST", `/chat/campaigns/${empty}/launch`, key)).status).toBe(400)
      const wrongCount = (
        await h.request("POST", "/chat/campaigns", key, { name: "x", template: { name: "promo", language: "en_US", parameters: [] } })
      ).json.id
      await h.request("POST", `/chat/campaigns/${wrongCount}/recipients`, key, { phones: ["+15556130001"] })
      expect((await h.request("POST", `/chat/campaigns/${wrongCount}/launch`, key)).status).toBe(400)
      // listing with a status filter and a cursor
      const page = await h.request("GET", "/chat/campaigns?status=draft&limit=2", key)
      expect(page.json.data.every((c: any) => c.status === "draft")).toBe(true)
      expect(page.json.next_cursor).not.toBeNull()
      const next = await h.request("GET", `/chat/campaigns?status=draft&limit=2&cursor=${page.json.next_cursor}`, key)
      expect(next.status).toBe(200)
      expect(next.json.data[0].id < page.json.data[1].id).toBe(true)
    }, 60_000)

    it("pause stops new sends at once; resume continues where it stopped; cancel sends nothing more", async () => {
      const key = shop.testKey
      const before = await sends()
      const { id, phones } = await newCampaign(key, 60, 620)
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
      await eventually(async () => (await sends()) - before >= 10, "10 sends", 15_000)
      const paused = await h.request("POST", `/chat/campaigns/${id}/pause`, key)
      expect(paused.status).toBe(200)
      expect(paused.json).toMatchObject({ status: "paused", paused_reason: null })
      const atPause = (await sends()) - before
      await sleep(1200)
      const afterPause = (await sends()) - before
      // at most the sends already started (in flight) when the pause was written
      expect(afterPause - atPause).toBeLessThanOrEqual(3)
      await sleep(500)
      expect((await sends()) - before).toBe(afterPause)
      // nothing is left half-claimed: the unsent are pending again
      const rows = await allRecipients(h, key, id)
      expect(rows.filter((r) => r.status === "sending")).toHaveLength(0)
      expect(rows.filter((r) => r.status === "pending")).toHaveLength(60 - afterPause)

      expect((await h.request("POST", `/chat/campaigns/${id}/resume`, key)).json.status).toBe("active")
      await eventually(async () => (await sends()) - before >= afterPause + 10, "10 more sends", 15_000)
      const cancelled = await h.request("POST", `/chat/campaigns/${id}/cancel`, key)
      expect(cancelled.status).toBe(200)
      expect(cancelled.json.status).toBe("cancelled")
      const atCancel = (await sends()) - before
      await sleep(1500)
      const final = (await sends()) - before
      expect(final - atCancel).toBeLessThanOrEqual(3)
      expect(final).toBeLessThan(60)
      const c = await eventually(
        async () => {
          const x = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return x.pending === 0 ? x : undefined
        },
        "no pending left",
        10_000
      )
      expect(c.cancelled).toBe(60 - final)
      const messages: Array<any> = (await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data
      const mine = messages.filter((m) => phones.includes(`+${m.to}`))
      expect(mine).toHaveLength(final)
      expect(new Set(mine.map((m) => m.to)).size).toBe(final)
      // resumed where it stopped: the first `final` recipients in insertion order, each once (the few sends in
      // flight at a time may reach the operator in another order than they were claimed)
      const rank = (phone: string) => phones.indexOf(phone)
      expect(mine.map((m) => `+${m.to}`).sort((x, y) => rank(x) - rank(y))).toEqual(phones.slice(0, final))
      const cancelledRows = await allRecipients(h, key, id, "cancelled")
      expect(cancelledRows.map((r: any) => r.phone)).toEqual(phones.slice(final))
      expect(TERMINAL.has(c.status)).toBe(true)
    }, 60_000)

    it("pacing: never more than the rate in any one-second window, no throttling answers", async () => {
      const key = shop.testKey
      const before = await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)
      const { id } = await newCampaign(key, 70, 630)
      const started = Date.now()
      await h.request("POST", `/chat/campaigns/${id}/launch`, key)
      await eventually(async () => (await h.request("GET", `/chat/campaigns/${id}`, key)).json.status === "completed", "completed", 30_000)
      const elapsed = Date.now() - started
      const stats = await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)
      expect(stats.sends - before.sends).toBe(70)
      expect(stats.maxInAnyOneSecondWindow).toBeLessThanOrEqual(20)
      expect(stats.rejected429).toBe(before.rejected429)
      // 70 at 20/s: at least three full seconds
      expect(elapsed).toBeGreaterThan(3000)
    }, 60_000)

    it("two campaigns on one number share its rate, and a user in both gets the second message only after the per-user gap", async () => {
      const key = shop.testKey
      const before = await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)
      const a = await newCampaign(key, 20, 660)
      const shared = a.phones.slice(0, 5)
      const b = (await h.request("POST", "/chat/campaigns", key, { name: "B", template: { name: "promo", language: "en_US", parameters: ["b"] } }))
        .json.id
      await h.request("POST", `/chat/campaigns/${b}/recipients`, key, {
        phones: [...shared, ...Array.from({ length: 15 }, (_, i) => sandboxPhone(661, String(3000 + i)))]
      })
      await Promise.all([h.request("POST", `/chat/campaigns/${a.id}/launch`, key), h.request("POST", `/chat/campaigns/${b}/launch`, key)])
      for (const id of [a.id, b]) {
        await eventually(async () => (await h.request("GET", `/chat/campaigns/${id}`, key)).json.status === "completed", "completed", 30_000)
      }
      const stats = await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)
      expect(stats.sends - before.sends).toBe(40)
      expect(stats.maxInAnyOneSecondWindow).toBeLessThanOrEqual(20)
      expect(stats.rejectedPairRate).toBe(before.rejectedPairRate)
      const messages: Array<any> = (await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data
      for (const phone of shared) {
        const times = messages.filter((m) => `+${m.to}` === phone).map((m) => m.accepted_at)
        expect(times).toHaveLength(2)
        expect(Math.abs(times[1] - times[0])).toBeGreaterThanOrEqual(1500 - 50)
      }
      // round robin: both campaigns progress together rather than one after the other
      const firstOfB = messages.findIndex((m) => m.biz_opaque_callback_data && !a.phones.includes(`+${m.to}`) && m.accepted_at >= before.lastSendAt)
      const lastOfA = messages.map((m) => `+${m.to}`).lastIndexOf(a.phones[a.phones.length - 1])
      expect(firstOfB).toBeLessThan(lastOfA)
    }, 60_000)

    it("a template paused by the operator pauses the campaign with the reason; resume after reinstatement finishes it", async () => {
      const key = shop.testKey
      const receiver = await startReceiver()
      await h.request("POST", "/chat/webhooks", key, { url: receiver.url, events: ["campaign.paused"] })
      const { id, phones } = await newCampaign(key, 40, 640)
      await h.request("POST", `/chat/campaigns/${id}/launch`, key)
      await eventually(async () => (await h.request("GET", `/chat/campaigns/${id}`, key)).json.pending < 35, "some sent", 15_000)
      const waba = shop.store.sandbox.wabaId
      await h.emulatorPost("/templates/status", { waba_id: waba, name: "promo", event: "PAUSED" })
      const paused = await eventually(
        async () => {
          const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return c.status === "paused" ? c : undefined
        },
        "auto-paused",
        15_000
      )
      expect(paused.paused_reason).toBe("template_paused")
      await eventually(
        async () =>
          receiver.received.some(
            (r) => r.body.type === "campaign.paused" && r.body.data.reason === "template_paused" && String(r.body.data.detail).includes("132015")
          ),
        "campaign.paused event",
        10_000
      )
      expect(paused.pending).toBeGreaterThan(0)
      await h.emulatorPost("/templates/status", { waba_id: waba, name: "promo", event: "APPROVED" })
      // the reinstatement reaches us as a webhook: resume once our template is approved again (before, the send would pause it again)
      await eventually(
        async () => (await h.request("GET", "/chat/templates?status=APPROVED", key)).json.data.some((t: { name: string }) => t.name === "promo"),
        "the template approved again here",
        15_000
      )
      expect((await h.request("POST", `/chat/campaigns/${id}/resume`, key)).status).toBe(200)
      const done = await eventually(
        async () => {
          const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return c.status === "completed" ? c : undefined
        },
        "completed after resume",
        30_000
      )
      expect(done.failed).toBe(0)
      expect(done.pending).toBe(0)
      // each recipient once: the sends refused with 132015 were not accepted, and were sent after the resume
      const messages: Array<any> = (await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data
      const mine = messages.filter((m) => phones.includes(`+${m.to}`)).map((m) => m.to)
      expect(mine).toHaveLength(40)
      expect(new Set(mine).size).toBe(40)
      await receiver.close()
    }, 60_000)

    it("a scheduled campaign starts by itself at scheduled_at", async () => {
      const key = shop.testKey
      const at = new Date(Date.now() + 6000).toISOString()
      const { id } = await newCampaign(key, 3, 650, { scheduled_at: at })
      const launched = await h.request("POST", `/chat/campaigns/${id}/launch`, key)
      expect(launched.json).toMatchObject({ status: "scheduled", scheduled_at: at })
      // recipients may still be added while scheduled
      expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones: [sandboxPhone(651, "7777")] })).json.added).toBe(1)
      await sleep(1000)
      expect((await h.request("GET", `/chat/campaigns/${id}`, key)).json.status).toBe("scheduled")
      const done = await eventually(
        async () => {
          const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
          return c.status === "completed" ? c : undefined
        },
        "completed",
        20_000
      )
      expect(Date.parse(done.completed_at)).toBeGreaterThan(Date.parse(at))
      expect(done.total).toBe(4)
    }, 60_000)
  })
}

for (const dialect of DIALECTS) describe.skipIf(!dialect.available)(`campaigns end to end (${dialect.name})`, campaignsEndToEnd(dialect))
