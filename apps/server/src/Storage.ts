/** Storage chosen by `DATABASE_URL` (SQLite file or PostgreSQL); the store's layer runs migrations when it starts. */
import * as StorePostgres from "@switchboard/store-postgres"
import * as StoreSqlite from "@switchboard/store-sqlite"
import { Effect, Layer } from "effect"
import * as AppConfig from "./Config.js"

export const layer = Layer.unwrapEffect(
  Effect.map(AppConfig.database, (db) =>
    db._tag === "postgres" ? StorePostgres.layer({ url: db.url }) : StoreSqlite.layer({ filename: db.filename })
  )
)

/** Applies pending migrations; answers the database kind and the names applied. */
export const migrate = Effect.gen(function* () {
  const db = yield* AppConfig.database
  const applied = yield* db._tag === "postgres" ? StorePostgres.migrate(db.url) : StoreSqlite.migrate(db.filename)
  return { database: db._tag, applied }
})
