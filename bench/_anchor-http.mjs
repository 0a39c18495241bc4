/**
 * The anchors of `pnpm bench http`, each run as its own plain `node` process (no loader): the
 * shortest path to the answers our server gives to the two reads of the bench,
 * `GET /chat/templates?limit=<n>` (a page) and `GET /chat/templates/<name>` (one template's
 * languages), with the same Bearer check (the key looked up in a Map, as our cache does on a
 * hit, 401 otherwise).
 *
 *   node bench/_anchor-http.mjs bytes    <port> <key> <json file: { "<path>": "<body>" }>
 *     the bytes of each answer, read once at start.
 *   node bench/_anchor-http.mjs sqlite   <port> <key> <database file> <store id>
 *     a prepared better-sqlite3 statement per read (the statements our repository runs: the
 *     same columns, limit + 1 rows for the page, to know the next cursor), rows mapped to the
 *     resource, JSON.stringify of the page.
 *   node bench/_anchor-http.mjs postgres <port> <key> <database url> <store id> <pool size>
 *     the same statements through a `pg` Pool of the same size as our server's (int8 read as
 *     numbers, as ours), the same mapping.
 * Both answer byte for byte what our server answers (the bench checks it before measuring).
 */
import Database from "better-sqlite3"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import pg from "pg"

const [mode, port, key, ...rest] = process.argv.slice(2)
const keys = new Map([[key, { storeId: rest[1] }]])

const caller = (req) => {
  const header = req.headers.authorization
  if (header === undefined || !header.startsWith("Bearer ")) return undefined
  return keys.get(header.slice(7))
}

const unauthorized = JSON.stringify({ error: { code: "unauthorized", message: "Missing or invalid API key" } })
const send = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const COLUMNS = `"id", "store_id", "name", "language", "category", "status", "components", "rejected_reason", "quality_score", "operator_id", "created_at", "updated_at"`
const LIST = `select ${COLUMNS} from "templates" where "store_id" = ? order by "id" desc limit ?`
const BY_NAME = `select ${COLUMNS} from "templates" where "store_id" = ? and "name" = ? order by "language"`
const numbered = (sql) => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const resourceOf = (r) => ({
  id: r.id,
  name: r.name,
  language: r.language,
  category: r.category,
  status: r.status,
  components: JSON.parse(r.components),
  rejected_reason: r.rejected_reason,
  quality_score: r.quality_score,
  created_at: new Date(Number(r.created_at)).toISOString(),
  updated_at: new Date(Number(r.updated_at)).toISOString()
})
const cursorOf = (text) => Buffer.from(text).toString("base64url")
const PREFIX = "/chat/templates"

/** The answer of a read, given the statements (`list(storeId, limit + 1)`, `byName(storeId, name)`: rows, or a promise of rows). */
const reads = (list, byName) => (req, res, tenant) => {
  const at = req.url.indexOf("?")
  const path = at === -1 ? req.url : req.url.slice(0, at)
  if (path === PREFIX) {
    const limit = Number(new URLSearchParams(at === -1 ? "" : req.url.slice(at + 1)).get("limit") ?? 25)
    return then(list(tenant.storeId, limit + 1), (rows) => {
      const page = rows.slice(0, limit).map(resourceOf)
      send(res, 200, JSON.stringify({ data: page, next_cursor: rows.length > limit ? cursorOf(page[page.length - 1].id) : null }))
    })
  }
  const name = decodeURIComponent(path.slice(PREFIX.length + 1))
  return then(byName(tenant.storeId, name), (rows) => {
    const all = rows.map(resourceOf).sort((a, b) => (a.language < b.language ? -1 : a.language > b.language ? 1 : 0))
    const page = all.slice(0, 25)
    send(res, 200, JSON.stringify({ data: page, next_cursor: all.length > 25 ? cursorOf(page[page.length - 1].language) : null }))
  })
}
const then = (rows, f) => (Array.isArray(rows) ? f(rows) : rows.then(f))

let answer
if (mode === "bytes") {
  const bodies = new Map(Object.entries(JSON.parse(readFileSync(rest[0], "utf8"))).map(([path, body]) => [path, Buffer.from(body)]))
  answer = (req, res) => {
    const bytes = bodies.get(req.url)
    if (bytes === undefined) return send(res, 404, "{}")
    res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length })
    res.end(bytes)
  }
} else if (mode === "sqlite") {
  const db = new Database(rest[0], { readonly: true })
  const list = db.prepare(LIST)
  const byName = db.prepare(BY_NAME)
  answer = reads(
    (storeId, limit) => list.all(storeId, limit),
    (storeId, name) => byName.all(storeId, name)
  )
} else if (mode === "postgres") {
  const int8 = pg.types.builtins.INT8
  const pool = new pg.Pool({
    connectionString: rest[0],
    max: Number(rest[2]),
    types: { getTypeParser: (oid, format) => (oid === int8 && format !== "binary" ? Number : pg.types.getTypeParser(oid, format)) }
  })
  const list = numbered(LIST)
  const byName = numbered(BY_NAME)
  answer = reads(
    (storeId, limit) => pool.query(list, [storeId, limit]).then((r) => r.rows),
    (storeId, name) => pool.query(byName, [storeId, name]).then((r) => r.rows)
  )
} else {
  throw new Error(`unknown anchor ${mode}`)
}

createServer((req, res) => {
  const tenant = caller(req)
  if (tenant === undefined) return send(res, 401, unauthorized)
  answer(req, res, tenant)
}).listen(Number(port), "127.0.0.1", () => console.log("ready"))
