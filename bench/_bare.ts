/**
 * The baseline of `pnpm bench http`: a bare node:http server reading the same rows from the
 * same SQLite file with better-sqlite3, no framework, no authentication.
 */
import Database from "better-sqlite3"
import { createServer } from "node:http"

const [file, storeId, port] = process.argv.slice(2)
const db = new Database(file, { readonly: true })
const stmt = db.prepare(
  "SELECT id, name, language, category, status, components, rejected_reason, created_at, updated_at FROM templates WHERE store_id = ? ORDER BY id DESC LIMIT ?"
)
createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x")
  const limit = Number(url.searchParams.get("limit") ?? 25)
  const rows = stmt.all(storeId, limit + 1) as Array<any>
  const page = rows.slice(0, limit).map((r) => ({
    id: r.id,
    name: r.name,
    language: r.language,
    category: r.category,
    status: r.status,
    components: JSON.parse(r.components),
    rejected_reason: r.rejected_reason,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString()
  }))
  const body = JSON.stringify({ data: page, next_cursor: rows.length > limit ? page[page.length - 1].id : null })
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}).listen(Number(port), "127.0.0.1", () => console.log("ready"))
