/**
 * The pacer's guarantee, checked exhaustively on simulated clocks: a sender that starts
 * each send at (or after) `earliest()` never has more than the rate in any one-second
 * window, and still reaches nearly the full rate.
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { FailureWindow, Pacer, SlidingWindow, UserGaps } from "../src/internal/Pacer.js"

/** The largest number of times in any window [t, t + windowMs), times sorted. */
const maxInWindow = (times: ReadonlyArray<number>, windowMs: number): number => {
  let best = 0
  let start = 0
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= windowMs) start++
    best = Math.max(best, end - start + 1)
  }
  return best
}

/** Starts `n` sends as early as the pacer allows, each delayed by a random jitter (timer lateness). */
const simulate = (pacer: Pacer, n: number, jitter: () => number): Array<number> => {
  const times: Array<number> = []
  let now = 0
  for (let i = 0; i < n; i++) {
    now = Math.max(now, pacer.earliest()) + jitter()
    pacer.record(now)
    times.push(now)
  }
  return times
}

describe("Pacer", () => {
  it("property: never more than the rate in any one-second window, whatever the rate and the timer lateness (integer milliseconds, as Date.now gives)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 50 }),
        (rate, margin, lateness) => {
          let k = 0
          const times = simulate(new Pacer(rate, margin), Math.min(4 * rate, 3000), () => lateness[k++ % lateness.length])
          expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(rate)
          expect(maxInWindow(times, 1000 + margin)).toBeLessThanOrEqual(rate)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("reaches the rate less the margin: 1000/s with a 15 ms margin sends 10,000 in about 10.15 s, spread over each second", () => {
    const times = simulate(new Pacer(1000, 15), 10_000, () => 0)
    const seconds = (times[times.length - 1] - times[0]) / 1000
    expect(10_000 / seconds).toBeGreaterThan(980)
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(1000)
    // smoothing: no 50 ms window holds more than its share
    expect(maxInWindow(times, 50)).toBeLessThanOrEqual(50)
  })

  it("a throttling answer blocks every start until the given time", () => {
    const pacer = new Pacer(10, 0)
    pacer.block(5_000)
    expect(pacer.earliest()).toBe(5_000)
  })

  it("a sliding window under capacity allows at once", () => {
    const w = new SlidingWindow(3, 1000)
    expect(w.earliest()).toBe(Number.NEGATIVE_INFINITY)
    w.record(0)
    w.record(10)
    w.record(20)
    expect(w.earliest()).toBe(1000)
    w.record(1000)
    expect(w.earliest()).toBe(1010)
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
