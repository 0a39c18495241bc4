import { it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Effect } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect } from "vitest"
import { Migrations } from "@switchboard/store-sql"
import { StoreSqlite } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "sb-sqlite-unit-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("parseFilename", () => {
  it("accepts paths and file: URLs", () => {
    expect(StoreSqlite.parseFilename("./data/x.sqlite")).toBe("./data/x.sqlite")
    expect(StoreSqlite.parseFilename("file:./data/x.sqlite")).toBe("./data/x.sqlite")
    expect(StoreSqlite.parseFilename("file:data/x.sqlite?mode=rwc")).toBe("data/x.sqlite")
    expect(StoreSqlite.parseFilename("file:///abs/my%20x.sqlite")).toBe("/abs/my x.sqlite")
    expect(StoreSqlite.parseFilename(":memory:")).toBe(":memory:")
  })
})

describe("statementCache", () => {
  it("prepares each SQL text once, evicts the least recently used, begins immediate", () => {
    const db = new Sqlite(":memory:")
    const prepared: Array<string> = []
    const original = db.prepare.bind(db)
    db.prepare = ((sql: string) => {
      prepared.push(sql)
      return original(sql)
    }) as typeof db.prepare
    const cached = StoreSqlite.statementCache(db, 2)
    const one = cached.prepare("select 1 as n")
    expect(cached.prepare("select 1 as n")).toBe(one)
    expect(one.all([])).toEqual([{ n: 1 }])
    cached.prepare("select 2 as n")
    cached.prepare("select 1 as n") // most recently used again
    cached.prepare("select 3 as n") // evicts "select 2"
    cached.prepare("select 1 as n")
    cached.prepare("select 2 as n")
    expect(prepared).toEqual(["select 1 as n", "select 2 as n", "select 3 as n", "select 2 as n"])
    cached.prepare("begin")
    expect(prepared.at(-1)).toBe("begin immediate")
    cached.close()
  })
})

describe("migrate", () => {
  it.effect("creates the folder, applies the migrations once, and accepts a file: URL", () =>
    Effect.gen(function* () {
      const file = join(dir, "a", "b", "store.sqlite")
      expect(yield* StoreSqlite.migrate(file)).toEqual(Object.keys(Migrations.migrations))
      expect(existsSync(file)).toBe(true)
      expect(yield* StoreSqlite.migrate(pathToFileURL(file).href)).toEqual([])
      const db = new Sqlite(file, { readonly: true })
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
      const tables = db.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all()
      expect(tables).toEqual(expect.arrayContaining(["api_keys", "idempotency_keys", "inbox", "jobs", "stores", "templates"]))
      db.close()
    })
  )
})

describe("dataVersion", () => {
  it("changes with every committed write, this connection's or another's, and has no value inside a transaction", () => {
    const file = join(dir, "version.sqlite")
    const db = StoreSqlite.open(file)
    db.exec("CREATE TABLE t (n INTEGER)")
    const version = StoreSqlite.dataVersion(db)
    const first = version.current()
    expect(first).toBeDefined()
    expect(version.current()).toBe(first)
    // a read changes nothing
    db.prepare("SELECT count(*) FROM t").get()
    expect(version.current()).toBe(first)
    // this connection's write
    db.prepare("INSERT INTO t VALUES (1)").run()
    const afterOwn = version.current()
    expect(afterOwn).not.toBe(first)
    // an UPDATE that matches no row writes nothing
    db.prepare("UPDATE t SET n = 2 WHERE n = 99").run()
    expect(version.current()).toBe(afterOwn)
    // another connection's commit
    const other = new Sqlite(file)
    other.pragma("busy_timeout = 5000")
    other.prepare("INSERT INTO t VALUES (2)").run()
    const afterOther = version.current()
    expect(afterOther).not.toBe(afterOwn)
    other.close()
    // inside a transaction of this connection, what it reads may still be rolled back
    db.exec("BEGIN IMMEDIATE")
    db.prepare("INSERT INTO t VALUES (3)").run()
    expect(version.current()).toBeUndefined()
    db.exec("ROLLBACK")
    expect(version.current()).toBeDefined()
    db.close()
  })
})
