/**
 * The MessageRepo and MessageStatusRepo ports over the `messages` table. Route methods are
 * scoped by the tenant (store id, mode); the status webhooks' lookups by the store alone.
 *
 * Status changes are single conditional UPDATEs: `advanceStatus` sets the status only
 * `WHERE id = ? AND status IN (from...)` (in the tenant) and answers whether a row changed. However many
 * identical status webhooks race, the first UPDATE moves the row out of `from` and every
 * other one matches nothing (SQLite runs one write at a time; PostgreSQL re-checks the
 * condition on the row after waiting for the winner's lock), so exactly one answers true.
 * The wamid is only ever filled in (`COALESCE`), never replaced.
 *
 * The list reads the index on (store, mode, id), newest first (migration 0006).
 *
 * Status webhooks look messages up by wamid (a batch's at once, locked in id order on
 * PostgreSQL) and advance them: one report with a statement compiled once (one per shape of
 * report), a batch's messages with `advanceStatuses`, one UPDATE … FROM a VALUES list of
 * each message's own change (its id, the status it was read in, its target, wamid and
 * error), which answers the ids it changed (RETURNING). The VALUES cells are cast, so
 * PostgreSQL knows their types. SQLite reads the whole table for such an UPDATE
 * (`SqlDialect.updateFromValues`): there each message's change is its own statement, compiled
 * once, run at once on the in-process connection.
 */
import { MessagingRepo, type Tenant } from "@switchboard/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { type CompiledQuery, sql } from "kysely"
import { Database } from "../Database.js"
import { findPage, scoped, scopedUpdate } from "../internal/Scoped.js"
import * as Chunks from "../internal/Chunks.js"
import { prepare } from "../internal/Prepared.js"
import { preparedLists } from "../internal/PreparedLists.js"
import { SqlDialect } from "../SqlDialect.js"
import { messageColumns, messageSelect as columns, type MessagesTable } from "./Tables.js"

const toMessage = messageColumns.fromRow

type AdvanceParams = {
  storeId: string
  mode: Tenant.Mode
  id: string
  to: string
  now: number
  operatorMessageId: string
  errorCode: number
  errorTitle: string
} & Record<`from${number}`, string>

export const make: Effect.Effect<
  { readonly repo: MessagingRepo.MessageRepo["Type"]; readonly status: MessagingRepo.MessageStatusRepo["Type"] },
  never,
  Database | SqlDialect
> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect

  const byId = prepare((p: { storeId: string; mode: Tenant.Mode; id: string }) =>
    scoped(db.kysely, "messages", p).select(columns).where("id", "=", p.id)
  )
  const inStore = prepare((p: { storeId: string; id: string }) =>
    scoped(db.kysely, "messages", { storeId: p.storeId }).select(columns).where("id", "=", p.id)
  )
  const byOperatorId = prepare((p: { storeId: string; operatorMessageId: string }) =>
    scoped(db.kysely, "messages", { storeId: p.storeId }).select(columns).where("operator_message_id", "=", p.operatorMessageId).limit(1)
  )
  /** A batch's messages by wamid, in id order (the lock order), locked where the store can; compiled once per number of wamids. */
  const byOperatorIds = preparedLists((p: { storeId: string }, [wamids]) =>
    scoped(db.kysely, "messages", { storeId: p.storeId })
      .select(columns)
      .where("operator_message_id", "in", wamids)
      .orderBy("id")
      .$if(dialect.lockRows, (q) => q.forUpdate())
  )
  const markAccepted = prepare((p: { storeId: string; mode: Tenant.Mode; id: string; operatorMessageId: string; now: number }) =>
    scopedUpdate(db.kysely, "messages", p)
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
        scopedUpdate(db.kysely, "messages", p)
          .set((eb) => ({
            status: p.to,
            updated_at: p.now,
            ...(withOperatorId ? { operator_message_id: eb.fn.coalesce("operator_message_id", eb.val(p.operatorMessageId)) } : {}),
            ...(withError ? { error_code: p.errorCode, error_title: p.errorTitle } : {})
          }))
          .where("id", "=", p.id)
          .where(
            "status",
            "in",
            Array.from({ length: fromCount }, (_, i) => p[`from${i}`])
          )
      )
      advanceQueries.set(key, query)
    }
    return query
  }

  /** Each message's own conditional change, in one statement (see the header). */
  const advanceMany = (storeId: string, now: number, changes: ReadonlyArray<MessagingRepo.StatusChange>) =>
    sql<{ readonly id: string }>`with v (id, from_status, to_status, wamid, error_code, error_title) as (values ${sql.join(
      changes.map(
        (c) =>
          sql`(cast(${c.id} as text), cast(${c.from} as text), cast(${c.to} as text), cast(${c.operatorMessageId} as text), cast(${c.error?.code ?? null} as integer), cast(${c.error?.title ?? null} as text))`
      )
    )})
    update messages set
      status = v.to_status,
      operator_message_id = coalesce(messages.operator_message_id, v.wamid),
      error_code = case when v.error_code is null then messages.error_code else v.error_code end,
      error_title = case when v.error_code is null then messages.error_title else v.error_title end,
      updated_at = ${now}
    from v
    where messages.id = v.id and messages.store_id = ${storeId} and messages.status = v.from_status
    returning messages.id`

  /**
   * One message's change of `advanceStatuses`, compiled once (with and without an error), for
   * a dialect whose UPDATE … FROM a VALUES list reads the whole table (`SqlDialect.updateFromValues`).
   */
  const advanceOne = (withError: boolean) =>
    prepare((p: { storeId: string; id: string; from: string; to: string; wamid: string; errorCode: number; errorTitle: string; now: number }) =>
      scopedUpdate(db.kysely, "messages", { storeId: p.storeId })
        .set((eb) => ({
          status: p.to as MessagesTable["status"],
          operator_message_id: eb.fn.coalesce("operator_message_id", eb.val(p.wamid)),
          ...(withError ? { error_code: p.errorCode, error_title: p.errorTitle } : {}),
          updated_at: p.now
        }))
        .where("id", "=", p.id)
        .where("status", "=", p.from as MessagesTable["status"])
    )
  const advancePlain = advanceOne(false)
  const advanceWithError = advanceOne(true)

  const first = ({ rows }: { readonly rows: ReadonlyArray<MessagesTable> }) => Option.map(Option.fromNullable(rows[0]), toMessage)

  const repo = MessagingRepo.MessageRepo.of({
    insert: (tenant, message) =>
      db
        .query((k) =>
          k
            .insertInto("messages")
            .values({ ...messageColumns.toRow(message), store_id: tenant.storeId, mode: tenant.mode })
            .execute()
        )
        .pipe(Effect.asVoid),

    findById: (tenant, id) => db.execute(byId({ storeId: tenant.storeId, mode: tenant.mode, id })).pipe(Effect.map(first)),

    list: (tenant, page) =>
      findPage(
        db,
        page,
        (k) =>
          scoped(k, "messages", tenant)
            .select(columns)
            .$if(page.status !== undefined, (q) => q.where("status", "=", page.status!))
            .$if(page.to !== undefined, (q) => q.where("to_phone", "=", page.to!)),
        toMessage
      ),

    markAccepted: (tenant, id, operatorMessageId) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const result = yield* db.execute(markAccepted({ storeId: tenant.storeId, mode: tenant.mode, id, operatorMessageId, now }))
        return (result.numAffectedRows ?? 0n) > 0n
      }),

    advanceStatus: (tenant, id, update) =>
      Effect.gen(function* () {
        if (update.from.length === 0) return false
        const now = yield* Clock.currentTimeMillis
        const params: Record<string, unknown> = {
          storeId: tenant.storeId,
          mode: tenant.mode,
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

  const status = MessagingRepo.MessageStatusRepo.of({
    findByOperatorId: (storeId, operatorMessageId) => db.execute(byOperatorId({ storeId, operatorMessageId })).pipe(Effect.map(first)),
    findByOperatorIds: (storeId, operatorMessageIds) =>
      operatorMessageIds.length === 0
        ? Effect.succeed([])
        : Effect.map(db.execute(byOperatorIds({ storeId }, [operatorMessageIds])), ({ rows }) => rows.map(toMessage)),
    findInStore: (storeId, id) => db.execute(inStore({ storeId, id })).pipe(Effect.map(first)),
    advanceStatuses: (storeId, changes) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (dialect.updateFromValues) {
          const changed = yield* Chunks.forEach(changes, 500, (group) => db.query((k) => advanceMany(storeId, now, group).execute(k)))
          return new Set(changed.flatMap(({ rows }) => rows.map((row) => row.id as MessagingRepo.StatusChange["id"])))
        }
        const changed = new Set<MessagingRepo.StatusChange["id"]>()
        for (const c of changes) {
          const params = {
            storeId,
            id: c.id,
            from: c.from,
            to: c.to,
            wamid: c.operatorMessageId,
            errorCode: c.error?.code ?? 0,
            errorTitle: c.error?.title ?? "",
            now
          }
          const result = yield* db.execute(c.error === undefined ? advancePlain(params) : advanceWithError(params))
          if ((result.numAffectedRows ?? 0n) > 0n) changed.add(c.id)
        }
        return changed
      })
  })

  return { repo, status }
})

export const layer: Layer.Layer<MessagingRepo.MessageRepo | MessagingRepo.MessageStatusRepo, never, Database | SqlDialect> = Layer.effectContext(
  Effect.map(make, ({ repo, status }) => Context.make(MessagingRepo.MessageRepo, repo).pipe(Context.add(MessagingRepo.MessageStatusRepo, status)))
)
