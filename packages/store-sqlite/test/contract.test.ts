import { contractSuite } from "@switchboard/store-sql/testing"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StoreSqlite } from "../src/index.js"

contractSuite("sqlite", () =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "sb-sqlite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ),
      (dir) => StoreSqlite.layer({ filename: join(dir, "nested", "store.sqlite") })
    )
  )
)
