/**
 * State that lives between requests or job runs is kept by a service that a Layer provides,
 * never by the process: each Layer built has its own (two servers in one process, or two
 * tests, share nothing), and within one it is shared.
 */
import { describe, expect, it } from "@effect/vitest"
import { BatchJob, FlowEndpoint } from "@switchboard/domain"
import { Effect } from "effect"

describe("state kept per Layer", () => {
  it.effect("BatchJob.Senders: one send lock per catalog within a layer; two layers share no lock and no back-off", () =>
    Effect.gen(function* () {
      const a = yield* Effect.provide(BatchJob.Senders, BatchJob.layerSenders)
      const b = yield* Effect.provide(BatchJob.Senders, BatchJob.layerSenders)
      expect(a.sendLock("cat_1")).toBe(a.sendLock("cat_1"))
      expect(a.sendLock("cat_1")).not.toBe(a.sendLock("cat_2"))
      expect(a.sendLock("cat_1")).not.toBe(b.sendLock("cat_1"))
      a.backoffs.set("pbt_1", 4000)
      expect(b.backoffs.has("pbt_1")).toBe(false)
    })
  )

  it.effect("FlowEndpoint.Screens: a Flow JSON is parsed once per layer; the screens are the JSON's, none for text that is not JSON", () =>
    Effect.gen(function* () {
      const json = JSON.stringify({ version: "7.3", screens: [{ id: "ONE", data: { name: {} } }, 5] })
      const a = yield* Effect.provide(FlowEndpoint.Screens, FlowEndpoint.layerScreens)
      const b = yield* Effect.provide(FlowEndpoint.Screens, FlowEndpoint.layerScreens)
      expect(a.of(json)).toEqual([{ id: "ONE", data: { name: {} } }])
      expect(a.of(json)).toBe(a.of(json))
      expect(b.of(json)).not.toBe(a.of(json))
      expect(a.of("not json")).toEqual([])
      expect(a.of(null)).toEqual([])
      expect(FlowEndpoint.checkReply(a.of(json), { screen: "ONE", data: { name: "x" } })).toBeUndefined()
      expect(FlowEndpoint.checkReply(a.of(json), { screen: "TWO" })).toContain("TWO")
    })
  )
})
