import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { FeedFiles } from "../src/index.js"

const spools = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("switchboard-spool-")))

describe("FeedFiles spool", () => {
  it.effect("reads back every value appended, in order, across many writes; the file is gone when the scope closes", () =>
    Effect.gen(function* () {
      const reader = FeedFiles.make({ allowPrivateUrls: false })
      const before = spools()
      const values = Array.from({ length: 20_000 }, (_, i) => ({ retailer_id: `R-${i}`, name: `Name "${i}",\nwith a line break`, price: i }))
      const [read, file] = yield* Effect.scoped(
        Effect.gen(function* () {
          const spool = yield* reader.spool<(typeof values)[number]>()
          for (const value of values) yield* spool.append(value)
          const created = [...spools()].filter((name) => !before.has(name))
          expect(created).toHaveLength(1)
          const read = Chunk.toReadonlyArray(yield* Stream.runCollect(spool.read))
          return [read, `${tmpdir()}/${created[0]}`] as const
        })
      )
      expect(read).toEqual(values)
      expect(existsSync(file)).toBe(false)
    })
  )

  it.effect("an empty spool reads nothing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const spool = yield* FeedFiles.make({ allowPrivateUrls: false }).spool<number>()
        expect(Chunk.size(yield* Stream.runCollect(spool.read))).toBe(0)
      })
    )
  )
})
