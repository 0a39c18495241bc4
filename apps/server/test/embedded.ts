/**
 * The README's embedding example (`fixtures/readme-embedding.ts`) for the tests that call it:
 * it keeps its database at ./data/switchboard.sqlite, so it runs in a temporary folder of its
 * own, with a store made there.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Stores } from "@switchboard/domain"
import { StoreSqlite } from "@switchboard/store-sqlite"
import { Effect, Layer } from "effect"

export type EmbeddedApp = typeof import("./fixtures/readme-embedding.js")

let instances = 0

/** The example started in a new folder named from `prefix`; the store's test key; `stop` closes it and removes the folder. */
export const startEmbedded = async (prefix: string): Promise<{ app: EmbeddedApp; key: string; stop: () => Promise<void> }> => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const cwd = process.cwd()
  let app: EmbeddedApp | undefined
  const stop = async () => {
    await app?.close()
    process.chdir(cwd)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    process.chdir(dir)
    // a module of its own each time (the test files of one fork share their modules, and the
    // example keeps its handler at the top level): the query makes it a new module
    const example = `${new URL("./fixtures/readme-embedding.ts", import.meta.url).pathname}?instance=${++instances}`
    app = (await import(/* @vite-ignore */ example)) as EmbeddedApp
    const created = await Effect.runPromise(
      Stores.create({ name: "Embedded shop" }).pipe(
        Effect.provide(Layer.orDie(StoreSqlite.layer({ filename: join(dir, "data/switchboard.sqlite") })))
      )
    )
    return { app, key: created.testKey, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
