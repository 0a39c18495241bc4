import { it } from "@effect/vitest"
import Sqlite from "better-sqlite3"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import { CompiledQuery } from "kysely"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect } from "vitest"
import { Database, Migrations } from "@switchboard/store-sql"
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

describe("runNow (a compiled query run at once on the connection)", () => {
  const withDatabase = <A>(name: string, f: (db: Database.DatabaseShape, raw: Sqlite.Database) => Effect.Effect<A>) =>
    Effect.scoped(
      Effect.gen(function* () {
        const file = join(dir, name)
        const layer = StoreSqlite.layerDatabase({ filename: file })
        const context = yield* Layer.build(layer)
        const db = Context.get(context, Database.Database)
        return yield* f(db, new Sqlite(file))
      })
    )

  it.effect("answers what Kysely's driver answers, for reads and writes", () =>
    withDatabase("now-equal.sqlite", (db) =>
      Effect.gen(function* () {
        const create = CompiledQuery.raw("create table t (id integer primary key, name text)")
        const insert = (id: number, name: string) => CompiledQuery.raw("insert into t (id, name) values (?, ?)", [id, name])
        const select = CompiledQuery.raw("select id, name from t order by id")
        const update = CompiledQuery.raw("update t set name = upper(name) where id > ?", [1])
        yield* db.execute(create)
        for (const [id, name] of [
          [1, "a"],
          [2, "b"],
          [3, "c"]
        ] as const) {
          const now = yield* db.execute(insert(id, name))
          const viaKysely = yield* Effect.promise(() => db.kysely.executeQuery(insert(id + 10, name)))
          expect(now).toEqual({ ...viaKysely, insertId: BigInt(id) })
          expect(viaKysely.insertId).toBe(BigInt(id + 10))
        }
        const rowsNow = yield* db.execute(select)
        expect(rowsNow).toEqual(yield* Effect.promise(() => db.kysely.executeQuery(select)))
        expect(rowsNow.rows).toHaveLength(6)
        const changed = yield* db.execute(update)
        expect(changed).toEqual({ numAffectedRows: 5n, insertId: 13n, rows: [] })
        expect(yield* Effect.promise(() => db.kysely.executeQuery(update))).toEqual(changed)
        // a driver error is a defect, as through Kysely
        const failed = yield* Effect.exit(db.execute(insert(1, "again")))
        expect(failed._tag === "Failure" && String(failed.cause)).toMatch(/UNIQUE constraint failed/)
      })
    )
  )

  it.live("waits for a transaction another fiber holds, and runs inside its own", () =>
    withDatabase("now-transaction.sqlite", (db, other) =>
      Effect.gen(function* () {
        yield* db.execute(CompiledQuery.raw("create table t (n integer)"))
        const count = CompiledQuery.raw("select count(*) as n from t")
        const held = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const transaction = yield* Effect.fork(
          db.withTransaction(
            Effect.gen(function* () {
              yield* db.execute(CompiledQuery.raw("insert into t values (1)"))
              // its own statements run at once and see its own write
              expect((yield* db.execute(count)).rows).toEqual([{ n: 1 }])
              yield* Deferred.succeed(held, undefined)
              yield* Deferred.await(release)
              yield* db.execute(CompiledQuery.raw("insert into t values (2)"))
            })
          )
        )
        yield* Deferred.await(held)
        // another fiber's read waits for the commit: it never sees the open transaction's rows
        const reader = yield* Effect.fork(db.execute(count))
        yield* Effect.sleep("50 millis")
        expect(reader.unsafePoll()).toBeNull()
        expect(other.prepare("select count(*) as n from t").get()).toEqual({ n: 0 })
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(transaction)
        expect((yield* Fiber.join(reader)).rows).toEqual([{ n: 2 }])
        // a rolled back transaction's statements, run at once, are undone
        const rolledBack = yield* Effect.exit(
          db.withTransaction(Effect.zipRight(db.execute(CompiledQuery.raw("insert into t values (3)")), Effect.fail("no")))
        )
        expect(rolledBack._tag).toBe("Failure")
        expect((yield* db.execute(count)).rows).toEqual([{ n: 2 }])
        other.close()
      })
    )
  )
})
