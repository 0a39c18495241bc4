/**
 * Campaign workers are killed (SIGKILL) while they send; every recipient still ends in a
 * final state and the operator never sees a recipient twice.
 *
 * The workers are child processes (`fixtures/campaign-lane.ts`: the lane runner over the
 * same store, sending to the emulator in its own process). This process serves the API and
 * processes the operator's webhooks. The emulator answers each send after 60 ms (150 ms on
 * PostgreSQL), so sends are in flight
 * when a kill lands: the operator accepts them after the worker died, before our write of
 * the outcome (the rows stay `sending` and the status webhooks, matched by our callback
 * data, move them forward). A small share of answers is also lost on the way back (the
 * message is accepted but the worker sees a 500). Status reports come 2.5 s (4 s on SQLite) after a send,
 * later than a successor takes the lane over (lease 2 s), so a successor that resent the
 * dead worker's `sending` rows instead of waiting for their reports would send twice.
 *
 * What would fail without the guarantees: resending rows left `sending` by a dead worker
 * (instead of waiting for their webhooks or the reconciliation window) sends those
 * recipients twice (`duplicateRecipients`); two workers holding one number's lane at once
 * exceed the rate and draw 429s; rows never reconciled leave the campaign unfinished.
 */
import type { ChildProcess } from "node:child_process"
import { createInterface } from "node:readline"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { eventually, POSTGRES, SQLITE } from "@switchboard/testing"
import { type Harness, spawnFixtureWorker, startHarness, type TestStore } from "./campaignHarness.js"

const MPS = 200
const LEASE_MS = 2000
/**
 * Silence after which a `sending` row is sent again (120 s by default): well above the status
 * delay, with room for a loaded machine, where the emulator's status webhooks (their own process)
 * can arrive seconds late; a silence longer than this is taken as "not sent" by design.
 */
const RECONCILE_MS = 15_000

/** Every lane job claim seen, in order: which worker, which number. */
const claims: Array<{ readonly worker: string; readonly phoneNumberId: string }> = []

/** The worker that claimed the number's lane last (its current holder). */
const holderOf = (phoneNumberId: string): string | undefined => claims.filter((c) => c.phoneNumberId === phoneNumberId).at(-1)?.worker

interface Worker {
  readonly id: string
  readonly child: ChildProcess
  /** Lane jobs it claimed: phone number ids. */
  readonly lanes: Array<string>
  readonly ready: Promise<void>
  readonly exited: Promise<void>
}

const workers: Array<Worker> = []

const startWorker = (h: Harness, id: string): Worker => {
  const child = spawnFixtureWorker(h, "campaign-lane.ts", id, {
    LANE_MPS: String(MPS),
    LEASE_MS: String(LEASE_MS),
    RECONCILE_MS: String(RECONCILE_MS)
  })
  const lanes: Array<string> = []
  let markReady: () => void = () => {}
  const ready = new Promise<void>((resolve) => (markReady = resolve))
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line === "ready") markReady()
    const claim = /^claim \S+ \d+ (\S+)$/.exec(line)
    if (claim) {
      lanes.push(claim[1])
      claims.push({ worker: id, phoneNumberId: claim[1] })
    }
  })
  child.stderr!.on("data", (d) => process.env.CAMPAIGN_TEST_VERBOSE && process.stderr.write(`[${id}] ${d}`))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const worker = { id, child, lanes, ready, exited }
  workers.push(worker)
  return worker
}

/** SIGKILL; answers the time the signal was sent (the process is gone right after; its exit event may be noticed later). */
const kill = async (worker: Worker): Promise<number> => {
  const at = Date.now()
  worker.child.kill("SIGKILL")
  await worker.exited
  return at
}

afterEach(async () => {
  for (const w of workers.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) await kill(w)
})

/** 400 sandbox numbers: most read, some never read, some failing (undeliverable, stopped marketing). */
const audience = (block: number) =>
  Array.from(
    { length: 400 },
    (_, i) => `+1${block}${String(i).padStart(3, "0")}${i % 50 === 0 ? "0000" : i % 50 === 1 ? "0002" : i % 10 === 2 ? "0001" : "5678"}`
  )

const launchCampaign = async (h: Harness, shop: TestStore, phones: ReadonlyArray<string>) => {
  const key = shop.testKey
  const id = (
    await h.request("POST", "/chat/campaigns", key, { name: "Crash", template: { name: "crash_sale", language: "en_US", parameters: ["you"] } })
  ).json.id
  const added = await h.request("POST", `/chat/campaigns/${id}/recipients`, key, { phones })
  expect(added.json.added).toBe(phones.length)
  expect((await h.request("POST", `/chat/campaigns/${id}/launch`, key)).status).toBe(200)
  return id as string
}

const sendsOf = async (h: Harness, shop: TestStore) =>
  (await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).sends as number

/** Accepted sends of the number in (from, to] (epoch ms). */
const acceptedBetween = async (h: Harness, shop: TestStore, from: number, to: number) =>
  ((await h.emulatorGet(`/messages?phone_number_id=${shop.store.sandbox.phoneNumberId}`)).data as Array<{ accepted_at: number }>).filter(
    (m) => m.accepted_at > from && m.accepted_at <= to
  ).length

/** The campaign finished, every recipient final, the operator saw each number once, counters exact. */
const expectFinished = async (h: Harness, shop: TestStore, id: string, phones: ReadonlyArray<string>) => {
  const key = shop.testKey
  const done = await eventually(
    async () => {
      const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
      return c.status === "completed" ? c : undefined
    },
    "campaign completed",
    60_000
  )
  expect(done.pending).toBe(0)
  const stats = await h.emulatorGet(`/stats?phone_number_id=${shop.store.sandbox.phoneNumberId}`)
  expect(stats.sends).toBe(phones.length)
  expect(stats.duplicateRecipients).toBe(0)
  expect(stats.duplicatesByCallbackData).toBe(0)
  expect(stats.maxInAnyOneSecondWindow).toBeLessThanOrEqual(MPS)
  // Our pacer spaces starts by 1 s + 25 ms; a stall of more than 25 ms between a start and the
  // operator's clock (a GC pause, a busy CI machine) can still earn one 130429, which the lane
  // handles (the recipient goes back to pending and is sent once: see sends above). Two
  // workers holding the lane at once would earn dozens: at most 1% of the sends is allowed.
  expect(stats.rejected429).toBeLessThanOrEqual(Math.ceil(phones.length / 100))
  const failing = phones.filter((p) => p.endsWith("0000") || p.endsWith("0002")).length
  const unread = phones.filter((p) => p.endsWith("0001")).length
  const settled = await eventually(
    async () => {
      const c = (await h.request("GET", `/chat/campaigns/${id}`, key)).json
      return c.read === phones.length - failing - unread && c.failed === failing && c.delivered === phones.length - failing ? c : undefined
    },
    "counters settled",
    30_000
  )
  expect(settled).toMatchObject({ sent: phones.length - failing, delivered: phones.length - failing, pending: 0, total: phones.length })
  // every recipient in a final state
  for (const status of ["pending", "sending"]) {
    expect((await h.request("GET", `/chat/campaigns/${id}/recipients?status=${status}`, key)).json.data).toEqual([])
  }
  const recalculated = (await h.request("POST", `/chat/campaigns/${id}/recalculate`, key)).json
  for (const field of ["sent", "delivered", "read", "failed", "pending", "total"]) expect(recalculated[field]).toBe(settled[field])
}

describe.skipIf(!SQLITE.available)(`campaign workers killed mid-send (${SQLITE.name})`, () => {
  let h: Harness
  afterAll(async () => {
    await h?.stop()
  })

  it("every recipient ends final and the operator saw no recipient twice, across three SIGKILLs", async () => {
    h = await startHarness({
      dialect: SQLITE,
      lanes: false,
      separateEmulator: true,
      emulator: { messagesPerSecond: MPS, latencyMs: 60, rateAcceptedButLost: 0.02, statusDelayMs: 4000 }
    })
    const shop = await h.createStore()
    await h.approvedTemplate(shop.testKey, "crash_sale")
    const phones = audience(700)
    const id = await launchCampaign(h, shop, phones)

    let acceptedAfterDeath = 0
    for (const [n, threshold] of [60, 160, 330].entries()) {
      const w = startWorker(h, `w${n}`)
      await w.ready
      await eventually(async () => (await sendsOf(h, shop)) >= threshold, `${threshold} sends`, 30_000)
      const killedAt = await kill(w)
      await new Promise((r) => setTimeout(r, 300))
      // sends in flight when the worker died, accepted by the operator after its death
      acceptedAfterDeath += await acceptedBetween(h, shop, killedAt, Date.now())
    }
    expect(acceptedAfterDeath).toBeGreaterThan(0)
    startWorker(h, "w-final")
    await expectFinished(h, shop, id, phones)
  }, 120_000)
})

describe.skipIf(!POSTGRES.available)(`campaign workers killed mid-send (${POSTGRES.name}, three workers)`, () => {
  let h: Harness
  afterAll(async () => {
    await h?.stop()
  })

  it("one worker holds a number's lane at a time; the one killed is taken over; nothing is sent twice", async () => {
    h = await startHarness({
      dialect: POSTGRES,
      lanes: false,
      separateEmulator: true,
      emulator: { messagesPerSecond: MPS, latencyMs: 150, rateAcceptedButLost: 0.02, statusDelayMs: 2500 }
    })
    const a = await h.createStore()
    const b = await h.createStore()
    await h.approvedTemplate(a.testKey, "crash_sale")
    await h.approvedTemplate(b.testKey, "crash_sale")
    const phonesA = audience(710)
    const phonesB = audience(720)
    const pool = [startWorker(h, "p1"), startWorker(h, "p2"), startWorker(h, "p3")]
    await Promise.all(pool.map((w) => w.ready))
    const idA = await launchCampaign(h, a, phonesA)
    const idB = await launchCampaign(h, b, phonesB)
    // kill the worker that holds store A's lane, in the middle of its sends
    const laneA = a.store.sandbox.phoneNumberId
    await eventually(async () => (await sendsOf(h, a)) >= 150, "150 sends of A", 30_000)
    const holder = pool.find((w) => w.id === holderOf(laneA))!
    const killedAt = await kill(holder)
    await new Promise((r) => setTimeout(r, 300))
    // sends in flight when it died, accepted after its death (no successor can send yet: the lease has not expired)
    expect(await acceptedBetween(h, a, killedAt, Date.now())).toBeGreaterThan(0)
    // another worker takes the lane over once the lease expires
    const successor = await eventually(async () => (holderOf(laneA) !== holder.id ? holderOf(laneA) : undefined), "lane A taken over", 20_000)
    expect(successor).not.toBe(holder.id)
    await expectFinished(h, a, idA, phonesA)
    await expectFinished(h, b, idB, phonesB)
  }, 150_000)
})
