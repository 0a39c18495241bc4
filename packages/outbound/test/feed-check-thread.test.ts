/**
 * A large feed file is read and checked on a thread of its own (`FeedFiles` `checkedRows`,
 * `FeedCheckWorker.ts`): the same outcomes, in the same order, as the rows read on the
 * caller's thread and checked there (`rows` through `FeedRows.checker`), over many groups
 * (more than the thread reads ahead), and the same failure with the same line for each kind
 * of malformed file; a file below the size goes the caller's way (no thread).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { type FeedReader, FeedRows } from "@switchboard/domain"
import { Effect, Either, Stream } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FeedFiles } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "sb-feed-thread-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const file = (text: string) => {
  const path = join(dir, `f${n++}.csv`)
  writeFileSync(path, text)
  return path
}

/** Everything a stream of groups gave before it ended: the items, flattened, and its failure if any. */
const drain = <A>(stream: Stream.Stream<ReadonlyArray<A>, FeedReader.FeedFileError>) =>
  Effect.gen(function* () {
    const items: Array<A> = []
    const end = yield* Effect.either(Stream.runForEach(stream, (group) => Effect.sync(() => items.push(...group))))
    return { items, failure: Either.isLeft(end) ? { message: end.left.message, line: end.left.line } : undefined }
  })

const threaded = FeedFiles.make({ allowPrivateUrls: false, threadFromBytes: 0 })

/** Both ways through the same file: on the caller's thread and on its own. */
const bothWays = (path: string, delimiter: string, currency: string | null) =>
  Effect.gen(function* () {
    const here = yield* drain(Stream.map(threaded.rows(path, delimiter), FeedRows.checker(currency)))
    const stream = threaded.checkedRows?.(path, delimiter, currency)
    expect(stream).toBeDefined()
    const there = yield* drain(stream!)
    return { here, there }
  })

const HEADER = "retailer_id,name,description,price,sale_price,currency,availability,image_url,inventory"
/** A row of every kind the checker tells apart, by `i`. */
const row = (i: number) => {
  switch (i % 9) {
    case 0:
      return `R${i},"Quoted, with a comma",,${100 + i},,USD,in stock,https://x.example.com/${i}.png,${i % 5}`
    case 1:
      return `R${i},"Two\nlines ""quoted""",d,${100 + i},50,,out of stock,https://x.example.com/${i}.png,`
    case 2:
      return `R${i},Bad price,,12.5,,USD,in stock,https://x.example.com/${i}.png,1`
    case 3:
      return `R${i},No image,,100,,USD,in stock,,1`
    case 4:
      return `R${i},Amount,,19.99 EUR,,,in stock,https://x.example.com/${i}.png,7`
    case 5:
      return `,No id,,100,,USD,in stock,https://x.example.com/${i}.png,1`
    case 6:
      return `R${i},Sale too high,,100,200,USD,maybe,not-a-url,-1`
    case 7:
      return `R${i % 50},Repeated id,,100,,USD,in stock,https://x.example.com/${i}.png,2`
    default:
      return ""
  }
}

describe("feed files checked on a thread of their own", () => {
  it.live("a file of many groups: the same outcomes, in order, with their lines, as checked on the caller's thread", () =>
    Effect.gen(function* () {
      const lines = [HEADER, ...Array.from({ length: 12_000 }, (_, i) => row(i))]
      const path = file(`\uFEFF${lines.join("\n")}\n`)
      const { here, there } = yield* bothWays(path, ",", "USD")
      expect(here.failure).toBeUndefined()
      expect(there.failure).toBeUndefined()
      expect(there.items).toEqual(here.items)
      // the file's every kind: the header, good rows, issues, a row over two lines (lines move on)
      expect(here.items[0]).toEqual({ line: 1, header: true, error: null })
      const data = here.items.filter((o) => !o.header)
      expect(data.length).toBe(lines.filter((l) => l !== "").length - 1)
      expect(data.filter((o) => !o.header && o.ok).length).toBeGreaterThan(3000)
      expect(data.filter((o) => !o.header && !o.ok).length).toBeGreaterThan(3000)
      expect(here.items.at(-1)!.line).toBeGreaterThan(12_000)
    })
  )

  it.live("the default currency and a TSV: the same outcomes", () =>
    Effect.gen(function* () {
      const tsv = [
        "id\ttitle\tprice\timage_link",
        ...Array.from({ length: 3000 }, (_, i) => `T${i}\tItem ${i}\t${i % 4 === 0 ? "x" : 100 + i}\thttps://x.example.com/${i}.png`)
      ]
      const { here, there } = yield* bothWays(file(`${tsv.join("\n")}\n`), "\t", "EUR")
      expect(there).toEqual(here)
      expect(here.items.length).toBe(3001)
    })
  )

  for (const [kind, text, line, message] of [
    [
      "an unclosed quote",
      `${HEADER}\n${row(0)}\n${row(9)}\nR1,"Broken,1,,100,,USD,in stock,https://x.example.com/1.png,1\n`,
      4,
      "a quoted cell is never closed"
    ],
    [
      "a row with more cells than the header, far into the file",
      `${HEADER}\n${Array.from({ length: 5000 }, (_, i) => row(i)).join("\n")}\nR-last,ragged,1,2,3,4,5,6,7,8\n`,
      undefined,
      "different number of cells"
    ],
    [
      "a quote inside an unquoted cell",
      `${HEADER}\nR1,Bro"ken,,100,,USD,in stock,https://x.example.com/1.png,1\n`,
      2,
      "a quote appears inside an unquoted cell"
    ]
  ] as const)
    it.live(`${kind}: the same failure at the same line, after the same rows`, () =>
      Effect.gen(function* () {
        const { here, there } = yield* bothWays(file(text), ",", null)
        expect(here.failure).toBeDefined()
        expect(here.failure!.message).toContain(message)
        if (line !== undefined) expect(here.failure!.line).toBe(line)
        expect(there.failure).toEqual(here.failure)
        // the rows before the failure, group for group (the thread stops where the reader does)
        expect(there.items).toEqual(here.items)
      })
    )

  it.live("a header without a retailer id: the same refusal, and nothing checked after it", () =>
    Effect.gen(function* () {
      const { here, there } = yield* bothWays(file(`name;price\nA;1\nB;2\n`), ",", null)
      expect(here.items).toEqual([{ line: 1, header: true, error: "the header has no retailer_id (or id) column" }])
      expect(there).toEqual(here)
    })
  )

  it.live("a file below the size, or a reader told never to, reads on the caller's thread", () =>
    Effect.gen(function* () {
      const path = file(`${HEADER}\n${row(0)}\n`)
      expect(FeedFiles.make({ allowPrivateUrls: false }).checkedRows?.(path, ",", null)).toBeUndefined()
      expect(FeedFiles.make({ allowPrivateUrls: false, threadFromBytes: Number.POSITIVE_INFINITY }).checkedRows).toBeUndefined()
      const taken = yield* drain(threaded.checkedRows!(path, ",", null)!)
      expect(taken.items.map((o) => o.line)).toEqual([1, 2])
    })
  )
})
