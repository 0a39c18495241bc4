/**
 * `switchboard backup --to FILE`: an online backup of the SQLite database of `DATABASE_URL`
 * into a new file, taken with SQLite's backup API while a server and its worker keep running.
 * On PostgreSQL it says to use `pg_dump` (README, "Backups and upgrades").
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as AppConfig from "../Config.js"
import { CliError, redactUrl } from "../Startup.js"

export const command = Command.make(
  "backup",
  { to: Options.text("to").pipe(Options.withDescription("The new file to write the backup to (it must not exist)")) },
  ({ to }) =>
    Effect.gen(function* () {
      const db = yield* AppConfig.database
      if (db._tag === "postgres") {
        return yield* new CliError({
          message: `backup copies a SQLite file; ${redactUrl(db.url)} is PostgreSQL: use pg_dump (see the README, "Backups and upgrades")`
        })
      }
      const StoreSqlite = yield* Effect.promise(() => import("@switchboard/store-sqlite"))
      const started = Date.now()
      const result = yield* StoreSqlite.backup(db.filename, to).pipe(Effect.mapError((e) => new CliError({ message: `backup: ${e.message}` })))
      yield* Console.log(JSON.stringify({ from: db.filename, to, pages: result.pages, bytes: result.bytes, ms: Date.now() - started }))
    })
).pipe(Command.withDescription("Copy the SQLite database to a new file while the server runs (online backup); on PostgreSQL use pg_dump"))
