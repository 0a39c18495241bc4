/**
 * The MediaRepo port over `media` and `media_operator_copies`. Every statement is scoped by
 * the store: another store's media id finds nothing.
 */
import { MediaPorts, type Media } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { Database } from "../Database.js"
import { scoped, scopedDelete } from "../internal/Scoped.js"
import { mediaColumns } from "./Tables.js"

export const make: Effect.Effect<MediaPorts.MediaRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const find = (storeId: string, id: string) =>
    Effect.gen(function* () {
      const row = yield* db.query((k) => scoped(k, "media", { storeId }).selectAll().where("id", "=", id).executeTakeFirst())
      if (row === undefined) return Option.none<Media.Media>()
      const copies = yield* db.query((k) => k.selectFrom("media_operator_copies").selectAll().where("media_id", "=", id).execute())
      const operatorCopies: Record<string, Media.OperatorCopy> = {}
      for (const c of copies) operatorCopies[c.phone_number_id] = { id: c.operator_media_id, uploadedAt: Number(c.uploaded_at) }
      return Option.some<Media.Media>({ ...mediaColumns.fromRow(row), operatorCopies })
    })

  return MediaPorts.MediaRepo.of({
    insert: (media) => db.query((k) => k.insertInto("media").values(mediaColumns.toRow(media)).execute()).pipe(Effect.asVoid),

    find,

    remove: (storeId, id) =>
      db
        .query((k) => scopedDelete(k, "media", { storeId }).where("id", "=", id).executeTakeFirst())
        .pipe(Effect.map((result) => result.numDeletedRows > 0n)),

    setOperatorCopy: (storeId, id, phoneNumberId, copy) =>
      db
        .query((k) =>
          k
            .insertInto("media_operator_copies")
            .columns(["media_id", "phone_number_id", "operator_media_id", "uploaded_at"])
            .expression((eb) =>
              eb
                .selectFrom("media")
                .select([
                  "id",
                  eb.val(phoneNumberId).as("phone_number_id"),
                  eb.val(copy.id).as("operator_media_id"),
                  eb.val(copy.uploadedAt).as("uploaded_at")
                ])
                .where("id", "=", id)
                .where("store_id", "=", storeId)
            )
            .onConflict((oc) =>
              oc.columns(["media_id", "phone_number_id"]).doUpdateSet((eb) => ({
                operator_media_id: eb.ref("excluded.operator_media_id"),
                uploaded_at: eb.ref("excluded.uploaded_at")
              }))
            )
            .execute()
        )
        .pipe(Effect.asVoid)
  })
})

export const layer: Layer.Layer<MediaPorts.MediaRepo, never, Database> = Layer.effect(MediaPorts.MediaRepo, make)
