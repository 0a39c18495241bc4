/**
 * The PostgreSQL store: a pg Pool behind Kysely's PostgreSQL dialect, the shared migrations
 * and the shared repositories. Any number of processes may share the database: jobs are
 * claimed with `FOR UPDATE SKIP LOCKED`, and migrations run under the Migrator's advisory
 * lock, so concurrent starts apply each migration once.
 */
import { Database, JobWakeups, Migrations, Repositories, SqlDialect, type Tables } from "@switchboard/store-sql"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { CompiledQuery, Kysely, PostgresDialect } from "kysely"
import pg from "pg"
import { copyIn } from "./CopyIn.js"

export interface Options {
  /** `postgres://user:password@host:port/database` */
  readonly url: string | Redacted.Redacted<string>
  /** Connections in the pool (default 10). */
  readonly poolSize?: number | undefined
  /** How long a new connection may take before it fails (default 10000 ms): an unreachable server never hangs start-up. */
  readonly connectTimeoutMs?: number | undefined
}

/** int8 (`bigint` columns, `count(*)`) as numbers: our bigints are epoch milliseconds and counts. */
const getTypeParser: pg.CustomTypesConfig["getTypeParser"] = ((oid: number, format?: "text" | "binary") =>
  oid === pg.types.builtins.INT8 && format !== "binary"
    ? (value: string) => Number(value)
    : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"]

/**
 * The backend process ids of one process's pool connections: the notifications their commits
 * send are this process's own, whose runners its job queue already woke (`wakeups`).
 */
type Backends = Set<number>

/** A pool over `url` whose int8 values come back as numbers; its connections' backend pids are kept in `own`. */
export const makePool = (options: Options, own?: Backends): pg.Pool => {
  const pool = new pg.Pool({
    connectionString: Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types: { getTypeParser }
  })
  // An idle client that loses its connection is discarded by the pool; without a listener
  // the error event would crash the process.
  pool.on("error", () => undefined)
  if (own !== undefined) {
    const pid = (client: pg.PoolClient) => (client as unknown as { readonly processID?: number }).processID
    pool.on("connect", (client) => {
      const id = pid(client)
      if (id !== undefined) own.add(id)
    })
    pool.on("remove", (client) => {
      const id = pid(client)
      if (id !== undefined) own.delete(id)
    })
  }
  return pool
}

/** Kysely over a new pool (the pool too, for what Kysely does not do: COPY), closed with the scope. */
const openPool = (
  options: Options,
  own?: Backends
): Effect.Effect<{ readonly kysely: Kysely<Tables.Tables>; readonly pool: pg.Pool }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = makePool(options, own)
      return { kysely: new Kysely<Tables.Tables>({ dialect: new PostgresDialect({ pool }) }), pool }
    }),
    ({ kysely }) => Effect.promise(() => kysely.destroy())
  )

const openKysely = (options: Options, own?: Backends): Effect.Effect<Kysely<Tables.Tables>, never, Scope.Scope> =>
  Effect.map(openPool(options, own), ({ kysely }) => kysely)

/** A migrated Kysely over a new pool, closed with the scope. */
export const make = (options: Options, own?: Backends): Effect.Effect<Kysely<Tables.Tables>, Migrations.MigrationError, Scope.Scope> =>
  Effect.tap(openKysely(options, own), Migrations.migrate)

/** A transaction's commit that answers before it is flushed to disk (`Transactor.TransactionOptions.durable: false`). */
const RELAX_COMMIT = CompiledQuery.raw("set local synchronous_commit to off")

/** The `Database` service over a new migrated pool, with bulk loads by COPY (`Database.copyIn`). */
const makeDatabase = (options: Options, own?: Backends): Effect.Effect<Database.DatabaseShape, Migrations.MigrationError, Scope.Scope> =>
  Effect.gen(function* () {
    const { kysely, pool } = yield* openPool(options, own)
    yield* Migrations.migrate(kysely)
    return Database.make(kysely, { relaxCommit: RELAX_COMMIT, copyIn: copyIn(pool) })
  })

/**
 * `LISTEN switchboard_jobs` on a connection of its own (outside the pool), calling every
 * listener on each notification sent by another process (not by one of `own`'s backends:
 * this process's job queue wakes its runners itself, after the commit). A lost connection is
 * opened again after a second; meanwhile runners fall back to polling.
 */
const wakeups = (options: Options, own: Backends): Layer.Layer<JobWakeups.JobWakeups> =>
  Layer.scoped(
    JobWakeups.JobWakeups,
    Effect.gen(function* () {
      const listeners = new Set<() => void>()
      let client: pg.Client | undefined
      let closed = false
      let retry: ReturnType<typeof setTimeout> | undefined
      const open = () => {
        if (closed) return
        const c = new pg.Client({
          connectionString: Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url,
          connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000
        })
        client = c
        const reopen = () => {
          if (client !== c || closed) return
          client = undefined
          c.end().catch(() => undefined)
          retry = setTimeout(open, 1000)
          retry.unref()
        }
        c.on("notification", (message) => {
          if (own.has(message.processId)) return
          for (const listener of listeners) listener()
        })
        c.on("error", reopen)
        c.on("end", reopen)
        c.connect()
          .then(() => c.query(`LISTEN ${JobWakeups.CHANNEL}`))
          .catch(reopen)
      }
      yield* Effect.acquireRelease(Effect.sync(open), () =>
        Effect.promise(async () => {
          closed = true
          if (retry !== undefined) clearTimeout(retry)
          await client?.end().catch(() => undefined)
        })
      )
      return JobWakeups.JobWakeups.of({
        listen: (onWake) =>
          Effect.acquireRelease(
            Effect.sync(() => listeners.add(onWake)),
            () => Effect.sync(() => listeners.delete(onWake))
          ).pipe(Effect.asVoid)
      })
    })
  )

/** `Database` (with COPY) and `SqlDialect` (claims lock with `FOR UPDATE SKIP LOCKED`), migrated at start. */
export const layerDatabase = (options: Options, own?: Backends): Layer.Layer<Database.Database | SqlDialect.SqlDialect, Migrations.MigrationError> =>
  Layer.merge(Layer.scoped(Database.Database, makeDatabase(options, own)), SqlDialect.layer(SqlDialect.postgres))

/**
 * Every storage port over the database, plus `Database` and `SqlDialect` for later
 * repositories; the job queue wakes this process's runners on every process's NOTIFY.
 */
export const layer = (
  options: Options
): Layer.Layer<Repositories.Services | Database.Database | SqlDialect.SqlDialect, Migrations.MigrationError> => {
  const own: Backends = new Set()
  return Repositories.layer.pipe(Layer.provide(wakeups(options, own)), Layer.provideMerge(layerDatabase(options, own)))
}

/** Applies pending migrations (for the CLI); answers the names applied. */
export const migrate = (url: string | Redacted.Redacted<string>, upTo?: string): Effect.Effect<ReadonlyArray<string>, Migrations.MigrationError> =>
  Effect.scoped(Effect.flatMap(openKysely({ url, poolSize: 2 }), (db) => Migrations.migrate(db, upTo)))
