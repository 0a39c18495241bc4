import { Database } from "@switchboard/store-sql"
import { runStorageContracts, storageContracts } from "@switchboard/testing/contracts"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { Effect, Layer } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StoreSqlite } from "../src/index.js"

const makeLayer = () =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "sb-sqlite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ),
      (dir) => StoreSqlite.layer({ filename: join(dir, "nested", "store.sqlite") })
    )
  )

runStorageContracts("sqlite", makeLayer, storageContracts)

// The shared suite above holds the contract's assertions; this adds what is SQLite's own.
describe("sqlite file", () => {
  it("creates a missing folder and file, in WAL mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-sqlite-file-"))
    const filename = join(dir, "a", "b", "store.sqlite")
    try {
      const mode = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const db = yield* Database.Database
            return yield* db.query((k) => sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(k))
          }).pipe(Effect.provide(StoreSqlite.layer({ filename })))
        )
      )
      expect(existsSync(filename)).toBe(true)
      expect(mode.rows[0].journal_mode).toBe("wal")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
