/**
 * The lane's bookkeeping (`internal/Lane.ts`), on a simulated clock: what it sends and when
 * (pacing over several campaigns, a campaign's own slower rate, per-user gaps, the lease),
 * what each operator answer does (throttles, refusals, automatic pauses), what it claims,
 * and which outcomes it hands out for writing. No store, no operator, no timers.
 */
import { describe, expect, it } from "vitest"
import type { Item, Lane, LaneOptions } from "../src/internal/Lane.js"
import { campaign, makeLane, maxInWindow, options, recipients } from "./helpers.js"

interface Sent {
  readonly at: number
  readonly item: Item
}

/**
 * Runs the sending loop on a simulated clock from `from` to `until`: sends what `next` hands
 * out (each answered `answer` after `latencyMs`), and advances time by what it says to wait.
 */
const drive = (
  lane: Lane,
  from: number,
  until: number,
  answer: (item: Item) => Parameters<Lane["onResult"]>[1] = () => ({ _tag: "Accepted", operatorMessageId: "w" }),
  latencyMs = 20
) => {
  const sent: Array<Sent> = []
  const inFlight: Array<{ readonly item: Item; readonly doneAt: number }> = []
  let now = from
  while (now < until) {
    // answers due by now
    for (let i = inFlight.length - 1; i >= 0; i--) {
      if (inFlight[i].doneAt <= now) {
        const { item, doneAt } = inFlight[i]
        inFlight.splice(i, 1)
        lane.finished(item, doneAt)
        lane.onResult(item, answer(item), now)
      }
    }
    const item = lane.next(now)
    if (item !== undefined) {
      sent.push({ at: now, item })
      inFlight.push({ item, doneAt: now + latencyMs })
      continue
    }
    if (lane.wait === "done" || lane.wait === "lost") break
    const nextAnswer = Math.min(...inFlight.map((f) => f.doneAt), Number.POSITIVE_INFINITY)
    now = Math.min(now + Math.max(1, lane.waitMs), lane.wait === "paced" ? Number.POSITIVE_INFINITY : nextAnswer)
  }
  return sent
}

describe("Lane: what is sent, and when", () => {
  it("two campaigns at the number's rate: never more than the rate in any second, one message each in turn, none in the first second", () => {
    const { lane } = makeLane()
    const a = campaign("cmp_a")
    const b = campaign("cmp_b")
    lane.refresh([a, b], 0)
    const [bookA, bookB] = lane.campaigns()
    lane.claimed(bookA, recipients(300))
    lane.claimed(bookB, recipients(300))
    const sent = drive(lane, 0, 10_000)
    expect(sent).toHaveLength(600)
    // the previous holder of the lane may have sent in the second before the claim
    expect(sent[0].at).toBeGreaterThanOrEqual(1000 + options.pacingMarginMs)
    expect(
      maxInWindow(
        sent.map((s) => s.at),
        1000 + options.pacingMarginMs
      )
    ).toBeLessThanOrEqual(100)
    // near the rate: 600 in about six seconds
    expect(sent[599].at - sent[0].at).toBeLessThan(6_200)
    // round-robin, one message each (a paced item goes back to the front of its queue while
    // the turn moves on, so not strictly alternating): while both have recipients queued, they
    // share every stretch of 20 sends
    for (let i = 0; i + 20 <= 500; i += 20) {
      const ofA = sent.slice(i, i + 20).filter((x) => x.item.book === bookA).length
      expect(ofA).toBeGreaterThanOrEqual(5)
      expect(ofA).toBeLessThanOrEqual(15)
    }
  })

  it("a campaign that asks for less keeps its own pace beside a faster one", () => {
    const { lane } = makeLane()
    lane.refresh([campaign("cmp_slow", 10), campaign("cmp_fast")], 0)
    const [slow, fast] = lane.campaigns()
    lane.claimed(slow, recipients(100))
    lane.claimed(fast, recipients(300))
    const sent = drive(lane, 0, 5_000)
    const slowTimes = sent.filter((s) => s.item.book === slow).map((s) => s.at)
    expect(maxInWindow(slowTimes, 1000)).toBeLessThanOrEqual(10)
    expect(
      maxInWindow(
        sent.map((s) => s.at),
        1000
      )
    ).toBeLessThanOrEqual(100)
    expect(slowTimes.length).toBeGreaterThanOrEqual(35)
    // (the loop sleeps for the slow campaign's pacer, so the fast one goes about as often)
    expect(sent.filter((s) => s.item.book === fast).length).toBeGreaterThanOrEqual(slowTimes.length)
  })

  it("a change of rate never bursts: the old window binds for a second after it", () => {
    const { lane } = makeLane({ messagesPerSecond: 1000 })
    lane.refresh([campaign("cmp_a", 10)], 0)
    const [book] = lane.campaigns()
    lane.claimed(book, recipients(400))
    const before = drive(lane, 0, 3_000)
    lane.refresh([campaign("cmp_a", 200)], 3_000)
    const after = drive(lane, 3_000, 5_000)
    const times = [...before, ...after].map((s) => s.at)
    // in the second after the change, at most the old rate's worth plus the old window's slack
    expect(
      maxInWindow(
        times.filter((t) => t >= 2_000 && t < 4_000),
        1000
      )
    ).toBeLessThanOrEqual(10)
    expect(after.length).toBeGreaterThan(150)
  })

  it("one message per gap to one user: a second one to the same phone is deferred while others go", () => {
    const { lane } = makeLane()
    lane.refresh([campaign("cmp_a")], 0)
    const [book] = lane.campaigns()
    lane.claimed(
      book,
      recipients(5, (i) => (i < 2 ? "+15550000042" : `+1555111000${i}`))
    )
    const sent = drive(lane, 0, 20_000)
    const toUser = sent.filter((s) => s.item.recipient.phone === "+15550000042").map((s) => s.at)
    expect(toUser).toHaveLength(2)
    expect(toUser[1] - toUser[0]).toBeGreaterThanOrEqual(options.perUserGapMs)
    expect(sent.map((s) => s.item.recipient.phone).indexOf("+15551110004")).toBeLessThan(
      sent.findIndex((s, i) => i > 0 && s.item.recipient.phone === "+15550000042")
    )
  })

  it("at most maxInFlight sends at once: the loop waits for a slot", () => {
    const { lane } = makeLane({ maxInFlight: 2, messagesPerSecond: 1000 })
    lane.refresh([campaign("cmp_a")], 0)
    lane.claimed(lane.campaigns()[0], recipients(10))
    expect(lane.next(2_000)).toBeDefined()
    expect(lane.next(2_001)).toBeDefined()
    expect(lane.next(2_002)).toBeUndefined()
    expect(lane.wait).toBe("full")
  })

  it("the lease: nothing is sent once the last heartbeat is older than the lease minus its margin; a beat renews it; a lost lease is final", () => {
    const { lane } = makeLane()
    lane.refresh([campaign("cmp_a")], 0)
    lane.claimed(lane.campaigns()[0], recipients(10))
    const limit = options.leaseMs - options.leaseMarginMs
    expect(lane.leaseValid(limit - 1)).toBe(true)
    expect(lane.next(limit)).toBeUndefined()
    expect(lane.wait).toBe("lost")
    lane.beat(limit - 10)
    expect(lane.next(limit)).toBeDefined()
    lane.lose()
    expect(lane.next(limit + 1)).toBeUndefined()
    expect(lane.wait).toBe("lost")
  })

  it("done: nothing active and nothing in flight; idle otherwise, waiting at most watchMs", () => {
    const { lane } = makeLane()
    expect(lane.next(2_000)).toBeUndefined()
    expect(lane.wait).toBe("done")
    lane.refresh([campaign("cmp_a")], 2_000)
    expect(lane.next(2_000)).toBeUndefined()
    expect(lane.wait).toBe("idle")
    expect(lane.waitMs).toBe(options.watchMs)
  })
})

describe("Lane: what answers do", () => {
  const oneSent = (o: Partial<LaneOptions> = {}) => {
    const made = makeLane(o)
    made.lane.refresh([campaign("cmp_a")], 0)
    const [book] = made.lane.campaigns()
    made.lane.claimed(book, recipients(20))
    const item = made.lane.next(2_000)!
    made.lane.finished(item, 2_010)
    return { ...made, book, item }
  }

  it("accepted, failed by class, opted out: booked as outcomes, taken once for writing", () => {
    const { lane, book, item } = oneSent()
    lane.onResult(item, { _tag: "Accepted", operatorMessageId: "wamid.1" }, 2_010)
    const second = lane.next(2_100)!
    lane.finished(second, 2_110)
    lane.onResult(second, { _tag: "Refused", code: 131050, reason: "stopped marketing", refusal: "optedOut" }, 2_110)
    const batch = lane.take(book, 2_200)!
    expect(batch.outcomes.accepted).toEqual([{ id: item.recipient.id, operatorMessageId: "wamid.1" }])
    expect(batch.outcomes.failed).toEqual([{ id: second.recipient.id, code: 131050, reason: "stopped marketing", retryable: false }])
    expect(batch.outcomes.optedOut).toEqual([second.recipient.phone])
    expect(batch.progress).toBe(true)
    expect(lane.take(book, 2_200)).toBeUndefined()
  })

  it("the periodic flush (take with afterMs) leaves outcomes to a claim that took some less than afterMs ago", () => {
    const { lane, book, item } = oneSent()
    lane.onResult(item, { _tag: "Accepted", operatorMessageId: "w1" }, 2_010)
    const claimed = lane.take(book, 2_100)! // the claim's transaction takes them
    expect(claimed.outcomes.accepted).toHaveLength(1)
    const next = lane.next(2_200)!
    lane.finished(next, 2_210)
    lane.onResult(next, { _tag: "Accepted", operatorMessageId: "w2" }, 2_210)
    expect(lane.take(book, 2_500, 500)).toBeUndefined() // 400 ms after the claim took them
    expect(lane.hasUnwritten()).toBe(true)
    const flushed = lane.take(book, 2_600, 500)! // no claim for 500 ms: the flush writes them
    expect(flushed.outcomes.accepted).toEqual([{ id: next.recipient.id, operatorMessageId: "w2" }])
    expect(lane.take(book, 3_200, 500)).toBeUndefined() // nothing left
    const last = lane.next(3_300)!
    lane.finished(last, 3_310)
    lane.onResult(last, { _tag: "Accepted", operatorMessageId: "w3" }, 3_310)
    lane.take(book, 3_320) // a claim that found nothing: no claim is coming
    lane.claimed(book, [])
    const fourth = lane.next(3_400)!
    lane.finished(fourth, 3_410)
    lane.onResult(fourth, { _tag: "Accepted", operatorMessageId: "w4" }, 3_410)
    expect(lane.take(book, 3_500, 500)!.outcomes.accepted).toEqual([{ id: fourth.recipient.id, operatorMessageId: "w4" }])
  })

  it("outcomes not written are kept for the next batch; progress at most every progressMs; released rows make the campaign claimable again", () => {
    const { lane, book, item, claimsWanted } = oneSent()
    lane.onResult(item, { _tag: "Accepted", operatorMessageId: "w1" }, 2_010)
    const batch = lane.take(book, 2_100)!
    lane.notWritten(batch)
    const again = lane.take(book, 2_200)!
    expect(again.outcomes.accepted).toHaveLength(1)
    lane.written(again, 0, 2_200)
    const next = lane.next(2_300)!
    lane.finished(next, 2_310)
    lane.onResult(next, { _tag: "Throttled", scope: "user", retryAfterMs: 6_000 }, 2_310)
    const third = lane.take(book, 2_400)!
    expect(third.progress).toBe(false) // 200 ms after the last progress
    expect(third.outcomes.released).toEqual([{ id: next.recipient.id, seq: next.recipient.seq }])
    book.exhausted = true
    const wanted = claimsWanted()
    lane.written(third, 1, 2_400)
    expect(book.exhausted).toBe(false)
    expect(claimsWanted()).toBe(wanted + 1)
  })

  it("a throttle on the number blocks briefly and leaves no gap for the user; on the account, as long as the operator says", () => {
    const { lane, item } = oneSent()
    lane.onResult(item, { _tag: "Throttled", scope: "number", retryAfterMs: 2_000 }, 2_010)
    expect(lane.next(2_030)).toBeUndefined()
    expect(lane.wait).toBe("paced")
    expect(lane.waitMs).toBe(2_060 - 2_030) // NUMBER_THROTTLE_MS after the answer
    const resent = lane.next(2_060)!
    expect(resent.recipient.phone).not.toBe(item.recipient.phone) // the released row is resent after a claim
    lane.finished(resent, 2_070)
    lane.onResult(resent, { _tag: "Throttled", scope: "account", retryAfterMs: 60_000 }, 2_070)
    expect(lane.next(2_080)).toBeUndefined()
    expect(lane.waitMs).toBe(62_070 - 2_080)
  })

  it("three unknown answers in a row (5xx, network) slow the lane for a second; rows stay sending", () => {
    const { lane, book, item } = oneSent()
    lane.onResult(item, { _tag: "Unknown", reason: "HTTP 500" }, 2_010)
    for (let i = 0; i < 2; i++) {
      const next = lane.next(2_100 + i * 100)!
      lane.finished(next, 2_150 + i * 100)
      lane.onResult(next, { _tag: "Unknown", reason: "HTTP 500" }, 2_150 + i * 100)
    }
    expect(lane.next(2_300)).toBeUndefined()
    expect(lane.wait).toBe("paced")
    expect(lane.waitMs).toBe(3_250 - 2_300)
    expect(lane.take(book, 2_300)).toBeUndefined()
  })

  it("a template refusal pauses the campaign once and releases everything it had queued", () => {
    const { lane, book, item } = oneSent()
    const other = lane.next(2_005)!
    lane.finished(other, 2_008)
    const pause = lane.onResult(item, { _tag: "Refused", code: 132015, reason: "template paused", refusal: "template" }, 2_010)
    expect(pause).toMatchObject({
      campaign: { id: "cmp_a" },
      reason: "template_paused",
      detail: "the operator refused the template (code 132015): template paused"
    })
    expect(book.active).toBe(false)
    // the send that was in flight meanwhile: released too, no second pause
    expect(lane.onResult(other, { _tag: "Refused", code: 132015, reason: "template paused", refusal: "template" }, 2_020)).toBeUndefined()
    expect(lane.take(book, 2_100)!.outcomes.released).toHaveLength(20)
    expect(book.queued).toBe(0)
    expect(lane.next(2_200)).toBeUndefined()
    expect(lane.wait).toBe("done")
  })

  it("more than `ratio` of the last sends failed: an automatic pause naming the count", () => {
    const { lane, item } = oneSent()
    let pause = lane.onResult(item, { _tag: "Refused", code: 131026, reason: "undeliverable", refusal: "permanent" }, 2_010)
    for (let i = 0; pause === undefined && i < 20; i++) {
      const next = lane.next(2_100 + 20 * i)
      if (next === undefined) break
      lane.finished(next, 2_110 + 20 * i)
      pause = lane.onResult(next, { _tag: "Refused", code: 131026, reason: "undeliverable", refusal: "permanent" }, 2_110 + 20 * i)
    }
    expect(pause).toMatchObject({ reason: "refusal_rate", detail: "10 of the last 10 sends failed (last: code 131026, undeliverable)" })
  })

  it("a burst of 131048 (spam rate limit, throttled): the lane waits after each, and the third in the window pauses with refusal_rate", () => {
    const { lane, book, item } = oneSent()
    const spam = { _tag: "Throttled", scope: "account", retryAfterMs: 5_000, code: 131048 } as const
    expect(lane.onResult(item, spam, 2_010)).toBeUndefined()
    expect(lane.next(2_020)).toBeUndefined() // the lane waits as long as the operator says
    expect(lane.wait).toBe("paced")
    let pause: ReturnType<Lane["onResult"]>
    for (let i = 0; pause === undefined && i < 5; i++) {
      const next = lane.next(7_100 + 5_100 * i)!
      lane.finished(next, 7_110 + 5_100 * i)
      pause = lane.onResult(next, spam, 7_110 + 5_100 * i)
    }
    expect(pause).toMatchObject({ reason: "refusal_rate", detail: "3 of the last 3 sends were refused with code 131048 (spam rate limit)" })
    expect(book.active).toBe(false)
    // nothing failed: the refused recipients go back to pending
    expect(lane.take(book, 20_000)!.outcomes).toMatchObject({ failed: [] })
  })

  it("131049 fails only its recipient, retryable; accepted sends in between keep the count under the threshold until enough of them come", () => {
    const { lane, book, item } = oneSent()
    const cap = { _tag: "Refused", code: 131049, reason: "ecosystem engagement", refusal: "retryable" } as const
    expect(lane.onResult(item, cap, 2_010)).toBeUndefined()
    const answers = ["Accepted", 131049, "Accepted", 131049, 131049] as const
    let pause: ReturnType<Lane["onResult"]>
    answers.forEach((answer, i) => {
      const next = lane.next(2_100 + 20 * i)!
      lane.finished(next, 2_110 + 20 * i)
      pause = lane.onResult(next, answer === "Accepted" ? { _tag: "Accepted", operatorMessageId: "w" } : cap, 2_110 + 20 * i)
      if (i < answers.length - 1) expect(pause).toBeUndefined()
    })
    expect(pause).toMatchObject({ reason: "refusal_rate", detail: "4 of the last 6 sends were refused with code 131049 (per-user marketing cap)" })
    const failed = lane.take(book, 3_000)!.outcomes.failed
    expect(failed).toHaveLength(4)
    expect(failed.every((f) => f.code === 131049 && f.retryable)).toBe(true)
  })
})

describe("Lane: claims and campaigns", () => {
  it("claims at most one second of the campaign's rate, round-robin over campaigns that run low; an exhausted one waits for maintenance", () => {
    const { lane, claimsWanted } = makeLane()
    lane.refresh([campaign("cmp_a", 30), campaign("cmp_b")], 0)
    expect(claimsWanted()).toBe(2)
    const [a, b] = lane.campaigns()
    expect(lane.claimSize(a)).toBe(30)
    expect(lane.claimSize(b)).toBe(100)
    const first = lane.nextToClaim()!
    const second = lane.nextToClaim()!
    expect(new Set([first, second])).toEqual(new Set([a, b]))
    expect(lane.claimed(a, [])).toBe(false)
    expect(lane.claimed(b, recipients(100))).toBe(true)
    expect(lane.nextToClaim()).toBeUndefined() // a exhausted, b full
    expect(lane.exhaustedAndIdle(a)).toBe(true)
    expect(lane.nextToClaim()).toBe(a)
  })

  it("a campaign no longer active releases its queue and is forgotten once nothing of it is left; a resumed one starts afresh", () => {
    const { lane } = makeLane()
    lane.refresh([campaign("cmp_a"), campaign("cmp_b")], 0)
    const [a] = lane.campaigns()
    lane.claimed(a, recipients(5))
    lane.refresh([campaign("cmp_b")], 100)
    expect(a.active).toBe(false)
    expect(lane.take(a, 200)!.outcomes.released).toHaveLength(5)
    expect(lane.take(a, 300)).toBeUndefined()
    expect(lane.campaigns().map((book) => book.campaign.id)).toEqual(["cmp_b"])
    lane.refresh([campaign("cmp_a"), campaign("cmp_b")], 400)
    expect(lane.campaigns().map((book) => [book.campaign.id, book.active])).toEqual([
      ["cmp_b", true],
      ["cmp_a", true]
    ])
  })

  it("releaseQueued(all) gives back every claimed, unsent recipient, deferred ones included", () => {
    const { lane } = makeLane()
    lane.refresh([campaign("cmp_a")], 0)
    const [book] = lane.campaigns()
    lane.claimed(
      book,
      recipients(3, () => "+15550000077")
    )
    const first = lane.next(2_000)!
    lane.finished(first, 2_001)
    expect(lane.next(2_001)).toBeUndefined() // the other two wait for the user's gap
    lane.releaseQueued(true)
    expect(lane.take(book, 2_002)!.outcomes.released).toHaveLength(2)
    expect(book.queued).toBe(0)
  })
})
