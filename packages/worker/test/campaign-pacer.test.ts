/**
 * The pacer's guarantee, checked exhaustively on simulated clocks: a sender that starts
 * each send at (or after) `earliest()` never has more than the rate in any one-second
 * window, and still reaches nearly the full rate.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { FailureWindow, Pacer, SlidingWindow, UserGaps } from "../src/internal/Pacer.js"
import { maxInWindow } from "./helpers.js"

/**
 * Starts `n` sends as early as the pacer allows, on a simulated clock. Send `i` reaches the
 * operator `transit(i)` ms after it starts (where the operator counts it) and its answer
 * comes back `back` ms later, when the pacer is told (`complete`). Each start is late by
 * `lateness()` (timer lateness). Answers the start times and the operator's acceptance times.
 */
const simulate = (pacer: Pacer, n: number, options: { transit?: (i: number) => number; back?: number; lateness?: () => number } = {}) => {
  const { transit = () => 1, back = 1, lateness = () => 0 } = options
  const starts: Array<number> = []
  const arrivals: Array<number> = []
  let inFlight: Array<{ readonly slot: number; readonly doneAt: number }> = []
  let now = 0
  for (let i = 0; i < n; i++) {
    for (;;) {
      for (const f of inFlight) if (f.doneAt <= now) pacer.complete(f.slot, f.doneAt)
      inFlight = inFlight.filter((f) => f.doneAt > now)
      const earliest = pacer.earliest()
      if (earliest <= now) break
      // +Infinity: the send leaving the window has not answered; wait for the next answer
      now = earliest === Number.POSITIVE_INFINITY ? Math.min(...inFlight.map((f) => f.doneAt)) : earliest + lateness()
    }
    const slot = pacer.record(now)
    const arrival = now + transit(i)
    starts.push(now)
    arrivals.push(arrival)
    inFlight.push({ slot, doneAt: arrival + back })
  }
  return { starts, arrivals: arrivals.slice().sort((a, b) => a - b) }
}

describe("Pacer", () => {
  it("property: never more than the rate in any one-second window at the operator, whatever the rate, the transit delays (up to 300 ms, varying send to send) and the timer lateness", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 50 }),
        (rate, margin, delays, lateness) => {
          let k = 0
          const { arrivals } = simulate(new Pacer(rate, margin), Math.min(4 * rate, 3000), {
            transit: (i) => delays[i % delays.length],
            lateness: () => lateness[k++ % lateness.length]
          })
          expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(rate)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("a send held up on its way does not land next to the next second's sends (booked by its answer, not its start)", () => {
    // 20/s; the first send of each second is held up 200 ms, the others take 1 ms
    const { arrivals } = simulate(new Pacer(20, 0), 200, { transit: (i) => (i % 20 === 0 ? 200 : 1) })
    expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(20)
  })

  it("reaches the rate less the margin and the round trip: 1000/s with a 15 ms margin and 2 ms round trips sends 10,000 in about 10.2 s, spread over each second", () => {
    const { starts, arrivals } = simulate(new Pacer(1000, 15), 10_000)
    const seconds = (starts[starts.length - 1] - starts[0]) / 1000
    expect(10_000 / seconds).toBeGreaterThan(970)
    expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(1000)
    // smoothing: no 50 ms window holds more than its share
    expect(maxInWindow(starts, 50)).toBeLessThanOrEqual(50)
  })

  it("a throttling answer blocks every start until the given time", () => {
    const pacer = new Pacer(10, 0)
    pacer.block(5_000)
    expect(pacer.earliest()).toBe(5_000)
  })

  it("a sliding window by start allows at once under capacity, then one window after the oldest start", () => {
    const w = new SlidingWindow(3, 1000)
    expect(w.earliest()).toBe(Number.NEGATIVE_INFINITY)
    w.record(0)
    w.record(10)
    w.record(20)
    expect(w.earliest()).toBe(1000)
    w.record(1000)
    expect(w.earliest()).toBe(1010)
  })

  it("a sliding window by completion waits for the leaving send's answer, then one window after the latest answer of those that left", () => {
    const w = new SlidingWindow(2, 1000, true)
    const a = w.record(0)
    const b = w.record(10)
    expect(w.earliest()).toBe(Number.POSITIVE_INFINITY) // the first has not answered
    w.complete(b, 20)
    expect(w.earliest()).toBe(Number.POSITIVE_INFINITY)
    w.complete(a, 300) // held up: answered after the second
    expect(w.earliest()).toBe(1300)
    w.record(1300) // the first leaves; its answer (300), later than the second's, still bounds the next start
    expect(w.earliest()).toBe(1300)
  })
})

describe("UserGaps and FailureWindow", () => {
  it("one message per gap to one user; old entries are forgotten (memory stays flat)", () => {
    const gaps = new UserGaps(6000)
    gaps.record("+1", 0)
    expect(gaps.readyAt("+1")).toBe(6000)
    expect(gaps.readyAt("+2")).toBe(Number.NEGATIVE_INFINITY)
    for (let i = 0; i < 100_000; i++) gaps.record(`+${i + 10}`, 1000 + i)
    expect(gaps.size).toBeLessThanOrEqual(6001)
    expect(gaps.readyAt("+1")).toBe(Number.NEGATIVE_INFINITY)
  })

  it("a send the operator refused for the number's rate leaves no gap for its user", () => {
    const gaps = new UserGaps(6000)
    gaps.record("+1", 100)
    gaps.record("+2", 100)
    gaps.forget("+1")
    expect(gaps.readyAt("+1")).toBe(Number.NEGATIVE_INFINITY)
    expect(gaps.readyAt("+2")).toBe(6100)
    // pruning after a forget keeps working
    gaps.record("+1", 200)
    for (let i = 0; i < 10; i++) gaps.record(`+${i + 10}`, 7000 + i)
    expect(gaps.readyAt("+1")).toBe(Number.NEGATIVE_INFINITY)
  })

  it("the gap counts from the answer of the user's send (held up 400 ms: the next one waits 400 ms more); a later send or a forget wins", () => {
    const gaps = new UserGaps(1500)
    gaps.record("+1", 100)
    gaps.complete("+1", 100, 500)
    expect(gaps.readyAt("+1")).toBe(2000)
    gaps.record("+2", 100)
    gaps.record("+2", 2000) // a later send to the same user
    gaps.complete("+2", 100, 600) // the earlier one's answer does not move it back
    expect(gaps.readyAt("+2")).toBe(3500)
    gaps.record("+3", 100)
    gaps.forget("+3")
    gaps.complete("+3", 100, 500)
    expect(gaps.readyAt("+3")).toBe(Number.NEGATIVE_INFINITY)
  })

  it("failure share over the last outcomes, with a minimum", () => {
    const w = new FailureWindow(10)
    for (let i = 0; i < 4; i++) w.record(true)
    expect(w.exceeds(5, 0.5)).toBe(false)
    w.record(false)
    expect(w.exceeds(5, 0.5)).toBe(true)
    for (let i = 0; i < 10; i++) w.record(false)
    expect(w.exceeds(5, 0.5)).toBe(false)
    expect(w.failed).toBe(0)
  })
})
