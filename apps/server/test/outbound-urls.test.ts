/**
 * The URLs a caller gives us to call (issue "Hardening III", defect 5), on SQLite and
 * PostgreSQL over real HTTP, without SWITCHBOARD_ALLOW_PRIVATE_URLS: a feed's upload URL and
 * schedule URL follow the flow data endpoint's rule, with the same answer. Every address of
 * the corpus (loopback, private, link-local and metadata, in decimal, hex, octal and short
 * IPv4 forms, IPv4-mapped and other IPv6 spellings, metadata host names, `localhost` and
 * `*.localhost`) is a 400 `validation_failed` naming `url` or `schedule.url`, and nothing is
 * written; a public address is taken. (Names that a resolver answers with a private address
 * are covered with an injected resolver in packages/outbound/test.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { startServer, type CreatedStore, type Harness } from "./harness.js"

/** Each refused, whatever the port and path. */
const CORPUS = [
  "http://127.0.0.1:8080/",
  "https://127.0.0.1/feed.csv",
  "http://127.1/",
  "http://127.0.0.2/",
  "http://0x7f000001/",
  "http://2130706433/",
  "http://017700000001/",
  "http://0177.0.0.1/",
  "http://0/",
  "http://0.0.0.0/",
  "http://[::1]/",
  "http://[::]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:7f00:1]/",
  "http://[0:0:0:0:0:ffff:127.0.0.1]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::ffff:a9fe:a9fe]/",
  "http://[64:ff9b::a00:1]/",
  "http://[2002:7f00:1::]/",
  "http://10.0.0.1/",
  "http://10.255.255.254/",
  "http://172.16.0.1/",
  "http://172.31.255.1/",
  "http://192.168.1.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://169.254.169.254./latest/meta-data/",
  "http://0xa9fea9fe/",
  "http://2852039166/",
  "http://100.64.0.1/",
  "http://198.18.0.1/",
  "http://224.0.0.1/",
  "http://255.255.255.255/",
  "http://[fe80::1]/",
  "http://[fc00::1]/",
  "http://[fd12:3456::1]/",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://metadata.google.internal./",
  "http://metadata/",
  "http://metadata.azure.internal/",
  "http://instance-data/latest/",
  "http://localhost/",
  "http://LOCALHOST:3000/",
  "http://feeds.localhost/",
  "http://internal.shop.localhost:8080/feed.csv",
  // not http(s) at all
  "ftp://example.com/feed.csv",
  "file:///etc/passwd",
  "not a url"
] as const

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`the URLs we call: feeds as flow endpoints (${dialect.name}, real HTTP)`, () => {
    let h: Harness
    let a: CreatedStore
    let catalog: string
    let feed: string
    let flow: string

    beforeAll(async () => {
      h = await startServer({}, { dialect })
      a = h.createStore("Shop A")
      catalog = (await h.request("POST", "/chat/catalogs", a.test_key, { name: "Spring" })).json.id
      feed = (await h.request("POST", `/chat/catalogs/${catalog}/feeds`, a.test_key, { name: "Nightly" })).json.id
      flow = (await h.request("POST", "/chat/flows", a.test_key, { name: "Booking", categories: ["APPOINTMENT_BOOKING"] })).json.id
    })
    afterAll(() => h?.stop())

    const refusedAt = (res: { status: number; json: any; text: string }, field: string, what: string) => {
      expect(res.status, `${what}: ${res.text}`).toBe(400)
      expect(res.json.error.code).toBe("validation_failed")
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual([field])
      return res.json.error.details[0].message as string
    }

    it("every address of the corpus is refused for an upload, a new schedule and a changed schedule, as for a flow endpoint; nothing is written", async () => {
      for (const url of CORPUS) {
        const endpoint = refusedAt(await h.request("PUT", `/chat/flows/${flow}/endpoint`, a.test_key, { url }), "url", `flow endpoint ${url}`)
        const upload = refusedAt(await h.request("POST", `/chat/feeds/${feed}/uploads`, a.test_key, { url }), "url", `upload ${url}`)
        const schedule = { interval: "DAILY", url }
        const created = refusedAt(
          await h.request("POST", `/chat/catalogs/${catalog}/feeds`, a.test_key, { name: "Scheduled", schedule }),
          "schedule.url",
          `new schedule ${url}`
        )
        const changed = refusedAt(await h.request("PATCH", `/chat/feeds/${feed}`, a.test_key, { schedule }), "schedule.url", `schedule ${url}`)
        // one rule, one answer
        expect([upload, created, changed], url).toEqual([endpoint, endpoint, endpoint])
        // the caller learns only that the address is not allowed, never what it is
        if (url.startsWith("http")) expect(endpoint, url).toMatch(/^address is not allowed/)
      }
      expect((await h.request("GET", `/chat/feeds/${feed}/uploads`, a.test_key)).json.data).toEqual([])
      const feeds = (await h.request("GET", `/chat/catalogs/${catalog}/feeds`, a.test_key)).json.data
      expect(feeds.map((f: { id: string; schedule: unknown }) => [f.id, f.schedule])).toEqual([[feed, null]])
      expect((await h.request("GET", `/chat/flows/${flow}`, a.test_key)).json.endpoint_url).toBeNull()
    })

    it("a public address is taken: a schedule is stored (its first run is days away: nothing leaves this machine)", async () => {
      const url = "https://93.184.216.34/feeds/products.csv"
      const day = (new Date().getUTCDay() + 3) % 7
      const scheduled = await h.request("POST", `/chat/catalogs/${catalog}/feeds`, a.test_key, {
        name: "Weekly",
        schedule: { interval: "WEEKLY", url, day_of_week: day }
      })
      expect(scheduled.status, scheduled.text).toBe(201)
      expect(scheduled.json.schedule).toMatchObject({ interval: "WEEKLY", url, day_of_week: day })
    })
  })
