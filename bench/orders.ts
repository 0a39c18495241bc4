/**
 * `pnpm bench orders` (issue 13): on SQLite and PostgreSQL, with the server and the emulator
 * as separate processes,
 *
 * 1. cart webhooks turned into orders per second: BENCH_CARTS distinct signed `order`
 *    messages (GRAPH_API.md A.2) posted to the operator webhook route, 32 at a time; the
 *    clock runs from the first post until the last order is in the store (goal: 3,000/s on
 *    SQLite, 2,000/s on PostgreSQL), and the server process's CPU time (user + system, from
 *    /proc) over that span per cart (goal: at most 250 µs). BENCH_ROUNDS (3) rounds on the
 *    same server after BENCH_WARMUP (200) carts of warm-up; min / median / max are printed;
 * 2. the p99 of `GET /chat/orders?limit=25` with BENCH_ORDERS orders in the store (seeded in
 *    the database in bulk; goal under 15 ms on SQLite), over BENCH_LIST_REQUESTS sequential
 *    requests after a warm-up, plus a filtered list (`status=pending`).
 *
 * BENCH_STORES=sqlite,postgres picks the dialects; BENCH_ORDERS=0 skips the list (2.);
 * BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server (the
 * built bundle, as every bench runs it: bench/run.ts).
 */
import Database from "better-sqlite3"
import { createHmac } from "node:crypto"
import pg from "pg"
import { benchDatabase, cpuMs, nodeFlags, startEmulatorProcess, startSwitchboard, stop, verbose } from "./_util.js"

const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",")
const CARTS = Number(process.env.BENCH_CARTS ?? 5000)
const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000)
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 1000)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200)
const APP_SECRET = "bench-app-secret"
const log = (line: string) => process.stderr.write(`[bench orders] ${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]
}

/** Counts and bulk inserts on the server's database, whichever dialect. */
const openDatabase = (dialect: string, url: string) => {
  if (dialect === "sqlite") {
    const db = new Database(url)
    db.pragma("busy_timeout = 10000")
    return {
      one: async <A>(sql: string): Promise<A> => db.prepare(sql).get() as A,
      run: async (sql: string, rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
        const stmt = db.prepare(sql)
        db.transaction(() => {
          for (const row of rows) stmt.run(...row)
        })()
      },
      close: async () => db.close()
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  return {
    one: async <A>(sql: string): Promise<A> => (await pool.query(sql)).rows[0] as A,
    /** Many rows per statement (500), numbered parameters. */
    run: async (sql: string, rows: ReadonlyArray<ReadonlyArray<unknown>>) => {
      const [head, tuple] = sql.split(" values ")
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500)
        let n = 0
        const values = chunk.map(() => tuple.replace(/\?/g, () => `$${++n}`)).join(", ")
        await pool.query(`${head} values ${values}`, chunk.flat() as Array<unknown>)
      }
    },
    close: async () => pool.end()
  }
}

/** The smallest, middle and largest of `xs`. */
const spread = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s[s.length - 1] }
}

const cartWebhook = (waba: string, phone: string, catalog: string, i: number) =>
  JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: waba,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550000000", phone_number_id: phone },
              contacts: [{ profile: { name: "Bench" }, wa_id: `1555${String(i).padStart(7, "0")}` }],
              messages: [
                {
                  from: `1555${String(i).padStart(7, "0")}`,
                  id: `wamid.BENCH${i}x${Date.now()}`,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: "order",
                  order: {
                    catalog_id: catalog,
                    text: "",
                    product_items: [
                      { product_retailer_id: "SKU-1", quantity: 2, item_price: 19.99, currency: "USD" },
                      { product_retailer_id: "SKU-2", quantity: 1, item_price: 5.5, currency: "USD" }
                    ]
                  }
                }
              ]
            }
          }
        ]
      }
    ]
  })

const run = async (dialect: string) => {
  const database = await benchDatabase(dialect, "orders")
  const emulator = await startEmulatorProcess(APP_SECRET)
  const {
    child: server,
    base,
    created
  } = await startSwitchboard(
    database.url,
    { SWITCHBOARD_EMULATOR_URL: emulator.url, SWITCHBOARD_EMULATOR_APP_SECRET: APP_SECRET },
    {
      storeName: "bench",
      ready: "/readyz",
      nodeFlags: nodeFlags("BENCH_SERVER_NODE_ARGS")
    }
  )
  // the server's warnings and errors, as they come
  if (!verbose) server.stderr?.pipe(process.stderr)
  const db = openDatabase(dialect, database.url)
  try {
    const store = await db.one<{ sandbox_phone_number_id: string; sandbox_waba_id: string }>(
      `select sandbox_phone_number_id, sandbox_waba_id from stores where id = '${created.id}'`
    )
    const count = async () => Number((await db.one<{ n: number | string }>(`select count(*) as n from orders where store_id = '${created.id}'`)).n)

    // 1. cart webhooks → orders: a warm-up, then ROUNDS rounds of CARTS carts each (distinct customers and wamids)
    let sent = 0
    const carts = async (n: number) => {
      const before = await count()
      const bodies = Array.from({ length: n }, (_, i) => cartWebhook(store.sandbox_waba_id, store.sandbox_phone_number_id, "1234567890", sent + i))
      sent += n
      const cpuBefore = cpuMs(server.pid)
      const started = performance.now()
      let next = 0
      let refused = 0
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < bodies.length) {
            const body = bodies[next++]
            const signature = `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`
            const res = await fetch(`${base}/chat/operator/webhook`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-hub-signature-256": signature },
              body
            })
            if (res.status !== 200) refused++
            await res.arrayBuffer()
          }
        })
      )
      const posted = performance.now()
      let made = (await count()) - before
      while (made < n - refused) {
        if (performance.now() - started > 600_000) break
        await sleep(20)
        made = (await count()) - before
      }
      const elapsed = (performance.now() - started) / 1000
      const cpuUsPerCart = ((cpuMs(server.pid) - cpuBefore) * 1000) / Math.max(1, made)
      return { made, posted: (posted - started) / 1000, elapsed, perSecond: made / elapsed, cpuUsPerCart }
    }
    if (WARMUP > 0) await carts(WARMUP)
    const rounds: Array<Awaited<ReturnType<typeof carts>>> = []
    for (let round = 0; round < ROUNDS; round++) {
      const r = await carts(CARTS)
      log(
        `${dialect} round ${round + 1}: ${fmt(CARTS)} carts posted in ${r.posted.toFixed(1)} s, ${fmt(r.made)} orders after ${r.elapsed.toFixed(1)} s: ${fmt(r.perSecond)}/s, server CPU ${fmt(r.cpuUsPerCart)} µs per cart`
      )
      rounds.push(r)
    }
    const made = rounds.reduce((n, r) => n + r.made, 0)
    const cartsPerSecond = spread(rounds.map((r) => r.perSecond))
    const cpuPerCart = spread(rounds.map((r) => r.cpuUsPerCart))
    if (ORDERS === 0) return { dialect, cartsPerSecond, cpuPerCart, made, plain: undefined, filtered: undefined }

    // 2. a store of ORDERS orders, listed 25 at a time
    const existing = await count()
    const items = JSON.stringify([
      {
        id: "oit_01M85GK8TB3E8BH2R1WY18AD8Y",
        retailerId: "SKU-1",
        productId: null,
        name: null,
        quantity: 2,
        unitPrice: 1999,
        catalogPrice: null,
        priceMismatch: true,
        shipped: 0,
        cancelled: 0,
        returned: 0
      }
    ])
    const cart = JSON.stringify({ catalog_id: "1234567890", text: "", product_items: [] })
    const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    const idAt = (t: number, i: number) => {
      let time = ""
      for (let k = 0, v = t; k < 10; k++, v = Math.floor(v / 32)) time = ALPHABET[v % 32] + time
      let rand = ""
      for (let k = 0, v = i; k < 16; k++, v = Math.floor(v / 32)) rand = ALPHABET[v % 32] + rand
      return `ord_${time}${rand}`
    }
    const seedStart = Date.now() - ORDERS * 10
    const rows: Array<Array<unknown>> = []
    for (let i = existing; i < ORDERS; i++) {
      const at = seedStart + i * 10
      rows.push([
        idAt(at, i),
        created.id,
        "test",
        "1234567890",
        `wamid.SEED${i}`,
        "+15550000000",
        i % 3 === 0 ? "in_progress" : "pending",
        i % 2 === 0 ? "paid" : "unpaid",
        "USD",
        3998,
        i % 2 === 0 ? 3998 : 0,
        0,
        items,
        cart,
        at,
        at
      ])
    }
    const seeded = performance.now()
    for (let i = 0; i < rows.length; i += 5000) {
      await db.run(
        "insert into orders (id, store_id, mode, operator_catalog_id, source_message_id, customer_phone, status, payment_status, currency, total, captured, refunded, items, cart, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows.slice(i, i + 5000)
      )
    }
    log(`${dialect}: ${fmt(await count())} orders in the store (seeded ${fmt(rows.length)} in ${((performance.now() - seeded) / 1000).toFixed(1)} s)`)
    const headers = { authorization: `Bearer ${created.test_key}` }
    const list = async (path: string) => {
      const times: Array<number> = []
      for (let i = 0; i < LIST_REQUESTS + 50; i++) {
        const t = performance.now()
        const res = await fetch(`${base}${path}`, { headers })
        const body = (await res.json()) as { data: Array<unknown> }
        if (res.status !== 200 || body.data.length !== 25) throw new Error(`list answered ${res.status} with ${body.data.length} orders`)
        if (i >= 50) times.push(performance.now() - t)
      }
      return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) }
    }
    const plain = await list("/chat/orders?limit=25")
    const filtered = await list("/chat/orders?limit=25&status=pending")
    return { dialect, cartsPerSecond, cpuPerCart, made, plain, filtered }
  } finally {
    await db.close()
    await stop(server)
    await stop(emulator.child)
    await database.drop()
  }
}

const results = []
for (const dialect of STORES) results.push(await run(dialect))
const mmm = (m: { min: number; median: number; max: number }) => `${fmt(m.min)} / ${fmt(m.median)} / ${fmt(m.max)}`
const p = (l: { p50: number; p99: number } | undefined) => (l === undefined ? "skipped" : `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} ms`)
console.log(
  `\norders bench (${fmt(CARTS)} cart webhooks a round, ${ROUNDS} rounds, min / median / max; ${fmt(ORDERS)} orders listed 25 at a time, ${fmt(LIST_REQUESTS)} requests)`
)
console.log(
  "| store | carts → orders per second (goal ≥ 3,000 SQLite, ≥ 2,000 PostgreSQL) | server CPU µs per cart (goal ≤ 250) | GET /chat/orders?limit=25 p50 / p99 (goal p99 < 15 ms on SQLite) | ?status=pending p50 / p99 |"
)
console.log("|---|---|---|---|---|")
for (const r of results) {
  console.log(`| ${r.dialect} | ${mmm(r.cartsPerSecond)} (${fmt(r.made)} orders) | ${mmm(r.cpuPerCart)} | ${p(r.plain)} | ${p(r.filtered)} |`)
}
process.exit(0)
