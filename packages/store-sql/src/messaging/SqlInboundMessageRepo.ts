/**
 * The InboundMessageRepo port over the `inbound_messages` table, unique by (store, mode,
 * wamid). `record` is an insert that does nothing on conflict, so of any number of
 * deliveries of one inbound message (the operator retries webhooks) exactly one answers
 * true. It runs for every inbound message and is compiled once. `recordMany` (the inbox's
 * batches) is the same insert with many rows, answering the wamids it stored.
 */
import { MessagingRepo } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import { prepare } from "../internal/Prepared.js"
import { inboundMessageColumns, type InboundMessagesTable } from "./Tables.js"

type Row = { readonly [K in keyof InboundMessagesTable]: InboundMessagesTable[K] }

export const make: Effect.Effect<MessagingRepo.InboundMessageRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const record = prepare((p: Row) =>
    db.kysely
      .insertInto("inbound_messages")
      .values({
        id: p.id,
        store_id: p.store_id,
        mode: p.mode,
        operator_message_id: p.operator_message_id,
        from_phone: p.from_phone,
        type: p.type,
        text: p.text,
        received_at: p.received_at
      })
      .onConflict((oc) => oc.columns(["store_id", "mode", "operator_message_id"]).doNothing())
      .returning("id")
  )

  return MessagingRepo.InboundMessageRepo.of({
    record: (tenant, message) =>
      db
        .execute(record(inboundMessageColumns.toRow({ ...message, storeId: tenant.storeId, mode: tenant.mode })))
        .pipe(Effect.map(({ rows }) => rows.length > 0)),

    recordMany: (tenant, messages) =>
      Effect.gen(function* () {
        const stored = new Set<string>()
        for (const chunk of Chunks.chunks(messages, 500)) {
          const rows = yield* db.query((k) =>
            k
              .insertInto("inbound_messages")
              .values(chunk.map((m) => inboundMessageColumns.toRow({ ...m, storeId: tenant.storeId, mode: tenant.mode })))
              .onConflict((oc) => oc.columns(["store_id", "mode", "operator_message_id"]).doNothing())
              .returning("operator_message_id")
              .execute()
          )
          for (const row of rows) stored.add(row.operator_message_id)
        }
        return stored
      })
  })
})

export const layer: Layer.Layer<MessagingRepo.InboundMessageRepo, never, Database> = Layer.effect(MessagingRepo.InboundMessageRepo, make)
