/**
 * The Inbox port over the `inbox` table: operator webhooks as received, kept for audit.
 * Entries are inserted by one statement per batch, compiled once per row count and bound by
 * position (`multiRow`): the intake's group commit builds no query per POST. A batch's reads
 * and marks are compiled once per number of ids (`preparedLists`).
 */
import { Inbox, InboxIntake } from "@switchboard/domain"
import { Clock, Effect, Layer } from "effect"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import { multiRow } from "../internal/Prepared.js"
import { preparedLists } from "../internal/PreparedLists.js"
import { inboxColumns } from "./Tables.js"

export const make: Effect.Effect<Inbox.Inbox["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  /** Rows of (id, kind, body, received_at), unprocessed; a statement kept for every batch size the intake writes. */
  const insertRows = multiRow(
    4,
    (rows) =>
      db.kysely
        .insertInto("inbox")
        .values(rows.map(([id, kind, body, receivedAt]) => ({ id, kind, body, received_at: receivedAt, processed_at: null, outcome: null }))),
    InboxIntake.MAX_BATCH
  )
  /** A batch's entries by id, and their mark as processed: compiled once per number of ids. */
  const findRows = preparedLists((_: Record<string, never>, [ids]) =>
    db.kysely.selectFrom("inbox").select(["id", "kind", "body", "received_at"]).where("id", "in", ids)
  )
  const markRows = preparedLists((p: { now: number; outcome: string }, [ids]) =>
    db.kysely.updateTable("inbox").set({ processed_at: p.now, outcome: p.outcome }).where("id", "in", ids)
  )
  const insertGroup = (group: ReadonlyArray<Inbox.InboxEntry>) => {
    const values = new Array<unknown>(group.length * 4)
    for (let i = 0; i < group.length; i++) {
      const row = inboxColumns.toRow(group[i])
      values[i * 4] = row.id
      values[i * 4 + 1] = row.kind
      values[i * 4 + 2] = row.body
      values[i * 4 + 3] = row.received_at
    }
    return db.execute(insertRows.flat(values, group.length))
  }
  return Inbox.Inbox.of({
    insert: (entries) =>
      entries.length === 0
        ? Effect.void
        : entries.length <= InboxIntake.MAX_BATCH
          ? Effect.asVoid(insertGroup(entries))
          : Effect.asVoid(Chunks.forEach(entries, InboxIntake.MAX_BATCH, insertGroup)),

    find: (ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : db.execute(findRows({}, [ids])).pipe(
            Effect.map(({ rows }) => {
              const byId = new Map(rows.map((row) => [row.id, inboxColumns.fromRow(row)]))
              return ids.flatMap((id) => byId.get(id) ?? [])
            })
          ),

    markProcessed: (ids, outcome) =>
      Effect.gen(function* () {
        if (ids.length === 0) return
        const now = yield* Clock.currentTimeMillis
        yield* db.execute(markRows({ now, outcome }, [ids]))
      })
  })
})

export const layer: Layer.Layer<Inbox.Inbox, never, Database> = Layer.effect(Inbox.Inbox, make)
