/**
 * A product batch survives its worker (issue 12, "Done when"): a 20,000-product batch is
 * carried by a worker process that is killed (SIGKILL) twice in the middle; the worker that
 * takes over after the lease finishes it with exact counts, and the emulator saw no
 * `items_batch` chunk twice and exactly one call per chunk.
 *
 * The emulator's quota (one call per 700 ms) spreads the four chunks over about two
 * seconds; each kill lands right after the emulator took a chunk (its call counter moved) and
 * the worker recorded its handle, while the worker waits for the next quota slot. What would fail without the guarantees:
 * a handle recorded only after polling (or not at all) would make the next worker send that
 * chunk again (`duplicates` > 0, more than four calls); a chunk's verdicts applied twice
 * would count its requests twice.
 */
import type { ChildProcess } from "node:child_process"
import Sqlite from "better-sqlite3"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { DIALECTS, eventually } from "@switchboard/testing"
import { type Harness, spawnFixtureWorker, startHarness } from "./campaignHarness.js"

const PRODUCTS = 20_000
const WINDOW_MS = 700

const workers: Array<ChildProcess> = []
const startWorker = (h: Harness, id: string): ChildProcess => {
  const child = spawnFixtureWorker(
    h,
    "job-worker.ts",
    id,
    { LEASE_MS: "1500", CATALOG_BATCH_CALLS: "1", CATALOG_BATCH_WINDOW_MS: String(WINDOW_MS) },
    "inherit"
  )
  workers.push(child)
  return child
}
const kill = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

const killAll = async () => {
  for (const w of workers.splice(0)) await kill(w)
}

for (const dialect of DIALECTS)
  describe.skipIf(!dialect.available)(`a product batch whose worker is killed (${dialect.name})`, () => {
    let h: Harness
    afterAll(async () => {
      await killAll()
      await h?.stop()
    })

    it("finishes with exact counts after two kills; no chunk reached the operator twice", async () => {
      h = await startHarness({
        dialect,
        runner: false,
        lanes: false,
        emulator: { catalogBatchCalls: 1, catalogBatchWindowMs: WINDOW_MS, itemsBatchProcessMs: 300 }
      })
      const shop = await h.createStore()
      const catalog = await h.request("POST", "/chat/catalogs", shop.liveKey, { name: "Crash" })
      expect(catalog.status).toBe(201)
      const cat = catalog.json.id
      const operatorCatalog = catalog.json.operator_catalog_id
      const requests = Array.from({ length: PRODUCTS }, (_, i) => ({
        method: "CREATE",
        data: {
          retailer_id: `K${i}`,
          name: i % 1000 === 7 ? `Counterfeit ${i}` : `Item ${i}`,
          price: 100 + i,
          currency: "EUR",
          image_url: `https://img.example.com/${i}.png`
        }
      }))
      const submitted = await h.request("POST", `/chat/catalogs/${cat}/products/batch`, shop.liveKey, { requests })
      expect(submitted.status).toBe(202)
      const calls = async () => (await h.emulatorGet(`/items-batches?catalog_id=${operatorCatalog}`)).calls as number
      const recordedHandles = async (): Promise<number> => {
        const sql = "SELECT COUNT(*) AS n FROM product_batch_chunks WHERE handle IS NOT NULL"
        if (dialect.id === "postgres") {
          const client = new pg.Client({ connectionString: h.target })
          await client.connect()
          try {
            return Number((await client.query(sql)).rows[0].n)
          } finally {
            await client.end()
          }
        }
        const db = new Sqlite(h.target, { readonly: true })
        try {
          return Number((db.prepare(sql).get() as { n: number }).n)
        } finally {
          db.close()
        }
      }

      // worker 1 sends the first chunk and is killed; worker 2 takes over after the lease, sends the next and is killed
      for (const [id, after] of [
        ["w1", 1],
        ["w2", 2]
      ] as const) {
        const worker = startWorker(h, id)
        await eventually(async () => (await calls()) >= after, `chunk ${after} taken by the operator`, 20_000)
        // killed once the chunk's handle is recorded: a kill between the operator's answer and that write
        // leaves a chunk whose answer never came, which is sent again by design
        await eventually(async () => (await recordedHandles()) >= after, `chunk ${after}'s handle recorded`, 20_000)
        await kill(worker)
      }
      expect(await calls()).toBeLessThan(4)
      startWorker(h, "w3")
      const done = await eventually(
        async () => {
          const got = await h.request("GET", `/chat/catalogs/${cat}/products/batch/${submitted.json.handle}`, shop.liveKey)
          return got.json.status === "finished" ? got.json : undefined
        },
        "the batch finished",
        60_000
      )
      expect(done).toMatchObject({ total: PRODUCTS, processed: PRODUCTS, succeeded: PRODUCTS - 20, failed: 20 })
      const seen = await h.emulatorGet(`/items-batches?catalog_id=${operatorCatalog}`)
      expect(seen).toMatchObject({ calls: 4, duplicates: 0, requests: PRODUCTS })
      const products = await h.request("GET", `/chat/catalogs/${cat}/diagnostics`, shop.liveKey)
      expect(products.json).toMatchObject({ products: PRODUCTS, products_with_errors: 20 })
    }, 120_000)
  })
