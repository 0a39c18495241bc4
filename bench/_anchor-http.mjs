/**
 * The anchors of `pnpm bench http`, each run as its own plain `node` process (no loader):
 * the shortest path to the answer our server gives to `GET /chat/templates?limit=25`.
 *
 *   node bench/_anchor-http.mjs bytes  <port> <key> <body-file>
 *     node:http; the same Bearer check (the key looked up in a Map, as our cache does on a
 *     hit, 401 otherwise); then the bytes of the page, read once at start.
 *   node bench/_anchor-http.mjs sqlite <port> <key> <database-file> <store-id>
 *     node:http; the same Bearer check; a prepared better-sqlite3 statement reads the same
 *     rows (limit + 1, as the API does to know the next cursor), maps them to the resource and
 *     answers JSON.stringify of the page (the same bytes as our server's).
 */
import Database from "better-sqlite3"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

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

let answer
if (mode === "bytes") {
  const bytes = readFileSync(rest[0])
  answer = (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length })
    res.end(bytes)
  }
} else if (mode === "sqlite") {
  const db = new Database(rest[0], { readonly: true })
  const stmt = db.prepare(
    "SELECT id, name, language, category, status, components, rejected_reason, quality_score, created_at, updated_at FROM templates WHERE store_id = ? ORDER BY id DESC LIMIT ?"
  )
  answer = (req, res, tenant) => {
    const url = new URL(req.url, "http://x")
    const limit = Number(url.searchParams.get("limit") ?? 25)
    const rows = stmt.all(tenant.storeId, limit + 1)
    const page = rows.slice(0, limit).map((r) => ({
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
    }))
    send(
      res,
      200,
      JSON.stringify({ data: page, next_cursor: rows.length > limit ? Buffer.from(page[page.length - 1].id).toString("base64url") : null })
    )
  }
} else {
  throw new Error(`unknown anchor ${mode}`)
}

createServer((req, res) => {
  const tenant = caller(req)
  if (tenant === undefined) return send(res, 401, unauthorized)
  answer(req, res, tenant)
}).listen(Number(port), "127.0.0.1", () => console.log("ready"))
