/**
 * The dialects every end-to-end test runs on, once each, from this one list:
 *
 *     for (const dialect of DIALECTS) describe.skipIf(!dialect.available)(`… (${dialect.name})`, …)
 *
 * A dialect's `createDatabase` gives a fresh, empty database of one run as the server's
 * `DATABASE_URL` (a SQLite file path, or a PostgreSQL URL) and removes it on `drop`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPostgresDatabase, postgresAvailable, type TestDatabase } from "./postgres.js"

export interface Dialect {
  readonly id: "sqlite" | "postgres"
  /** As test names show it. */
  readonly name: "SQLite" | "PostgreSQL"
  /** False when its server is unreachable and the run does not require it (see `postgresAvailable`). */
  readonly available: boolean
  /** Whether several `serve` and `worker` processes may share one database (PostgreSQL yes; SQLite runs one process). */
  readonly multiProcess: boolean
  readonly createDatabase: () => Promise<TestDatabase>
}

/** A SQLite file in a folder that does not exist yet (the server creates both), in a fresh temporary folder. */
export const createSqliteDatabase = async (): Promise<TestDatabase> => {
  const dir = mkdtempSync(join(tmpdir(), "sb-test-"))
  return { url: join(dir, "nested", "switchboard.sqlite"), drop: async () => rmSync(dir, { recursive: true, force: true }) }
}

export const SQLITE: Dialect = { id: "sqlite", name: "SQLite", available: true, multiProcess: false, createDatabase: createSqliteDatabase }

export const POSTGRES: Dialect = {
  id: "postgres",
  name: "PostgreSQL",
  available: postgresAvailable,
  multiProcess: true,
  createDatabase: () => createPostgresDatabase()
}

export const DIALECTS: ReadonlyArray<Dialect> = [SQLITE, POSTGRES]
