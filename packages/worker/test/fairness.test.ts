import { describe, expect, it } from "vitest"
import * as Fairness from "../src/internal/Fairness.js"

const kinds: Array<Fairness.Kind> = [
  { kind: "inbox", outbound: false, blocked: false },
  { kind: "batch", outbound: true, blocked: false },
  { kind: "deliver", outbound: true, blocked: false }
]
const limits = Fairness.limitsOf(8)
const idle: Fairness.Load = { byKind: new Map(), byStore: new Map(), outbound: 0, total: 0 }
const jobs = (kind: string, n: number, storeOf: (i: number) => string | null = () => null, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ id: `${kind}-${String(i).padStart(4, "0")}`, kind, storeId: storeOf(i), runAt: from + i }))

describe("Fairness", () => {
  it("defaults: half the slots per kind (at least two), a quarter per store, all but one for outbound kinds", () => {
    expect(limits).toEqual({ concurrency: 8, perKind: 4, perStore: 2, outbound: 7 })
    expect(Fairness.limitsOf(1)).toEqual({ concurrency: 1, perKind: 1, perStore: 1, outbound: 1 })
    expect(Fairness.limitsOf(2)).toEqual({ concurrency: 2, perKind: 2, perStore: 1, outbound: 1 })
  })

  it("free slots go round-robin across kinds, oldest first within a kind, at most perKind each", () => {
    const candidates = [...jobs("batch", 8, (i) => `s${i}`), ...jobs("deliver", 8, (i) => `t${i}`, 100), ...jobs("inbox", 1, () => null, 1000)]
    const chosen = Fairness.choose(candidates, kinds, limits, idle)
    const count = (kind: string) => chosen.filter((c) => c.kind === kind).length
    expect(chosen).toHaveLength(8)
    expect(count("inbox")).toBe(1)
    expect(count("batch")).toBe(4)
    expect(count("deliver")).toBe(3)
    expect(chosen.filter((c) => c.kind === "batch").map((c) => c.id)).toEqual(["batch-0000", "batch-0001", "batch-0002", "batch-0003"])
  })

  it("one store takes at most perStore slots; its other jobs are skipped for other stores'", () => {
    const candidates = jobs("deliver", 6, (i) => (i < 5 ? "hostile" : "other"))
    const chosen = Fairness.choose(candidates, kinds, limits, idle)
    expect(chosen.map((c) => c.id)).toEqual(["deliver-0000", "deliver-0001", "deliver-0005"])
    expect(
      Fairness.fullStores(limits, {
        ...idle,
        byStore: new Map([
          ["hostile", 2],
          ["other", 1]
        ])
      })
    ).toEqual(["hostile"])
  })

  it("outbound kinds leave a slot for the others: with seven outbound jobs running only the inbox gets the last", () => {
    const load: Fairness.Load = {
      byKind: new Map([
        ["batch", 4],
        ["deliver", 3]
      ]),
      byStore: new Map(),
      outbound: 7,
      total: 7
    }
    expect(Fairness.room(kinds, limits, load)).toEqual([{ kind: "inbox", limit: 1 }])
    const chosen = Fairness.choose([...jobs("deliver", 3), ...jobs("inbox", 2, () => null, 10)], kinds, limits, load)
    expect(chosen.map((c) => c.id)).toEqual(["inbox-0000"])
  })

  it("an ordered kind's jobs, claimed together to run as one, are not held to perKind", () => {
    const ordered: Array<Fairness.Kind> = [{ kind: "inbox", outbound: false, ordered: true, blocked: false }, ...kinds.slice(1)]
    expect(Fairness.room(ordered, limits, idle)[0]).toEqual({ kind: "inbox", limit: 8 })
    expect(Fairness.choose(jobs("inbox", 8), ordered, limits, idle)).toHaveLength(8)
  })

  it("a blocked kind (ordered, one running) and a full runner have no room", () => {
    expect(Fairness.room([{ kind: "inbox", outbound: false, blocked: true }], limits, idle)).toEqual([])
    expect(Fairness.room(kinds, limits, { ...idle, total: 8 })).toEqual([])
    expect(Fairness.room(kinds, limits, { ...idle, byKind: new Map([["batch", 4]]), total: 4, outbound: 4 })).toEqual([
      { kind: "inbox", limit: 4 },
      { kind: "deliver", limit: 3 }
    ])
  })
})
