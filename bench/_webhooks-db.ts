/**
 * `pnpm bench webhooks`'s database, as the bench sees it: the store's sandbox number, message
 * rows inserted in bulk, counts; a SQLite file in the run's folder or a new PostgreSQL database.
 */
import Sqlite from "better-sqlite3"
import { join } from "node:path"
import pg from "pg"
import { createPostgresDatabase } from "@switchboard/testing"
import { numbered, sqliteCount } from "../apps/server/test/fixtures/sql.js"

export interface Db {
  readonly url: string
  readonly store: () => Promise<{ id: string; waba: string; phone: string; display: string }>
  readonly insertMessages: (rows: ReadonlyArray<MessageRow>) => Promise<void>
  readonly count: (sql: string, ...params: ReadonlyArray<string | number>) => Promise<number>
  readonly close: () => Promise<void>
}

export interface MessageRow {
  readonly id: string
  readonly storeId: string
  readonly to: string
  readonly wamid: string
}

const STORE_SQL = "select id, sandbox_waba_id as waba, sandbox_phone_number_id as phone, sandbox_display_phone as display from stores"
const COLUMNS = ["id", "store_id", "mode", "to_phone", "type", "content", "status", "operator_message_id", "created_at", "updated_at"]
const values = (row: MessageRow, now: number) => [row.id, row.storeId, "test", row.to, "text", '{"body":"bench"}', "accepted", row.wamid, now, now]

export const sqliteDb = (dir: string): Db => {
  const file = join(dir, "bench.sqlite")
  let db: Sqlite.Database | undefined
  const open = () => {
    if (db === undefined) {
      db = new Sqlite(file, { fileMustExist: true })
      db.pragma("busy_timeout = 5000")
    }
    return db
  }
  return {
    url: file,
    store: async () => open().prepare(STORE_SQL).get() as { id: string; waba: string; phone: string; display: string },
    insertMessages: async (rows) => {
      const insert = open().prepare(`insert into messages (${COLUMNS.join(", ")}) values (${COLUMNS.map(() => "?").join(", ")})`)
      const now = Date.now()
      open().transaction(() => {
        for (const row of rows) insert.run(...values(row, now))
      })()
    },
    count: async (sql, ...params) => sqliteCount(open(), sql, params),
    close: async () => {
      db?.close()
    }
  }
}

export const postgresDb = async (): Promise<Db> => {
  const database = await createPostgresDatabase({ prefix: "sb_bench" })
  const pool = new pg.Pool({ connectionString: database.url, max: 2 })
  return {
    url: database.url,
    store: async () => (await pool.query(STORE_SQL)).rows[0],
    insertMessages: async (rows) => {
      const now = Date.now()
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500)
        const params: Array<unknown> = []
        const tuples = chunk.map((row) => {
          const vals = values(row, now)
          const start = params.length
          params.push(...vals)
          return `(${vals.map((_, j) => `$${start + j + 1}`).join(", ")})`
        })
        await pool.query(`insert into messages (${COLUMNS.join(", ")}) values ${tuples.join(", ")}`, params)
      }
    },
    count: async (sql, ...params) => Number((await pool.query(numbered(sql), [...params])).rows[0].n),
    close: async () => {
      await pool.end()
      await database.drop()
    }
  }
}
