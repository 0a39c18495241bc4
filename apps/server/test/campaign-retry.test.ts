/**
 * `POST /chat/campaigns/{id}/retry` end to end with the sandbox number that always fails
 * retryably: a recipient ending in `0006` is accepted by the emulator and then reported
 * `failed` with 131000 ("Something went wrong", temporary) on every send. The campaign
 * completes with it failed and retryable; a retry sends to it again (the emulator records a
 * second send) and it fails again, still retryable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS, eventually } from "@switchboard/testing"
import { type Harness, sandboxPhone, startHarness, type TestStore } from "./campaignHarness.js"

for (const dialect of DIALECTS) {
  describe(`campaign retry with the 0006 sandbox number (${dialect.id})`, () => {
    let h: Harness
    let shop: TestStore
    beforeAll(async () => {
      h = await startHarness({ dialect, lanes: { messagesPerSecond: 50 }, emulator: { messagesPerSecond: 50 } })
      shop = await h.createStore()
      await h.approvedTemplate(shop.testKey, "retry_me")
    }, 60_000)
    afterAll(async () => {
      await h?.stop()
    })

    it("a 0006 recipient ends failed and retryable; retry sends to it again and it fails again", async () => {
      const key = shop.testKey
      const flaky = sandboxPhone(610, "0006")
      const fine = [sandboxPhone(611, "1234"), sandboxPhone(612, "1235")]
      const id = (
        await h.request("POST", "/chat/campaigns", key, { name: "Flaky", template: { name: "retry_me", language: "en_US", parameters: ["x"] } })
      ).json.id
      expect((await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones: [flaky, ...fine] })).status).toBe(201)
      expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)

      const failedOf = async () => {
        const page = await h.request("GET", `/chat/campaigns/${id}/recipients?status=failed`, key)
        expect(page.status).toBe(200)
        return page.json.data as Array<any>
      }
      const settled = async (label: string) =>
        eventually(
          async () => {
            const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
            if (c.status !== "completed" || c.failed !== 1 || c.read !== 2) return undefined
            const failed = await failedOf()
            return failed.length === 1 ? { campaign: c, failed: failed[0] } : undefined
          },
          label,
          20_000
        )

      const first = await settled("first pass settled")
      expect(first.failed).toMatchObject({ phone: flaky, status: "failed", failure: { code: 131000, retryable: true } })
      expect(first.failed.failure.reason).toMatch(/something went wrong/i)

      const pnid = shop.store.sandbox.phoneNumberId
      const sendsTo = async (phone: string) =>
        ((await h.emulatorGet(`/messages?phone_number_id=${pnid}`)).data as Array<any>).filter((m) => `+${m.to}` === phone).length
      expect(await sendsTo(flaky)).toBe(1)

      const retried = await h.request("POST", `/chat/campaigns/${id}/retry`, key)
      expect(retried.status).toBe(200)
      expect(retried.json).toMatchObject({ id, status: "active" })

      // the emulator saw a second attempt, and the operator failed it again
      await eventually(async () => (await sendsTo(flaky)) === 2, "second send to the 0006 number", 20_000)
      const second = await settled("second pass settled")
      expect(second.failed).toMatchObject({ id: first.failed.id, phone: flaky, failure: { code: 131000, retryable: true } })
      expect(second.campaign).toMatchObject({ status: "completed", failed: 1, read: 2, pending: 0 })
      for (const phone of fine) expect(await sendsTo(phone)).toBe(1)

      // still retryable: a retry is accepted again
      const again = await h.request("POST", `/chat/campaigns/${id}/retry`, key)
      expect(again.status).toBe(200)
      await eventually(async () => (await sendsTo(flaky)) === 3, "third send to the 0006 number", 20_000)
    }, 90_000)
  })
}
