/** The Inbox port over the `inbox` table: operator webhooks as received, kept for audit. */
import { Inbox } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { inboxColumns } from "./Tables.js"

export const make: Effect.Effect<Inbox.Inbox["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return Inbox.Inbox.of({
    insert: (entry) =>
      db
        .query((k) =>
          k
            .insertInto("inbox")
            .values({ ...inboxColumns.toRow(entry), processed_at: null, outcome: null })
            .execute()
        )
        .pipe(Effect.asVoid),

    find: (id) =>
      db
        .query((k) => k.selectFrom("inbox").select(["id", "kind", "body", "received_at"]).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((row) => Option.map(Option.fromNullable(row), inboxColumns.fromRow))),

    markProcessed: (id, outcome) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        yield* db.query((k) => k.updateTable("inbox").set({ processed_at: now, outcome }).where("id", "=", id).execute())
      })
  })
})

export const layer: Layer.Layer<Inbox.Inbox, never, Database> = Layer.effect(Inbox.Inbox, make)
