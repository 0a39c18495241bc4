/**
 * `pnpm bench commerce`: product batches and feed uploads, on SQLite and on PostgreSQL.
 * Every piece is its own process: the operator emulator (its CLI) and the server
 * (`switchboard serve` with its worker, as `pnpm start` runs it).
 *
 * 1. Intake: BENCH_INTAKE_ROUNDS (default 3) batches of 50,000 products posted to
 *    `POST /chat/catalogs/{id}/products/batch`; requests accepted per second (time to the
 *    202), beside the anchor: the same body posted to a bare node:http server that reads it
 *    and `JSON.parse`s it, in the same run.
 * 2. To finished: BENCH_PRODUCT_ROUNDS (default 3) times, each into a new catalog, BENCH_PRODUCTS (default 100,000) products, as batches of 50,000 submitted
 *    back to back, timed from the first submit to the last `finished`, against the floor the
 *    emulator's quota sets: with Q calls per W ms per catalog and P ms to process a chunk,
 *    N chunks of 5,000 cannot finish before (ceil(N / Q) - 1) * W + P. The worker keeps the
 *    same quota (SWITCHBOARD_CATALOG_BATCH_CALLS / _WINDOW_MS). Also reports the operator's
 *    80014 refusals (0 when the pacing holds) and chunks sent twice.
 * 3. Feed upload: a BENCH_CSV_ROWS (default 500,000) row CSV file sent as multipart to
 *    `POST /chat/feeds/{id}/uploads` (processed before the answer), BENCH_CSV_ROUNDS times
 *    (default 3, each to a new catalog, the next once the worker has sent the last one's
 *    products to the operator: a large BENCH_QUOTA_CALLS shortens that wait); rows per second (min / median / max), beside the
 *    anchor: the same file through csv-parse alone in this process after each round; the
 *    server's CPU (user + system, during the upload) per row against csv-parse's (a figure a
 *    busy machine moves much less than wall time); and the server's peak RSS during the upload
 *    above its RSS just before it.
 *
 * Environment: BENCH_STORES (sqlite,postgres), BENCH_PRODUCTS, BENCH_INTAKE_ROUNDS,
 * BENCH_PRODUCTS (0 skips it), BENCH_CSV_ROWS (0 skips it), BENCH_CSV_ROUNDS, BENCH_LOG_LEVEL (the server's, WARN), BENCH_SERVER_NODE_ARGS (for example
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, given to the server's node), BENCH_QUOTA_CALLS (5), BENCH_QUOTA_WINDOW_MS (4000),
 * BENCH_PROCESS_MS (400), BENCH_VERBOSE=1 (the server is the built bundle, as every bench runs it: bench/run.ts).
 */
import { createReadStream, mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "csv-parse"
import { benchDatabase, nodeFlags, startEmulatorProcess, startSwitchboard, stop } from "./_util.js"

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",")
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000)
const PRODUCT_ROUNDS = Math.max(1, Number(process.env.BENCH_PRODUCT_ROUNDS ?? 3))
const INTAKE_ROUNDS = Number(process.env.BENCH_INTAKE_ROUNDS ?? 3)
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 500_000)
const CSV_ROUNDS = Number(process.env.BENCH_CSV_ROUNDS ?? 3)
const QUOTA_CALLS = Number(process.env.BENCH_QUOTA_CALLS ?? 5)
const QUOTA_WINDOW_MS = Number(process.env.BENCH_QUOTA_WINDOW_MS ?? 4000)
const PROCESS_MS = Number(process.env.BENCH_PROCESS_MS ?? 400)
const PER_BATCH = 50_000
const CHUNK = 5000
const APP_SECRET = "bench-app-secret"

const log = (line: string) => process.stderr.write(`[bench commerce] ${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const stats = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] }
}
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
/** CPU seconds (user + system, every thread) a process has used: a figure the machine's load barely moves. */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024

const startEmulator = async () => {
  const emulator = await startEmulatorProcess(APP_SECRET)
  await emulator.post("/config", { catalogBatchCalls: QUOTA_CALLS, catalogBatchWindowMs: QUOTA_WINDOW_MS, itemsBatchProcessMs: PROCESS_MS })
  return emulator
}

const startServer = async (databaseUrl: string, emulatorUrl: string) => {
  const server = await startSwitchboard(
    databaseUrl,
    {
      SWITCHBOARD_EMULATOR_URL: emulatorUrl,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "WARN",
      SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET,
      SWITCHBOARD_CATALOG_BATCH_CALLS: String(QUOTA_CALLS),
      SWITCHBOARD_CATALOG_BATCH_WINDOW_MS: String(QUOTA_WINDOW_MS)
    },
    { storeName: "bench", nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS") }
  )
  return { ...server, auth: { authorization: `Bearer ${server.created.test_key}` } }
}
type Server = Awaited<ReturnType<typeof startServer>>

/** The anchor of the intake: a bare server that reads the body and parses it. */
const startBare = async () => {
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { requests: Array<unknown> }
      res.writeHead(202, { "content-type": "application/json" })
      res.end(JSON.stringify({ accepted: parsed.requests.length }))
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const address = server.address()
  return { url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`, close: () => server.close() }
}

const product = (prefix: string, i: number) => ({
  retailer_id: `${prefix}-${i}`,
  name: `Product ${prefix} ${i}`,
  description: "Bench product with a short description",
  price: 1000 + (i % 5000),
  currency: "USD",
  availability: "in stock",
  condition: "new",
  image_url: `https://img.example.com/${prefix}/${i}.jpg`,
  url: `https://shop.example.com/p/${prefix}-${i}`,
  brand: "Bench",
  inventory: i % 100
})
const batchBody = (prefix: string, from: number, n: number) =>
  JSON.stringify({ requests: Array.from({ length: n }, (_, k) => ({ method: "UPDATE", data: product(prefix, from + k) })) })

const newCatalog = async (server: Server, name: string) => {
  const created = await server.request("POST", "/chat/catalogs", { name })
  if (created.status !== 201) throw new Error(`catalog: ${created.status} ${JSON.stringify(created.json)}`)
  return created.json as { id: string; operator_catalog_id: string }
}

const finished = async (server: Server, catalogId: string, handle: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const got = await server.request("GET", `/chat/catalogs/${catalogId}/products/batch/${handle}?limit=1`)
    if (got.json?.status === "finished" || got.json?.status === "failed") return got.json
    await sleep(100)
  }
  throw new Error(`batch ${handle} did not finish within ${timeoutMs} ms`)
}

const intake = async (server: Server, bareUrl: string) => {
  const catalog = await newCatalog(server, "intake")
  const ours: Array<number> = []
  const bare: Array<number> = []
  const handles: Array<string> = []
  for (let round = 0; round < INTAKE_ROUNDS; round++) {
    const body = batchBody(`I${round}`, 0, PER_BATCH)
    let t = performance.now()
    const res = await fetch(bareUrl, { method: "POST", headers: { "content-type": "application/json" }, body })
    await res.text()
    bare.push(PER_BATCH / ((performance.now() - t) / 1000))
    t = performance.now()
    const submitted = await server.request("POST", `/chat/catalogs/${catalog.id}/products/batch`, body)
    if (submitted.status !== 202) throw new Error(`batch: ${submitted.status} ${JSON.stringify(submitted.json).slice(0, 300)}`)
    ours.push(PER_BATCH / ((performance.now() - t) / 1000))
    handles.push(submitted.json.handle)
  }
  // let the worker carry them before the timed run, so it starts idle
  const chunks = Math.ceil(PER_BATCH / CHUNK) * INTAKE_ROUNDS
  for (const handle of handles) await finished(server, catalog.id, handle, (Math.ceil(chunks / QUOTA_CALLS) + 2) * QUOTA_WINDOW_MS + 60_000)
  return { ours: stats(ours), bare: stats(bare) }
}

const toFinished = async (server: Server, emulator: Awaited<ReturnType<typeof startEmulator>>) => {
  const catalog = await newCatalog(server, "timed")
  const bodies = Array.from({ length: Math.ceil(PRODUCTS / PER_BATCH) }, (_, b) =>
    batchBody("T", b * PER_BATCH, Math.min(PER_BATCH, PRODUCTS - b * PER_BATCH))
  )
  const started = performance.now()
  const handles: Array<string> = []
  for (const body of bodies) {
    const submitted = await server.request("POST", `/chat/catalogs/${catalog.id}/products/batch`, body)
    if (submitted.status !== 202) throw new Error(`batch: ${submitted.status}`)
    handles.push(submitted.json.handle)
  }
  const chunks = Math.ceil(PRODUCTS / CHUNK)
  const floorMs = (Math.ceil(chunks / QUOTA_CALLS) - 1) * QUOTA_WINDOW_MS + PROCESS_MS
  let succeeded = 0
  for (const handle of handles) succeeded += (await finished(server, catalog.id, handle, floorMs * 5 + 60_000)).succeeded
  const tookMs = performance.now() - started
  const seen = await emulator.get(`/items-batches?catalog_id=${catalog.operator_catalog_id}`)
  return { tookMs, floorMs, chunks, succeeded, refused: seen.refused as number, duplicates: seen.duplicates as number, calls: seen.calls as number }
}

const writeCsv = (path: string, rows: number) => {
  const lines = ["retailer_id,name,description,price,currency,availability,image_url,url,brand,inventory"]
  for (let i = 0; i < rows; i++)
    lines.push(
      `C-${i},"Feed product ${i}, blue",Short description ${i},${1000 + (i % 9000)},USD,in stock,https://img.example.com/c/${i}.jpg,https://shop.example.com/c/${i},Bench,${i % 50}`
    )
  writeFileSync(path, `${lines.join("\n")}\n`)
}

const anchorCsv = async (path: string) => {
  const started = performance.now()
  const cpu = process.cpuUsage()
  let rows = 0
  for await (const _ of createReadStream(path).pipe(parse({ delimiter: ",", info: true }))) rows++
  const used = process.cpuUsage(cpu)
  return { perSecond: (rows - 1) / ((performance.now() - started) / 1000), perCpuSecond: (rows - 1) / ((used.user + used.system) / 1e6) }
}

/** One upload of the file to a new catalog's feed: rows per second and per server CPU second, the server's RSS before and at its peak. */
const feedUpload = async (server: Server, path: string) => {
  const catalog = await newCatalog(server, "feed")
  const feed = await server.request("POST", `/chat/catalogs/${catalog.id}/feeds`, { name: "bench" })
  if (feed.status !== 201) throw new Error(`feed: ${feed.status}`)
  await sleep(1000)
  const pid = server.child.pid!
  const idle = rssMb(pid)
  let peak = idle
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, 25)
  try {
    const form = new FormData()
    form.append("file", await openAsBlob(path, { type: "text/csv" }), "bench.csv")
    const started = performance.now()
    const cpu = cpuSeconds(pid)
    const res = await fetch(`${server.base}/chat/feeds/${feed.json.id}/uploads`, { method: "POST", headers: server.auth, body: form })
    const text = await res.text()
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${text.slice(0, 300)}`)
    const body = JSON.parse(text) as { num_persisted_items: number }
    const seconds = (performance.now() - started) / 1000
    const cpuUsed = cpuSeconds(pid) - cpu
    peak = Math.max(peak, rssMb(pid))
    clearInterval(sampler)
    // the worker sends the upload's products to the operator after the answer: the next round starts once it is done
    if (body.batch_handle !== null) await finished(server, catalog.id, body.batch_handle, 600_000)
    return {
      rowsPerSecond: body.num_persisted_items / seconds,
      cpuUsPerRow: (cpuUsed * 1e6) / body.num_persisted_items,
      seconds,
      growth: peak - idle
    }
  } finally {
    clearInterval(sampler)
  }
}

/** CSV_ROUNDS uploads, each followed by the anchor (csv-parse alone on the same file, in this process). */
const feedUploads = async (server: Server, path: string) => {
  const ours: Array<Awaited<ReturnType<typeof feedUpload>>> = []
  const anchors: Array<Awaited<ReturnType<typeof anchorCsv>>> = []
  for (let round = 0; round < CSV_ROUNDS; round++) {
    ours.push(await feedUpload(server, path))
    anchors.push(await anchorCsv(path))
    log(
      `upload round ${round + 1}: ${fmt(ours[round].rowsPerSecond)} rows/s, ${ours[round].cpuUsPerRow.toFixed(1)} µs CPU per row, +${fmt(ours[round].growth)} MB`
    )
  }
  return {
    rows: stats(ours.map((u) => u.rowsPerSecond)),
    cpuUsPerRow: stats(ours.map((u) => u.cpuUsPerRow)),
    growth: stats(ours.map((u) => u.growth)),
    anchor: stats(anchors.map((a) => a.perSecond)),
    anchorCpuUsPerRow: stats(anchors.map((a) => 1e6 / a.perCpuSecond))
  }
}

const results: Array<Record<string, string>> = []
const dir = mkdtempSync(join(tmpdir(), "sb-bench-csv-"))
const csvPath = join(dir, "bench.csv")
if (CSV_ROWS > 0) writeCsv(csvPath, CSV_ROWS)
const bare = await startBare()
try {
  for (const store of STORES) {
    log(`${store}: starting`)
    const emulator = await startEmulator()
    const database = await benchDatabase(store, "commerce")
    const server = await startServer(database.url, emulator.url)
    try {
      const taken = INTAKE_ROUNDS > 0 ? await intake(server, bare.url) : undefined
      log(`${store}: intake done`)
      const rounds: Array<Awaited<ReturnType<typeof toFinished>>> = []
      for (let round = 0; PRODUCTS > 0 && round < PRODUCT_ROUNDS; round++) {
        const run = await toFinished(server, emulator)
        log(`${store}: round ${round + 1}, ${PRODUCTS} products finished in ${Math.round(run.tookMs)} ms (floor ${run.floorMs} ms)`)
        rounds.push(run)
      }
      const sorted = [...rounds].sort((a, b) => a.tookMs - b.tookMs)
      const sum = (f: (r: (typeof rounds)[number]) => number) => rounds.reduce((n, r) => n + f(r), 0)
      const upload = CSV_ROWS > 0 ? await feedUploads(server, csvPath) : undefined
      results.push({
        store,
        intake:
          taken === undefined
            ? "-"
            : `${fmt(taken.ours.min)} / ${fmt(taken.ours.median)} / ${fmt(taken.ours.max)} per s (bare parse ${fmt(taken.bare.median)}; ${(taken.ours.median / taken.bare.median).toFixed(2)}×)`,
        finished:
          rounds.length === 0
            ? "-"
            : `${sorted.map((r) => (r.tookMs / 1000).toFixed(1)).join(" / ")} s vs floor ${(rounds[0].floorMs / 1000).toFixed(1)} s = ${sorted.map((r) => (r.tookMs / r.floorMs).toFixed(2)).join(" / ")}× (min / … / max of ${rounds.length} rounds; ${sum((r) => r.calls)} calls for ${sum((r) => r.chunks)} chunks, ${sum((r) => r.refused)} × 80014, ${sum((r) => r.duplicates)} dup., ${fmt(sum((r) => r.succeeded))} ok)`,
        upload:
          upload === undefined
            ? "-"
            : `${fmt(upload.rows.min)} / ${fmt(upload.rows.median)} / ${fmt(upload.rows.max)} rows/s (csv-parse alone ${fmt(upload.anchor.median)}/s, ${(upload.rows.median / upload.anchor.median).toFixed(2)}×); server CPU ${upload.cpuUsPerRow.median.toFixed(1)} µs per row (csv-parse ${upload.anchorCpuUsPerRow.median.toFixed(1)}); peak RSS above idle +${fmt(upload.growth.median)} MB (max +${fmt(upload.growth.max)})`
      })
    } finally {
      await stop(server.child)
      await stop(emulator.child)
      await database.drop()
    }
  }
} finally {
  bare.close()
  rmSync(dir, { recursive: true, force: true })
}

for (const r of results) {
  console.log(`\n${r.store}`)
  console.log(`  batch intake (50,000 per request, min / median / max): ${r.intake}`)
  console.log(`  ${fmt(PRODUCTS)} products to finished: ${r.finished}`)
  console.log(`  feed upload of ${fmt(CSV_ROWS)} rows (${CSV_ROUNDS} rounds, min / median / max): ${r.upload}`)
}
console.log(
  `\nQuota: ${QUOTA_CALLS} calls per ${QUOTA_WINDOW_MS} ms per catalog, ${PROCESS_MS} ms per chunk. Goals: finished within 1.3× the floor; intake >= 50,000 requests/s; upload >= 50,000 rows/s (both stores) with peak RSS <= 150 MB above idle.`
)
