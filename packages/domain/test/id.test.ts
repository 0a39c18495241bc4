import { it } from "@effect/vitest"
import { Effect, Either, Option, Schema, TestClock } from "effect"
import { expect } from "vitest"
import { Errors, Id } from "../src/index.js"

const Widget = Id.kind("wdg", "WidgetId")

it.effect("ids generated at one instant (TestClock at 0) are distinct, ordered and shaped", () =>
  Effect.gen(function* () {
    const ids = yield* Effect.all(Array.from({ length: 50 }, () => Widget.generate))
    expect(new Set(ids).size).toBe(50)
    expect([...ids].sort()).toEqual(ids)
    expect(ids.every(Widget.is)).toBe(true)
  })
)

it.effect("ids sort by the Clock's time", () =>
  Effect.gen(function* () {
    yield* TestClock.adjust("1 hour")
    const a = yield* Widget.generate
    yield* TestClock.adjust("1 millis")
    const b = yield* Widget.generate
    expect(a < b).toBe(true)
  })
)

it.effect("a malformed id is not found without asking storage", () =>
  Effect.gen(function* () {
    let queried = 0
    const find = (_: string) =>
      Effect.sync(() => {
        queried++
        return Option.none()
      })
    const malformed = yield* Effect.either(Id.lookup(Widget, "widget", "wdg_nope", find))
    const otherKind = yield* Effect.either(Id.lookup(Widget, "widget", Id.unsafeMake("cmp", 1), find))
    expect(queried).toBe(0)
    const shaped = yield* Effect.either(Id.lookup(Widget, "widget", Id.unsafeMake("wdg", 1), find))
    expect(queried).toBe(1)
    for (const result of [malformed, otherKind, shaped]) {
      expect(Either.isLeft(result) && result.left).toBeInstanceOf(Errors.ResourceNotFound)
    }
  })
)

it("the schema refuses another kind's id", () => {
  expect(Either.isLeft(Schema.decodeEither(Widget.schema)("cmp_01JD0000000000000000000000"))).toBe(true)
})

it("ids made at distinct instants draw fresh randomness each, across refills of the random pool", () => {
  // 1,000 instants: the 16 random characters are drawn anew for each (4 pool refills)
  const start = Date.UTC(2030, 0, 1)
  const randoms = Array.from({ length: 1000 }, (_, i) => Id.unsafeMake("wdg", start + i).slice(-16))
  expect(new Set(randoms).size).toBe(1000)
  expect(randoms.every((r) => /^[0-9A-HJKMNP-TV-Z]{16}$/.test(r))).toBe(true)
})
