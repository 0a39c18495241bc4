/**
 * The SQLite store: better-sqlite3 in WAL mode behind Kysely's SQLite dialect, the shared
 * migrations and the shared repositories. One process (HTTP and worker together) owns the
 * file; the CLI may open it briefly alongside (busy timeout, immediate transactions).
 */
import { Database, Migrations, Repositories, SqlDialect, type Tables } from "@switchboard/store-sql"
import Sqlite from "better-sqlite3"
import { DataVersion } from "@switchboard/domain"
import { Context, Data, Effect, Layer, type Scope } from "effect"
import { Kysely, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely"
import { existsSync, mkdirSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export interface Options {
  /** A path, `:memory:`, or a `file:` URL (`file:./data/x.sqlite`, `file:///abs/x.sqlite`). */
  readonly filename: string
  /** Prepared statements kept per connection, least recently used evicted (default 500). */
  readonly statementCacheSize?: number | undefined
}

/** The file path of a path or `file:` URL; `:memory:` stays as is. */
export const parseFilename = (filename: string): string => {
  if (!filename.startsWith("file:")) return filename
  if (filename.startsWith("file://")) return fileURLToPath(filename)
  const path = decodeURIComponent(filename.slice("file:".length).split(/[?#]/)[0])
  return path === "" ? ":memory:" : path
}

/**
 * Creates `dir` and its missing parents one level at a time, so a path that cannot be made
 * fails at once with the first error (`mkdirSync`'s recursive mode loops for ever under a
 * pseudo file system such as `/proc`).
 */
const makeDirectory = (dir: string): void => {
  const missing: Array<string> = []
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing.push(current)
    if (dirname(current) === current) break
  }
  for (const path of missing.reverse()) mkdirSync(path)
}

/** Opens the file (creating its folder) with the pragmas the store relies on; throws at once when it cannot. */
export const open = (filename: string): Sqlite.Database => {
  const path = parseFilename(filename)
  if (path !== ":memory:") makeDirectory(dirname(resolve(path)))
  const db = new Sqlite(path)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  // a checkpoint (and its fsync) every 10,000 WAL pages, not 1,000: large writes (a feed
  // upload, a campaign's recipients) spent a tenth of their time in checkpoints; the WAL may
  // reach about 40 MB between them
  db.pragma("wal_autocheckpoint = 10000")
  db.pragma("busy_timeout = 5000")
  db.pragma("foreign_keys = ON")
  return db
}

/**
 * The database as Kysely's dialect sees it, with two changes: statements are prepared once
 * per SQL text (Kysely's driver calls `prepare` on every query), and transactions begin
 * IMMEDIATE, taking the write lock up front so that another process's write never makes a
 * read-then-write transaction fail with SQLITE_BUSY.
 */
export const statementCache = (db: Sqlite.Database, size = 500): SqliteDatabase => {
  const cache = new Map<string, SqliteStatement>()
  return {
    close: () => {
      cache.clear()
      db.close()
    },
    prepare: (sql) => {
      const hit = cache.get(sql)
      if (hit !== undefined) {
        cache.delete(sql)
        cache.set(sql, hit)
        return hit
      }
      const statement = db.prepare(sql === "begin" ? "begin immediate" : sql) as unknown as SqliteStatement
      if (cache.size >= size) cache.delete(cache.keys().next().value!)
      cache.set(sql, statement)
      return statement
    }
  }
}

/**
 * `Database.RunNow` on the file: a compiled query run at once on its connection, through the
 * same statement cache, answering what Kysely's SQLite driver answers for it. It declines
 * (undefined) while a transaction the calling fiber does not hold is open on the connection:
 * that query waits for the transaction, through Kysely, as every query did before. Outside a
 * transaction nothing else is running on the connection (its statements are synchronous and
 * no iterator is ever left open), so the query runs alone, as the driver would run it.
 */
export const runNow =
  (db: Sqlite.Database, statements: SqliteDatabase): Database.RunNow =>
  (query, ownTransaction) => {
    if (db.inTransaction !== ownTransaction) return undefined
    const statement = statements.prepare(query.sql)
    if (statement.reader) return { rows: statement.all(query.parameters) as Array<unknown> }
    const { changes, lastInsertRowid } = statement.run(query.parameters)
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: []
    }
  }

/** The file opened, and Kysely over it (and `runNow` on the same statement cache). */
const openFile = (
  options: Options
): Effect.Effect<{ readonly db: Sqlite.Database; readonly kysely: Kysely<Tables.Tables>; readonly runNow: Database.RunNow }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const db = open(options.filename)
      const statements = statementCache(db, options.statementCacheSize)
      const kysely = new Kysely<Tables.Tables>({ dialect: new SqliteDialect({ database: statements }) })
      return { db, kysely, runNow: runNow(db, statements) }
    }),
    ({ kysely }) => Effect.promise(() => kysely.destroy())
  )

const openKysely = (options: Options): Effect.Effect<Kysely<Tables.Tables>, never, Scope.Scope> =>
  Effect.map(openFile(options), ({ kysely }) => kysely)

/** An open, migrated Kysely over the file, closed with the scope. */
export const make = (options: Options): Effect.Effect<Kysely<Tables.Tables>, Migrations.MigrationError, Scope.Scope> =>
  Effect.tap(openKysely(options), Migrations.migrate)

/**
 * The file's `DataVersion`: `PRAGMA data_version` (it changes when another connection,
 * in this process or another, commits) and `total_changes()` (rows this connection has
 * written, counted as they are written). While this connection is inside a transaction
 * there is no version: what it reads may still be rolled back.
 */
export const dataVersion = (db: Sqlite.Database): DataVersion["Type"] => {
  const version = db.prepare("PRAGMA data_version").pluck()
  const changes = db.prepare("SELECT total_changes()").pluck()
  return { current: () => (db.inTransaction ? undefined : `${version.get()}.${changes.get()}`) }
}

/**
 * A feed upload's staged rows (`product_staging`) in a TEMP table of the same shape: SQLite
 * names the temp schema first, so they never reach the WAL (written, read back once and
 * dropped; an upload's rows are its own process's, on this one connection).
 */
const stageInTemp = (db: Sqlite.Database) =>
  db.exec(
    "create temp table product_staging as select * from main.product_staging where 0; create unique index temp.product_staging_pk on product_staging (upload_id, seq)"
  )

/** `Database`, `SqlDialect` (no `FOR UPDATE` on claims) and `DataVersion` over the file, migrated at start. */
export const layerDatabase = (options: Options): Layer.Layer<Database.Database | SqlDialect.SqlDialect | DataVersion, Migrations.MigrationError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const { db, kysely, runNow } = yield* openFile(options)
      yield* Migrations.migrate(kysely)
      stageInTemp(db)
      return Context.make(Database.Database, Database.make(kysely, { runNow })).pipe(Context.add(DataVersion, dataVersion(db)))
    })
  ).pipe(Layer.merge(SqlDialect.layer(SqlDialect.sqlite)))

/** Every storage port over the file, plus `Database`, `SqlDialect` and `DataVersion` for later repositories and caches. */
export const layer = (
  options: Options
): Layer.Layer<Repositories.Services | Database.Database | SqlDialect.SqlDialect | DataVersion, Migrations.MigrationError> =>
  Repositories.layer.pipe(Layer.provideMerge(layerDatabase(options)))

/** Applies pending migrations to the file (for the CLI); answers the names applied. */
export const migrate = (filename: string, upTo?: string): Effect.Effect<ReadonlyArray<string>, Migrations.MigrationError> =>
  Effect.scoped(Effect.flatMap(openKysely({ filename }), (db) => Migrations.migrate(db, upTo)))

/** Why a backup could not be taken (no such database, the target exists or cannot be written). */
export class BackupError extends Data.TaggedError("BackupError")<{ readonly message: string }> {}

/**
 * An online backup of the database at `filename` into the new file `to`, with SQLite's backup
 * API (better-sqlite3's `backup`), while servers and workers keep writing: every page is
 * copied in one step, so the copy is the database as of one moment (a step copied in pieces
 * would start again whenever another connection writes). `to` must not exist yet.
 */
export const backup = (filename: string, to: string): Effect.Effect<{ readonly pages: number; readonly bytes: number }, BackupError> =>
  Effect.gen(function* () {
    const path = parseFilename(filename)
    const target = resolve(to)
    if (path === ":memory:") return yield* new BackupError({ message: "an in-memory database cannot be backed up" })
    if (!existsSync(path)) return yield* new BackupError({ message: `no database at ${resolve(path)}` })
    if (existsSync(target)) return yield* new BackupError({ message: `${target} already exists: name a new file` })
    if (!existsSync(dirname(target))) return yield* new BackupError({ message: `the folder ${dirname(target)} does not exist` })
    return yield* Effect.acquireUseRelease(
      Effect.try({
        try: () => new Sqlite(path, { readonly: true, fileMustExist: true, timeout: 5000 }),
        catch: (error) => new BackupError({ message: `cannot open ${resolve(path)}: ${String(error)}` })
      }),
      (db) =>
        Effect.tryPromise({
          try: () => db.backup(target, { progress: () => 0x7fffffff }),
          catch: (error) => new BackupError({ message: `cannot write ${target}: ${error instanceof Error ? error.message : String(error)}` })
        }).pipe(Effect.map(({ totalPages }) => ({ pages: totalPages, bytes: statSync(target).size }))),
      (db) => Effect.sync(() => db.close())
    )
  })
