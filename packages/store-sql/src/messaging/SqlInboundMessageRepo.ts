/**
 * The InboundMessageRepo port over the `inbound_messages` table, unique by (store, mode,
 * wamid). `record` is an insert that does nothing on conflict, so of any number of
 * deliveries of one inbound message (the operator retries webhooks) exactly one answers
 * true. It runs for every inbound message and is compiled once.
 */
import { MessagingRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"

export const make: Effect.Effect<MessagingRepo.InboundMessageRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const record = prepare(
    (p: {
      id: string
      storeId: string
      mode: Tenant.Mode
      operatorMessageId: string
      from: string
      type: string
      text: string | null
      receivedAt: number
    }) =>
      db.kysely
        .insertInto("inbound_messages")
        .values({
          id: p.id,
          store_id: p.storeId,
          mode: p.mode,
          operator_message_id: p.operatorMessageId,
          from_phone: p.from,
          type: p.type,
          text: p.text,
          received_at: p.receivedAt
        })
        .onConflict((oc) => oc.columns(["store_id", "mode", "operator_message_id"]).doNothing())
        .returning("id")
  )

  return MessagingRepo.InboundMessageRepo.of({
    record: (scope, input) =>
      db
        .execute(
          record({
            id: input.id,
            storeId: scope.storeId,
            mode: scope.mode,
            operatorMessageId: input.operatorMessageId,
            from: input.from,
            type: input.type,
            text: input.text,
            receivedAt: input.receivedAt.getTime()
          })
        )
        .pipe(Effect.map(({ rows }) => rows.length > 0))
  })
})

export const layer: Layer.Layer<MessagingRepo.InboundMessageRepo, never, Database> = Layer.effect(
  MessagingRepo.InboundMessageRepo,
  make
)
