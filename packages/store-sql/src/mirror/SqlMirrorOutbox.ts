/** The MirrorOutbox port over `mirror_outbox`: every move a compare-and-set on (id, pending, attempt). */
import { MirrorOutbox } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { findAll, findOne, scoped } from "../internal/Scoped.js"
import { outboxColumns } from "./Tables.js"

export const make: Effect.Effect<MirrorOutbox.MirrorOutbox["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  const move = (id: string, attempt: number, set: { readonly status: MirrorOutbox.Status; readonly attempt: number; readonly updated_at: number }) =>
    Effect.map(
      db.query((k) =>
        k.updateTable("mirror_outbox").set(set).where("id", "=", id).where("status", "=", "pending").where("attempt", "=", attempt).executeTakeFirst()
      ),
      (result) => Number(result.numUpdatedRows) === 1
    )
  return MirrorOutbox.MirrorOutbox.of({
    insert: (entry) => Effect.asVoid(db.query((k) => k.insertInto("mirror_outbox").values(outboxColumns.toRow(entry)).execute())),
    find: (id) => findOne(db, (k) => k.selectFrom("mirror_outbox").selectAll().where("id", "=", id), outboxColumns.fromRow),
    claim: (id, attempt, now) => move(id, attempt, { status: "pending", attempt: attempt + 1, updated_at: now }),
    finish: (id, attempt, status, now) => move(id, attempt, { status, attempt, updated_at: now }),
    pending: (tenant, kind) =>
      findAll(
        db,
        (k) =>
          scoped(k, "mirror_outbox", tenant).selectAll().where("kind", "=", kind).where("status", "=", "pending").orderBy("created_at").orderBy("id"),
        outboxColumns.fromRow
      )
  })
})

export const layer = Layer.effect(MirrorOutbox.MirrorOutbox, make)
