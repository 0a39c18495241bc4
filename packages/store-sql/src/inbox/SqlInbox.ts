/** The Inbox port over the `inbox` table: operator webhooks as received, kept for audit. */
import { Inbox } from "@switchboard/domain"
import { Clock, Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { inboxColumns } from "./Tables.js"

export const make: Effect.Effect<Inbox.Inbox["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return Inbox.Inbox.of({
    insert: (entries) =>
      entries.length === 0
        ? Effect.void
        : db
            .query((k) =>
              k
                .insertInto("inbox")
                .values(entries.map((entry) => ({ ...inboxColumns.toRow(entry), processed_at: null, outcome: null })))
                .execute()
            )
            .pipe(Effect.asVoid),

    find: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : db
            .query((k) => k.selectFrom("inbox").select(["id", "kind", "body", "received_at"]).where("id", "in", ids).execute())
            .pipe(
              Effect.map((rows) => {
                const byId = new Map(rows.map((row) => [row.id, inboxColumns.fromRow(row)]))
                return ids.flatMap((id) => byId.get(id) ?? [])
              })
            ),

    markProcessed: (ids, outcome) =>
      Effect.gen(function* () {
        if (ids.length === 0) return
        const now = yield* Clock.currentTimeMillis
        yield* db.query((k) => k.updateTable("inbox").set({ processed_at: now, outcome }).where("id", "in", ids).execute())
      })
  })
})

export const layer: Layer.Layer<Inbox.Inbox, never, Database> = Layer.effect(Inbox.Inbox, make)
