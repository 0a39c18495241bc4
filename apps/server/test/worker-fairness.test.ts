/**
 * The worker never stalls (issue "Hardening III", defect 4): loaded with 5,000 product
 * batches waiting on the operator's `items_batch` quota and 500 caller webhook deliveries to
 * a black hole (a loopback TCP server that accepts and never answers), the worker still
 * applies a new store's sandbox order within 5 s; and `/readyz` answers 503 with the age
 * of the oldest runnable job once it passes `SWITCHBOARD_READY_MAX_JOB_AGE`, 200 otherwise.
 * SQLite and PostgreSQL, over real HTTP against the emulator.
 */
import { createServer, type Server, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DIALECTS } from "@switchboard/testing"
import { eventually, sqlOn, startServer, type CreatedStore, type Harness } from "./harness.js"

const BATCHES = 5000
const DELIVERIES = 500
const HOSTILE_STORES = 5
const ENDPOINTS = 50

const product = (rid: string, price = 1000) => ({
  retailer_id: rid,
  name: `Shirt ${rid}`,
  price,
  currency: "USD",
  image_url: `https://img.example.com/${rid}.jpg`
})

/** A loopback TCP server that accepts connections and never answers. */
const blackHole = async (): Promise<{ url: string; close: () => Promise<void>; accepted: () => number }> => {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on("error", () => {})
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hook`,
    accepted: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}

/** Runs `task` over `items`, `width` at a time. */
const inParallel = async <A>(items: ReadonlyArray<A>, width: number, task: (item: A) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++])
    })
  )
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`a worker that never stalls (${dialect.name}, emulator, real HTTP)`, () => {
    let h: Harness
    let hole: Awaited<ReturnType<typeof blackHole>>

    beforeAll(async () => {
      hole = await blackHole()
      h = await startServer(
        {
          SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
          // one items_batch call per catalog an hour: every batch after the first waits on the quota
          SWITCHBOARD_CATALOG_BATCH_CALLS: "1",
          SWITCHBOARD_CATALOG_BATCH_WINDOW_MS: "3600000",
          // the load below makes the oldest runnable job older than this; readiness is tested apart
          SWITCHBOARD_READY_MAX_JOB_AGE: "3600"
        },
        { dialect }
      )
    }, 180_000)
    afterAll(async () => {
      await h?.stop()
      await hole?.close()
    })

    it(`a new store's sandbox order is applied within 5 s while ${BATCHES} quota-blocked batches and ${DELIVERIES} black-hole deliveries wait`, async () => {
      const hostile: Array<CreatedStore> = Array.from({ length: HOSTILE_STORES }, (_, i) => h.createStore(`Hostile ${i}`))
      // 500 deliveries: 50 endpoints on the black hole, 10 inbound messages of the first store
      const first = hostile[0]
      for (let i = 0; i < ENDPOINTS; i++) {
        const created = await h.request("POST", "/chat/webhooks", first.test_key, { url: `${hole.url}/${i}`, events: ["message.received"] })
        expect(created.status, created.text).toBe(201)
      }
      const catalogs: Array<{ key: string; id: string }> = []
      for (const store of hostile) {
        const created = await h.request("POST", "/chat/catalogs", store.test_key, { name: "Flood" })
        expect(created.status, created.text).toBe(201)
        catalogs.push({ key: store.test_key, id: created.json.id })
      }
      const submissions = Array.from({ length: BATCHES }, (_, i) => ({ ...catalogs[i % catalogs.length], i }))
      await inParallel(submissions, 32, async ({ key, id, i }) => {
        const res = await h.request("POST", `/chat/catalogs/${id}/products/batch`, key, {
          requests: [{ method: "CREATE", data: product(`FLOOD-${i}`) }]
        })
        expect(res.status, res.text).toBe(202)
      })
      for (let i = 0; i < DELIVERIES / ENDPOINTS; i++) {
        const inbound = await h.request("POST", "/chat/sandbox/inbound-messages", first.test_key, {
          from: `+1555200${String(i).padStart(4, "0")}`,
          text: "hi"
        })
        expect(inbound.status, inbound.text).toBe(202)
      }
      const [{ n: deliveries }] = await h.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'webhook.deliver'")
      await eventually(
        async () => {
          const [{ n }] = await h.query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'webhook.deliver'")
          return Number(n) >= DELIVERIES
        },
        `${DELIVERIES} deliveries queued (${deliveries} so far)`,
        30_000
      )
      await eventually(async () => hole.accepted() > 0, "the black hole holds connections", 30_000)
      const [{ n: batches }] = await h.query<{ n: number }>(
        "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'commerce.batch' AND status IN ('queued', 'running')"
      )
      expect(Number(batches)).toBeGreaterThan(BATCHES - 2 * HOSTILE_STORES)
      // a batch waiting on the quota holds no slot: put back, due when the quota's window reopens
      await eventually(
        async () => {
          const [{ n }] = await h.query<{ n: number }>(
            `SELECT COUNT(*) AS n FROM jobs WHERE kind = 'commerce.batch' AND (status = 'running' OR (status = 'queued' AND run_at < ${Date.now() + 600_000}))`
          )
          return Number(n) === 0
        },
        "every blocked batch put back until its quota reopens",
        60_000
      )

      // a new store: a catalog with one product, then a sandbox cart
      const fresh = h.createStore("Fresh shop")
      const catalog = await h.request("POST", "/chat/catalogs", fresh.test_key, { name: "Shirts" })
      expect(catalog.status, catalog.text).toBe(201)
      const added = await h.request("POST", `/chat/catalogs/${catalog.json.id}/products`, fresh.test_key, product("SKU-NEW", 4900))
      expect(added.status, added.text).toBe(201)
      const started = Date.now()
      const placed = await h.request("POST", "/chat/sandbox/orders", fresh.test_key, {
        phone: "+15553000001",
        catalog_id: catalog.json.id,
        items: [{ retailer_id: "SKU-NEW", quantity: 1 }]
      })
      expect(placed.status, placed.text).toBe(202)
      const order = await eventually(
        async () => {
          if (placed.json.order_id !== null) return placed.json.order_id as string
          const listed = await h.request("GET", "/chat/orders", fresh.test_key)
          return listed.json?.data?.[0]?.id as string | undefined
        },
        "the new store's order",
        15_000
      )
      const elapsed = Date.now() - started
      expect(order).toMatch(/^ord_/)
      expect(elapsed, `the order was applied after ${elapsed} ms`).toBeLessThan(5000)
    }, 600_000)
  })

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`/readyz and the job backlog (${dialect.name})`, () => {
    let h: Harness

    beforeAll(async () => {
      // no worker: a job queued waits until the test says otherwise
      h = await startServer({ SWITCHBOARD_WORKER: "false", SWITCHBOARD_READY_MAX_JOB_AGE: "1" }, { dialect })
    }, 180_000)
    afterAll(() => h?.stop())

    it("answers 200 with the oldest runnable job's age, and 503 with it once that passes SWITCHBOARD_READY_MAX_JOB_AGE", async () => {
      const idle = await h.request("GET", "/readyz")
      expect(idle.status).toBe(200)
      expect(idle.json).toEqual({ status: "ok", oldest_job_age_seconds: 0 })

      // an inbound message: the operator's webhook is stored and its job waits for a worker
      const store = h.createStore("Shop")
      const inbound = await h.request("POST", "/chat/sandbox/inbound-messages", store.test_key, { from: "+15554000001", text: "hi" })
      expect(inbound.status, inbound.text).toBe(202)
      await eventually(async () => (await h.query("SELECT id FROM jobs WHERE status = 'queued'")).length > 0, "a queued job")
      const behind = await eventually(async () => {
        const res = await h.request("GET", "/readyz")
        return res.status === 503 ? res : undefined
      }, "503 from /readyz")
      expect(behind.json).toEqual({
        status: "unavailable",
        reason: expect.stringMatching(/^the oldest runnable job has waited \d+ s, longer than 1 s: the workers are behind$/),
        oldest_job_age_seconds: expect.any(Number)
      })
      expect(behind.json.oldest_job_age_seconds).toBeGreaterThanOrEqual(1)

      // caught up (the jobs done): ready again
      await sqlOn(dialect, h.databaseUrl, "UPDATE jobs SET status = 'done' WHERE status IN ('queued', 'running')", true)
      const ready = await h.request("GET", "/readyz")
      expect(ready.status, ready.text).toBe(200)
      expect(ready.json).toEqual({ status: "ok", oldest_job_age_seconds: 0 })
      // a job not yet due does not count
      await sqlOn(
        dialect,
        h.databaseUrl,
        `INSERT INTO jobs (id, kind, payload, status, run_at, attempt, created_at, updated_at) VALUES ('job_later', 'webhook.deliver', '{}', 'queued', ${Date.now() + 3_600_000}, 0, ${Date.now()}, ${Date.now()})`,
        true
      )
      await new Promise((r) => setTimeout(r, 1500))
      expect((await h.request("GET", "/readyz")).status).toBe(200)
    }, 120_000)
  })
