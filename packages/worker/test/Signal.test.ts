import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Signal } from "../src/internal/Signal.js"

describe("Signal", () => {
  it.live("a notify while nobody waits ends the next wait at once", () =>
    Effect.gen(function* () {
      const signal = new Signal()
      signal.notify()
      const started = Date.now()
      yield* signal.wait(5_000)
      expect(Date.now() - started).toBeLessThan(1_000)
      // consumed: the following wait runs to its timeout
      const again = Date.now()
      yield* signal.wait(50)
      expect(Date.now() - again).toBeGreaterThanOrEqual(45)
    })
  )

  it.live("a notify ends a wait in progress; without one it ends at its timeout", () =>
    Effect.gen(function* () {
      const signal = new Signal()
      const started = Date.now()
      const waiting = yield* Effect.fork(signal.wait(5_000))
      yield* Effect.sleep("20 millis")
      signal.notify()
      yield* Fiber.join(waiting)
      expect(Date.now() - started).toBeLessThan(1_000)
    })
  )

  it.live("onNext: a pending notify calls back at once; cancelling a wait means no call", () =>
    Effect.gen(function* () {
      const signal = new Signal()
      let calls = 0
      signal.notify()
      signal.onNext(5_000, () => calls++)
      expect(calls).toBe(1)
      const cancel = signal.onNext(20, () => calls++)
      cancel()
      signal.notify() // nobody waits any more: kept for the next wait
      yield* Effect.sleep("50 millis")
      expect(calls).toBe(1)
      signal.onNext(5_000, () => calls++)
      expect(calls).toBe(2)
      // a wait in progress ends at its timeout without a notify
      const started = Date.now()
      yield* Effect.async<void>((resume) => {
        signal.onNext(30, () => resume(Effect.void))
      })
      expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    })
  )
})
