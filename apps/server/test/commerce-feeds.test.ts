/**
 * Feeds and uploads end to end (issue 12 item 5), on SQLite and PostgreSQL over real HTTP:
 * a CSV sent as multipart upserts products by retailer_id with exact counts and errors by
 * row; a TSV through AUTODETECT; the operator's column names and `19.99 USD` prices; a
 * malformed file and a wrong delimiter are 400s naming `file` with nothing written; with
 * `deletion_enabled` a full upload deletes what it lacks; a URL upload is fetched by the
 * worker (202, then finished); `feed_upload.completed` carries the counts; another store's
 * feed and upload ids answer 404.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, startReceiver, startServer, type CreatedStore, type Harness } from "./harness.js"

const csv = (rows: ReadonlyArray<ReadonlyArray<string>>) => `${rows.map((r) => r.join(",")).join("\n")}\n`
/** A CSV of one product `rid` in the native columns. */
const oneProduct = (rid: string) =>
  csv([
    ["retailer_id", "name", "price", "currency", "image_url"],
    [rid, "A", "1", "USD", "https://x.example.com/a.png"]
  ])

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`feeds and uploads end to end (${dialect.name}, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let b: CreatedStore
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let files: ReturnType<typeof createServer>
    let filesUrl = ""
    const served = new Map<string, string>()

    beforeAll(async () => {
      h = await startServer(
        { SWITCHBOARD_ALLOW_PRIVATE_URLS: "true", SWITCHBOARD_CATALOG_BATCH_CALLS: "200", SWITCHBOARD_EMULATOR_CATALOG_BATCH_CALLS: "200" },
        { dialect }
      )
      a = h.createStore("Shop A")
      b = h.createStore("Shop B")
      receiver = await startReceiver()
      expect((await h.request("POST", "/chat/webhooks", a.live_key, { url: receiver.url, events: ["feed_upload.completed"] })).status).toBe(201)
      files = createServer((req, res) => {
        const body = served.get(req.url ?? "")
        res.writeHead(body === undefined ? 404 : 200, { "content-type": "text/csv" })
        res.end(body ?? "")
      })
      await new Promise<void>((r) => files.listen(0, "127.0.0.1", () => r()))
      const address = files.address()
      filesUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`
    })
    afterAll(async () => {
      files?.close()
      await h?.stop()
    })

    const catalogAndFeed = async (feed: Record<string, unknown> = {}) => {
      const cat = (await h.request("POST", "/chat/catalogs", a.live_key, { name: "Feeds" })).json.id
      const created = await h.request("POST", `/chat/catalogs/${cat}/feeds`, a.live_key, { name: "Nightly", ...feed })
      expect(created.status, created.text).toBe(201)
      return { cat, feed: created.json }
    }
    const upload = async (key: string, feedId: string, text: string, name = "products.csv") => {
      const form = new FormData()
      form.append("file", new Blob([text], { type: "text/csv" }), name)
      const res = await fetch(`${h.base}/chat/feeds/${feedId}/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
      const body = await res.text()
      return { status: res.status, text: body, json: body ? JSON.parse(body) : undefined }
    }
    const count = async (cat: string) => (await h.request("GET", `/chat/catalogs/${cat}/diagnostics`, a.live_key)).json.products as number

    it("a CSV upserts products with exact counts and errors by row; the operator gets the changes", async () => {
      const { cat, feed } = await catalogAndFeed({ default_currency: "USD" })
      expect(feed).toMatchObject({ id: expect.stringMatching(/^fed_/), delimiter: "AUTODETECT", default_currency: "USD", deletion_enabled: false })
      const text = csv([
        ["id", "title", "price", "image_link", "link", "availability"],
        ["F1", "Linen shirt", "19.99 USD", "https://img.example.com/f1.jpg", "https://shop.example.com/f1", "in stock"],
        ["F2", "Wool hat", "2500", "https://img.example.com/f2.jpg", "", "out of stock"],
        ["F3", '"Scarf, striped"', "9.5 USD", "https://img.example.com/f3.jpg", "", ""],
        ["F4", "Bad price", "12.345 USD", "https://img.example.com/f4.jpg", "", ""],
        ["F5", "", "100", "https://img.example.com/f5.jpg", "", ""],
        ["F1", "Again", "100", "https://img.example.com/f1b.jpg", "", ""],
        ["F6", "Counterfeit watch", "100", "https://img.example.com/f6.jpg", "", ""]
      ])
      const res = await upload(a.live_key, feed.id, text)
      expect(res.status, res.text).toBe(201)
      expect(res.json).toMatchObject({
        id: expect.stringMatching(/^fup_/),
        status: "finished",
        input_method: "file",
        filename: "products.csv",
        num_detected_items: 7,
        num_persisted_items: 4,
        num_invalid_items: 3,
        num_deleted_items: 0
      })
      const read = await h.request("GET", `/chat/feeds/${feed.id}/uploads/${res.json.id}`, a.live_key)
      expect(read.json).toEqual(res.json)
      const errors = await h.request("GET", `/chat/feeds/${feed.id}/uploads/${res.json.id}/errors`, a.live_key)
      expect(errors.json.data.map((e: any) => [e.row_number, e.retailer_id, e.field])).toEqual([
        [5, "F4", "price"],
        [6, "F5", "name"],
        [7, "F1", "retailer_id"]
      ])
      const f1 = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=F1`, a.live_key)).json.data[0]
      expect(f1).toMatchObject({ name: "Linen shirt", price: 1999, currency: "USD", url: "https://shop.example.com/f1" })
      const f3 = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=F3`, a.live_key)).json.data[0]
      expect(f3).toMatchObject({ name: "Scarf, striped", price: 950 })
      // the feed's batch carries the products as written to the operator: verdicts come back,
      // F6 refused for its name (which the operator saw) and F1 approved
      await eventually(
        async () => {
          const f6 = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=F6`, a.live_key)).json.data[0]
          return f6?.review_status === "rejected"
        },
        "the operator's verdict on F6",
        15_000
      )
      const f6 = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=F6`, a.live_key)).json.data[0]
      expect(f6.errors.map((e: any) => e.code)).toEqual(["policy_violation"])
      const approved = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=F1`, a.live_key)).json.data[0]
      expect(approved).toMatchObject({ review_status: "approved", errors: [] })
      await eventually(
        async () => receiver.received.some((r) => JSON.parse(r.body).data?.id === res.json.id && JSON.parse(r.body).data.num_invalid_items === 3),
        "feed_upload.completed",
        10_000
      )
      // the same file again changes nothing: no product is sent twice
      const again = await upload(a.live_key, feed.id, text)
      expect(again.json).toMatchObject({ num_persisted_items: 4, num_invalid_items: 3 })
      const batch = await h.request("GET", `/chat/catalogs/${cat}/products/batch/${again.json.batch_handle}`, a.live_key)
      expect(batch.json).toMatchObject({ source: "feed", total: 0, status: "finished" })
    }, 60_000)

    it("a TSV reads through AUTODETECT; deletion_enabled deletes what a full upload lacks", async () => {
      const { cat, feed } = await catalogAndFeed({ deletion_enabled: true })
      const tsv = (ids: ReadonlyArray<string>) =>
        `retailer_id\tname\tprice\tcurrency\timage_url\n${ids.map((id) => `${id}\tItem ${id}\t500\tEUR\thttps://img.example.com/${id}.png`).join("\n")}\n`
      const first = await upload(a.live_key, feed.id, tsv(["T1", "T2", "T3"]), "items.tsv")
      expect(first.json).toMatchObject({ num_detected_items: 3, num_persisted_items: 3, num_deleted_items: 0 })
      expect(await count(cat)).toBe(3)
      const second = await upload(a.live_key, feed.id, tsv(["T1", "T3"]), "items.tsv")
      expect(second.json).toMatchObject({ num_detected_items: 2, num_persisted_items: 2, num_deleted_items: 1 })
      expect(await count(cat)).toBe(2)
      expect((await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=T2`, a.live_key)).json.data).toEqual([])
      // the first upload's verdicts come back after T2 was deleted here: they must not bring it back
      for (const sent of [first, second])
        await eventually(
          async () =>
            (await h.request("GET", `/chat/catalogs/${cat}/products/batch/${sent.json.batch_handle}`, a.live_key)).json.status === "finished",
          "the upload's batch finished",
          15_000
        )
      expect(await count(cat)).toBe(2)
      expect((await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=T2`, a.live_key)).json.data).toEqual([])
    })

    it("a malformed file and a wrong delimiter are 400s naming file and the line; nothing is written", async () => {
      const { cat, feed } = await catalogAndFeed({ delimiter: "SEMICOLON" })
      const wrong = await upload(a.live_key, feed.id, oneProduct("W1"))
      expect(wrong.status).toBe(400)
      expect(wrong.json.error.details[0].path).toBe("file")
      expect(wrong.json.error.message).toMatch(/line 1: .*delimiter SEMICOLON/)
      const { feed: comma } = await catalogAndFeed({ delimiter: "COMMA" })
      const unclosed = await upload(
        a.live_key,
        comma.id,
        `retailer_id,name,price,currency,image_url\nM1,Fine,100,USD,https://x.example.com/1.png\nM2,"Broken,100,USD,https://x.example.com/2.png\n`
      )
      expect(unclosed.status).toBe(400)
      expect(unclosed.json.error.message).toMatch(/^file: line \d+: a quoted cell is never closed/)
      const ragged = await upload(
        a.live_key,
        comma.id,
        `retailer_id,name,price,currency,image_url\nR1,Fine,100,USD,https://x.example.com/1.png,extra\n`
      )
      expect(ragged.status).toBe(400)
      expect(ragged.json.error.message).toMatch(/line 2/)
      expect(await count(cat)).toBe(0)
      // a multipart content type without a boundary (found by the fuzz: the parser threw outside any handler)
      const noBoundary = await h.request("POST", `/chat/feeds/${comma.id}/uploads`, a.live_key, undefined, { "content-type": "multipart/form-data" })
      expect([noBoundary.status, noBoundary.json.error.code]).toEqual([400, "validation_failed"])
      const uploads = await h.request("GET", `/chat/feeds/${comma.id}/uploads`, a.live_key)
      expect(uploads.json.data.map((u: any) => u.status)).toEqual(["failed", "failed"])
      const badFeed = await h.request("POST", `/chat/catalogs/${cat}/feeds`, a.live_key, { name: "X", delimiter: "PIPE", default_currency: "EURO" })
      expect(badFeed.status).toBe(400)
    })

    it("a file staged in several blocks: a bad line near its end writes nothing; whole, then changed, it creates, then updates in place; nothing stays staged", async () => {
      const { cat, feed } = await catalogAndFeed({ delimiter: "COMMA" })
      // more than two groups of 5,000: on PostgreSQL the first groups reach the catalog (in the
      // upload's transaction) before the bad line is read
      const N = 12_500
      const header = ["retailer_id", "name", "price", "currency", "image_url", "inventory"]
      const rows = (name: (i: number) => string) =>
        Array.from({ length: N }, (_, i) => [`B${i}`, name(i), String(100 + i), "USD", `https://x.example.com/${i}.png`, String(i % 7)])
      const staged = async () => Number((await h.query<{ n: number | string }>("select count(*) as n from product_staging"))[0].n)
      // thousands of rows are staged before the ragged last line: none of them reaches the catalog
      const broken = await upload(a.live_key, feed.id, `${csv([header, ...rows((i) => `Item ${i}`)])}B-last,ragged\n`)
      expect(broken.status, broken.text).toBe(400)
      expect(broken.json.error.message).toMatch(new RegExp(`line ${N + 2}`))
      expect(await count(cat)).toBe(0)
      expect(await staged()).toBe(0)
      const batches = async () =>
        Number((await h.query<{ n: number | string }>(`select count(*) as n from product_batches where catalog_id = '${cat}'`))[0].n)
      expect(await batches()).toBe(0)
      const whole = await upload(a.live_key, feed.id, csv([header, ...rows((i) => `Item ${i}`)]))
      expect(whole.status, whole.text).toBe(201)
      expect([whole.json.num_detected_items, whole.json.num_persisted_items, whole.json.num_invalid_items]).toEqual([N, N, 0])
      expect(await count(cat)).toBe(N)
      expect(await batches()).toBe(1)
      const first = await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=B4321`, a.live_key)
      expect([first.json.data[0].name, first.json.data[0].inventory, first.json.data[0].price]).toEqual(["Item 4321", 4321 % 7, 4421])
      // a third renamed: those are updated, and every product keeps its id
      const changed = await upload(a.live_key, feed.id, csv([header, ...rows((i) => (i % 3 === 0 ? `Renamed ${i}` : `Item ${i}`))]))
      expect(changed.status, changed.text).toBe(201)
      expect(await count(cat)).toBe(N)
      const after = await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=B4320`, a.live_key)
      expect([after.json.data[0].name]).toEqual(["Renamed 4320"])
      const again = await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=B4321`, a.live_key)
      expect([again.json.data[0].id, again.json.data[0].name]).toEqual([first.json.data[0].id, "Item 4321"])
      expect(await staged()).toBe(0)
    })

    it("a file over 1 MiB (read and checked on a thread of its own): exact counts, errors by line, the same products; a bad line near its end writes nothing", async () => {
      const { cat, feed } = await catalogAndFeed({ delimiter: "COMMA" })
      const N = 20_000
      const header = ["retailer_id", "name", "description", "price", "currency", "image_url"]
      const long = "a description long enough to make the file larger than the size read on a thread of its own"
      // every 1,000th row lacks its name; row 500 spans two lines (its quoted name); the last repeats B7
      const lines = [
        header.join(","),
        ...Array.from({ length: N }, (_, i) =>
          [
            `T${i}`,
            i % 1000 === 999 ? "" : i === 500 ? '"Two\nlines"' : `Item ${i}`,
            long,
            String(100 + i),
            "USD",
            `https://x.example.com/${i}.png`
          ].join(",")
        )
      ]
      const text = `${[...lines, `T7,Again,${long},1,USD,https://x.example.com/again.png`].join("\n")}\n`
      expect(text.length).toBeGreaterThan(1024 * 1024)
      const broken = await upload(a.live_key, feed.id, `${lines.join("\n")}\nT-last,ragged\n`)
      expect(broken.status, broken.text).toBe(400)
      // the header, N rows, one of them over two lines: the ragged one is line N + 3
      expect(broken.json.error.message).toMatch(new RegExp(`^file: line ${N + 3}: this row has a different number of cells`))
      expect(await count(cat)).toBe(0)
      const res = await upload(a.live_key, feed.id, text)
      expect(res.status, res.text).toBe(201)
      expect([res.json.num_detected_items, res.json.num_persisted_items, res.json.num_invalid_items]).toEqual([N + 1, N - N / 1000, N / 1000 + 1])
      const errors = await h.request("GET", `/chat/feeds/${feed.id}/uploads/${res.json.id}/errors?limit=100`, a.live_key)
      // row i is on line i + 2 up to row 500, i + 3 after it (row 500's second line)
      expect(errors.json.data.map((e: any) => [e.row_number, e.retailer_id, e.field])).toEqual([
        ...Array.from({ length: N / 1000 }, (_, k) => [1000 * (k + 1) + 2, `T${1000 * (k + 1) - 1}`, "name"]),
        [N + 3, "T7", "retailer_id"]
      ])
      expect(errors.json.data.at(-1).message).toBe("repeats line 9")
      expect(await count(cat)).toBe(N - N / 1000)
      const two = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=T500`, a.live_key)).json.data[0]
      const last = (await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=T${N - 2}`, a.live_key)).json.data[0]
      expect([two.name, last.name, last.price, last.description]).toEqual(["Two\nlines", `Item ${N - 2}`, 100 + N - 2, long])
    }, 120_000)

    it("a URL upload is fetched by the worker: 202, then finished; a URL that fails ends failed", async () => {
      const { cat, feed } = await catalogAndFeed()
      served.set(
        "/feed.csv",
        csv([
          ["id", "title", "price", "image_link"],
          ["U1", "Mug", "12.00 GBP", "https://img.example.com/u1.png"]
        ])
      )
      const accepted = await h.request("POST", `/chat/feeds/${feed.id}/uploads`, a.live_key, { url: `${filesUrl}/feed.csv` })
      expect(accepted.status, accepted.text).toBe(202)
      expect(accepted.json).toMatchObject({ status: "processing", input_method: "url" })
      /** The upload `id` once it is no longer processing. */
      const ended = (id: string, what: string) =>
        eventually(
          async () => {
            const got = await h.request("GET", `/chat/feeds/${feed.id}/uploads/${id}`, a.live_key)
            return got.json.status !== "processing" ? got.json : undefined
          },
          what,
          15_000
        )
      const done = await ended(accepted.json.id, "the URL upload finished")
      expect(done).toMatchObject({ status: "finished", num_detected_items: 1, num_persisted_items: 1 })
      expect((await h.request("GET", `/chat/catalogs/${cat}/products?retailer_id=U1`, a.live_key)).json.data[0]).toMatchObject({
        price: 1200,
        currency: "GBP"
      })
      const missing = await h.request("POST", `/chat/feeds/${feed.id}/uploads`, a.live_key, { url: `${filesUrl}/nothing.csv` })
      const failed = await ended(missing.json.id, "the failing URL upload ended")
      expect(failed).toMatchObject({ status: "failed", error: expect.stringMatching(/404/) })
      expect((await h.request("POST", `/chat/feeds/${feed.id}/uploads`, a.live_key, { url: "ftp://example.com/x.csv" })).status).toBe(400)
    }, 60_000)

    it("feeds can be read, changed and deleted; another store's feed and upload ids answer 404 on every route", async () => {
      const { cat, feed } = await catalogAndFeed()
      const sent = await upload(a.live_key, feed.id, oneProduct("P1"))
      const patched = await h.request("PATCH", `/chat/feeds/${feed.id}`, a.live_key, {
        schedule: { interval: "DAILY", url: `${filesUrl}/feed.csv`, hour: 4 }
      })
      expect(patched.json.schedule).toEqual({ interval: "DAILY", url: `${filesUrl}/feed.csv`, hour: 4, day_of_week: 0 })
      const listed = await h.request("GET", `/chat/catalogs/${cat}/feeds`, a.live_key)
      expect(listed.json.data.map((f: any) => f.id)).toEqual([feed.id])
      const routes: Array<[string, string, unknown?]> = [
        ["GET", `/chat/catalogs/${cat}/feeds`],
        ["POST", `/chat/catalogs/${cat}/feeds`, { name: "Mine" }],
        ["GET", `/chat/feeds/${feed.id}`],
        ["PATCH", `/chat/feeds/${feed.id}`, { name: "Mine" }],
        ["GET", `/chat/feeds/${feed.id}/uploads`],
        ["POST", `/chat/feeds/${feed.id}/uploads`, { url: `${filesUrl}/feed.csv` }],
        ["GET", `/chat/feeds/${feed.id}/uploads/${sent.json.id}`],
        ["GET", `/chat/feeds/${feed.id}/uploads/${sent.json.id}/errors`],
        ["DELETE", `/chat/feeds/${feed.id}`]
      ]
      for (const key of [b.live_key, a.test_key])
        for (const [method, path, body] of routes) {
          const res = await h.request(method, path, key, body)
          expect([method, path, res.status, res.json?.error?.code]).toEqual([method, path, 404, "resource_not_found"])
        }
      const stranger = await upload(b.live_key, feed.id, "retailer_id\nX\n")
      expect(stranger.status).toBe(404)
      expect((await h.request("DELETE", `/chat/feeds/${feed.id}`, a.live_key)).json).toEqual({ id: feed.id, deleted: true })
      expect((await h.request("GET", `/chat/feeds/${feed.id}/uploads/${sent.json.id}`, a.live_key)).status).toBe(404)
      expect(await count(cat)).toBe(1)
    })
  })
