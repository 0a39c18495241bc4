import { describe, expect, it } from "vitest"
import { Time } from "../src/index.js"

describe("Time.toIso", () => {
  it("answers Date's ISO text for every time, kept or not, across the kept texts' bound", () => {
    const times = Array.from({ length: 20_000 }, (_, i) => 1_790_000_000_000 + i * 7_919)
    // twice over, so the second pass reads kept texts and texts dropped when the bound was reached
    for (const ms of [...times, ...times.reverse(), 0, -1, 8.64e15]) expect(Time.toIso(ms)).toBe(new Date(ms).toISOString())
    expect(() => Time.toIso(Number.NaN)).toThrow(RangeError)
    expect(() => Time.toIso(8.64e15 + 1)).toThrow(RangeError)
  })
})
