/**
 * The anchor of `pnpm bench webhooks`, run as its own plain `node` process (no loader): the
 * shortest path to acknowledging a signed operator webhook.
 *   node bench/_anchor-webhooks.mjs <port> <app-secret> <database-file>
 * node:http reads the body, checks `X-Hub-Signature-256` (HMAC-SHA256 of the body with the
 * app secret, compared in constant time; 401 otherwise), stores it with one prepared INSERT
 * (its own transaction, WAL, synchronous=NORMAL as our SQLite store) and answers 200.
 */
import Database from "better-sqlite3"
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

const [port, secret, file] = process.argv.slice(2)
const db = new Database(file)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
db.exec("create table if not exists inbox (id integer primary key, received_at integer not null, body blob not null)")
const insert = db.prepare("insert into inbox (received_at, body) values (?, ?)")

const answer = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const body = Buffer.concat(chunks)
    const header = req.headers["x-hub-signature-256"]
    const expected = createHmac("sha256", secret).update(body).digest()
    const given = typeof header === "string" && header.startsWith("sha256=") ? Buffer.from(header.slice(7), "hex") : undefined
    if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return answer(res, 401, '{"error":{"code":"unauthorized","message":"bad signature"}}')
    }
    insert.run(Date.now(), body)
    answer(res, 200, '{"received":true}')
  })
}).listen(Number(port), "127.0.0.1", () => console.log("ready"))
