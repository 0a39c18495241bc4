/**
 * The MessageRepo port over the `messages` table.
 *
 * Status changes are single conditional UPDATEs: `advanceStatus` sets the status only
 * `WHERE id = ? AND status IN (from...)` and answers whether a row changed. However many
 * identical status webhooks race, the first UPDATE moves the row out of `from` and every
 * other one matches nothing (SQLite runs one write at a time; PostgreSQL re-checks the
 * condition on the row after waiting for the winner's lock), so exactly one answers true.
 * The wamid is only ever filled in (`COALESCE`), never replaced.
 *
 * Status webhooks look messages up by wamid and advance them, so those statements are
 * compiled once (one update per shape of report).
 */
import { type Message, MessagingRepo, type Tenant } from "@switchboard/domain"
import { Clock, Effect, Layer, Option } from "effect"
import type { CompiledQuery, Selectable } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import type { MessagesTable } from "./Tables.js"

type MessageRow = Selectable<MessagesTable>

const columns = [
  "id",
  "store_id",
  "mode",
  "to_phone",
  "type",
  "content",
  "status",
  "operator_message_id",
  "error_code",
  "error_title",
  "flow_token",
  "created_at",
  "updated_at"
] as const

export const toMessage = (row: MessageRow): Message.Message => ({
  id: row.id,
  storeId: row.store_id,
  mode: row.mode,
  to: row.to_phone,
  type: row.type as Message.Message["type"],
  content: JSON.parse(row.content),
  status: row.status as Message.Status,
  operatorMessageId: row.operator_message_id,
  error: row.error_code === null ? null : { code: Number(row.error_code), title: row.error_title ?? "" },
  flowToken: row.flow_token,
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at))
})

type AdvanceParams = {
  id: string
  to: string
  now: number
  operatorMessageId: string
  errorCode: number
  errorTitle: string
} & Record<`from${number}`, string>

export const make: Effect.Effect<MessagingRepo.MessageRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database

  const byId = prepare((p: { storeId: string; mode: Tenant.Mode; id: string }) =>
    db.kysely.selectFrom("messages").select(columns).where("store_id", "=", p.storeId).where("mode", "=", p.mode).where("id", "=", p.id)
  )
  const byOperatorId = prepare((p: { storeId: string; operatorMessageId: string }) =>
    db.kysely
      .selectFrom("messages")
      .select(columns)
      .where("store_id", "=", p.storeId)
      .where("operator_message_id", "=", p.operatorMessageId)
      .limit(1)
  )
  const markAccepted = prepare((p: { id: string; operatorMessageId: string; now: number }) =>
    db.kysely
      .updateTable("messages")
      .set({ status: "accepted", operator_message_id: p.operatorMessageId, updated_at: p.now })
      .where("id", "=", p.id)
      .where("status", "=", "pending")
  )

  /** The conditional update for `from.length` predecessors, with or without wamid and error: compiled on first use. */
  const advanceQueries = new Map<string, (p: AdvanceParams) => CompiledQuery<unknown>>()
  const advanceQuery = (fromCount: number, withOperatorId: boolean, withError: boolean) => {
    const key = `${fromCount}:${withOperatorId}:${withError}`
    let query = advanceQueries.get(key)
    if (query === undefined) {
      query = prepare((p: AdvanceParams) =>
        db.kysely
          .updateTable("messages")
          .set((eb) => ({
            status: p.to,
            updated_at: p.now,
            ...(withOperatorId ? { operator_message_id: eb.fn.coalesce("operator_message_id", eb.val(p.operatorMessageId)) } : {}),
            ...(withError ? { error_code: p.errorCode, error_title: p.errorTitle } : {})
          }))
          .where("id", "=", p.id)
          .where("status", "in", Array.from({ length: fromCount }, (_, i) => p[`from${i}`]))
      )
      advanceQueries.set(key, query)
    }
    return query
  }

  const first = ({ rows }: { readonly rows: ReadonlyArray<MessageRow> }) => Option.map(Option.fromNullable(rows[0]), toMessage)

  return MessagingRepo.MessageRepo.of({
    insert: (message) =>
      db
        .query((k) =>
          k
            .insertInto("messages")
            .values({
              id: message.id,
              store_id: message.storeId,
              mode: message.mode,
              to_phone: message.to,
              type: message.type,
              content: JSON.stringify(message.content ?? null),
              status: message.status,
              operator_message_id: message.operatorMessageId,
              error_code: message.error?.code ?? null,
              error_title: message.error?.title ?? null,
              flow_token: message.flowToken,
              created_at: message.createdAt.getTime(),
              updated_at: message.updatedAt.getTime()
            })
            .execute()
        )
        .pipe(Effect.asVoid),

    findById: (scope, id) => db.execute(byId({ storeId: scope.storeId, mode: scope.mode, id })).pipe(Effect.map(first)),

    findByOperatorId: (storeId, operatorMessageId) =>
      db.execute(byOperatorId({ storeId, operatorMessageId })).pipe(Effect.map(first)),

    markAccepted: (id, operatorMessageId) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.execute(markAccepted({ id, operatorMessageId, now }))
        return (result.numAffectedRows ?? 0n) > 0n
      }),

    advanceStatus: (id, update) =>
      Effect.gen(function* () {
        if (update.from.length === 0) return false
        const now = yield* Clock.currentTimeMillis
        const params: Record<string, unknown> = {
          id,
          to: update.to,
          now,
          operatorMessageId: update.operatorMessageId ?? "",
          errorCode: update.error?.code ?? 0,
          errorTitle: update.error?.title ?? ""
        }
        update.from.forEach((status, i) => {
          params[`from${i}`] = status
        })
        const query = advanceQuery(update.from.length, update.operatorMessageId !== undefined, update.error !== undefined)
        const result = yield* db.execute(query(params as AdvanceParams))
        return (result.numAffectedRows ?? 0n) > 0n
      })
  })
})

export const layer: Layer.Layer<MessagingRepo.MessageRepo, never, Database> = Layer.effect(MessagingRepo.MessageRepo, make)
