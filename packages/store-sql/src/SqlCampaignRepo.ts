/**
 * The CampaignRepo port over `campaigns`, `campaign_recipients`, `campaign_counter_deltas`
 * and `campaign_lanes` (migration 0003).
 *
 * Locking order. Every write that changes several recipients of a campaign (claims,
 * retries, cancels, recounts, launch-time skips) first locks the campaign row (an UPDATE
 * of it), then touches recipients, then writes the counters: one order for all, so they
 * never deadlock each other. The lane's outcomes are the exception: they touch only rows
 * in `sending` that the lane owns (which none of those writers touch) and lock the
 * campaign row last, so it is never held while those rows wait for a status report. Status reports touch only their recipient row and
 * record their counter change as an inserted delta row, so thousands of reports per
 * second never queue on the campaign row; `compactCounters` folds the deltas into it
 * under the same lock. Reads add the deltas in the same statement (one snapshot), so a
 * fold never makes a counter jump.
 *
 * Ingestion: recipients are inserted with `INSERT … ON CONFLICT DO NOTHING`: on SQLite
 * multi-row VALUES compiled once per chunk size, in chunks that stay under its limit of
 * bound variables; on PostgreSQL (`SqlDialect.arrayParameters`) one array per column,
 * `unnest`ed, which spares the server parsing a long VALUES list.
 */
import { Campaign, CampaignRecipient, CampaignRepo, OperatorWebhooks, Pagination, type Template } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { CompiledQuery, type Kysely, type Selectable, sql } from "kysely"
import { Database } from "./Database.js"
import { prepare } from "./internal/Prepared.js"
import { SqlDialect } from "./SqlDialect.js"
import type { CampaignDatabase, CampaignRecipientsTable, CampaignsTable } from "./SqlCampaignTables.js"

type CampaignRow = Selectable<CampaignsTable> & {
  readonly d_pending: number | string
  readonly d_cancelled: number | string
  readonly d_sent: number | string
  readonly d_delivered: number | string
  readonly d_read: number | string
  readonly d_failed: number | string
}
type RecipientRow = Selectable<CampaignRecipientsTable>

const DELTA_COLUMNS = ["pending", "cancelled", "sent", "delivered", "read", "failed"] as const

const campaignColumns = [
  "c.id",
  "c.store_id",
  "c.mode",
  "c.name",
  "c.template_name",
  "c.template_language",
  "c.template_category",
  "c.template_components",
  "c.parameters",
  "c.messages_per_second",
  "c.status",
  "c.scheduled_at",
  "c.phone_number_id",
  "c.paused_reason",
  "c.total",
  "c.pending",
  "c.skipped",
  "c.cancelled",
  "c.sent",
  "c.delivered",
  "c.read",
  "c.failed",
  "c.next_seq",
  "c.cursor_seq",
  "c.launched_at",
  "c.completed_at",
  "c.cancelled_at",
  "c.created_at",
  "c.updated_at"
] as const

const recipientColumns = [
  "id",
  "campaign_id",
  "seq",
  "phone",
  "input",
  "customer_id",
  "parameters",
  "status",
  "skip_reason",
  "failure_code",
  "failure_reason",
  "retryable",
  "operator_message_id",
  "lane_attempt",
  "sending_at",
  "sent_at",
  "delivered_at",
  "read_at",
  "updated_at"
] as const

const num = (v: number | string | null | undefined): number => (v === null || v === undefined ? 0 : Number(v))
const date = (v: number | null): Date | null => (v === null ? null : new Date(Number(v)))
const nullableNumber = (v: number | null): number | null => (v === null ? null : Number(v))

const toCampaign = (row: CampaignRow): Campaign.Campaign => ({
  id: row.id,
  storeId: row.store_id,
  mode: row.mode,
  name: row.name,
  templateName: row.template_name,
  templateLanguage: row.template_language,
  parameters: JSON.parse(row.parameters) as ReadonlyArray<string>,
  templateCategory: row.template_category as Template.Category | null,
  templateComponents: row.template_components === null ? null : (JSON.parse(row.template_components) as ReadonlyArray<Template.Component>),
  messagesPerSecond: nullableNumber(row.messages_per_second),
  status: row.status as Campaign.Status,
  scheduledAt: date(row.scheduled_at),
  phoneNumberId: row.phone_number_id,
  pausedReason: row.paused_reason,
  counters: {
    total: num(row.total),
    pending: num(row.pending) + num(row.d_pending),
    skipped: num(row.skipped),
    cancelled: num(row.cancelled) + num(row.d_cancelled),
    sent: num(row.sent) + num(row.d_sent),
    delivered: num(row.delivered) + num(row.d_delivered),
    read: num(row.read) + num(row.d_read),
    failed: num(row.failed) + num(row.d_failed)
  },
  launchedAt: date(row.launched_at),
  completedAt: date(row.completed_at),
  cancelledAt: date(row.cancelled_at),
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at))
})

const toRecipient = (row: RecipientRow): CampaignRecipient.Recipient => ({
  id: row.id,
  campaignId: row.campaign_id,
  seq: Number(row.seq),
  phone: row.phone,
  input: row.input ?? row.phone ?? "",
  customerId: row.customer_id,
  parameters: row.parameters === null ? null : (JSON.parse(row.parameters) as ReadonlyArray<string>),
  status: row.status as CampaignRecipient.Status,
  skipReason: row.skip_reason as CampaignRecipient.SkipReason | null,
  failure:
    row.status === "failed" && row.failure_code !== null
      ? { code: Number(row.failure_code), reason: row.failure_reason ?? "failed", retryable: Number(row.retryable) === 1 }
      : null,
  operatorMessageId: row.operator_message_id,
  sentAt: nullableNumber(row.sent_at),
  deliveredAt: nullableNumber(row.delivered_at),
  readAt: nullableNumber(row.read_at),
  updatedAt: Number(row.updated_at)
})

const Marker = Symbol.for("@switchboard/store-sql/SqlCampaignRepo/Marker")
/** Rows per INSERT: under SQLite's 32,766 bound variables (PostgreSQL allows 65,535). */
const INSERT_CHUNK = 3000
/** Accepted outcomes per UPDATE. */
const ACCEPT_CHUNK = 64

export const make: Effect.Effect<CampaignRepo.CampaignRepo["Type"], never, Database | SqlDialect> = Effect.gen(function* () {
  const db = yield* Database
  const dialect = yield* SqlDialect
  const kysely = db.kysely as unknown as Kysely<CampaignDatabase>
  const q = <A>(f: (k: Kysely<CampaignDatabase>) => Promise<A>): Effect.Effect<A> =>
    db.query((k) => f(k as unknown as Kysely<CampaignDatabase>))
  const exec = <R>(compiled: CompiledQuery<R>) => db.execute(compiled)

  /** The campaign columns plus the pending counter deltas, summed in the same statement. */
  const selectCampaigns = (k: Kysely<CampaignDatabase>) =>
    k
      .selectFrom("campaigns as c")
      .select(campaignColumns)
      .select(
        DELTA_COLUMNS.map((column) =>
          sql<number>`(select coalesce(sum(d.${sql.ref(column)}), 0) from campaign_counter_deltas d where d.campaign_id = c.id)`.as(`d_${column}`)
        )
      )

  /** Without the unfolded counter deltas: the lane reads a campaign's settings every 50 ms, never its counters. */
  const activeOfLaneQuery = prepare((p: { phoneNumberId: string }) =>
    kysely
      .selectFrom("campaigns as c")
      .select(campaignColumns)
      .where("c.status", "=", "active").where("c.phone_number_id", "=", p.phoneNumberId).orderBy("c.launched_at").orderBy("c.id")
  )

  const getById = prepare((p: { id: string }) => selectCampaigns(kysely).where("c.id", "=", p.id))
  const get = (id: string) =>
    Effect.map(exec(getById({ id })), ({ rows }) => Option.map(Option.fromNullable(rows[0] as CampaignRow | undefined), toCampaign))

  /** Locks the campaign row until the transaction ends (the first step of every multi-row write); answers whether it exists. */
  const lockCampaign = prepare((p: { id: string }) =>
    kysely
      .updateTable("campaigns")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", p.id)
      .returning(["id", "cursor_seq", "status"])
  )
  const lock = (id: string) => Effect.map(exec(lockCampaign({ id })), ({ rows }) => rows[0])

  /** Adds to the counters and lowers the cursor to `lowerCursorTo` (when given); one statement compiled once. */
  const countersStatement = prepare(
    (p: { id: string; total: number; pending: number; skipped: number; cancelled: number; failed: number; lowerTo: number }) =>
      kysely
        .updateTable("campaigns")
        .set((eb) => ({
          total: eb("total", "+", p.total),
          pending: eb("pending", "+", p.pending),
          skipped: eb("skipped", "+", p.skipped),
          cancelled: eb("cancelled", "+", p.cancelled),
          failed: eb("failed", "+", p.failed),
          cursor_seq: sql<number>`(case when cursor_seq > ${p.lowerTo} then ${p.lowerTo} else cursor_seq end)`
        }))
        .where("id", "=", p.id)
  )
  const addToCounters = (id: string, delta: Partial<Record<"total" | "pending" | "skipped" | "cancelled" | "failed", number>>, lowerCursorTo?: number) =>
    Effect.suspend(() => {
      const d = { total: delta.total ?? 0, pending: delta.pending ?? 0, skipped: delta.skipped ?? 0, cancelled: delta.cancelled ?? 0, failed: delta.failed ?? 0 }
      if (d.total === 0 && d.pending === 0 && d.skipped === 0 && d.cancelled === 0 && d.failed === 0 && lowerCursorTo === undefined) return Effect.void
      return Effect.asVoid(exec(countersStatement({ id, ...d, lowerTo: lowerCursorTo ?? Number.MAX_SAFE_INTEGER })))
    })

  // ---- ingestion ----------------------------------------------------------------------

  /**
   * The INSERT of `n` recipient rows, compiled once per `n`: compiled with a marker per
   * (row, column), whose positions in the parameter list are recorded, so a call fills a
   * flat array directly (no per-value lookup by name).
   */
  const insertStatements = new Map<number, (campaignId: string, now: number, rows: ReadonlyArray<Row>, from: number) => CompiledQuery<unknown>>()
  const insertStatement = (n: number) => {
    let statement = insertStatements.get(n)
    if (statement === undefined) {
      const marker = (row: number, column: number) => ({ [Marker]: true, row, column })
      const compiled = kysely
        .insertInto("campaign_recipients")
        .values(
          Array.from({ length: n }, (_, i) => ({
            id: marker(i, 0) as unknown as string,
            campaign_id: marker(i, 1) as unknown as string,
            seq: marker(i, 2) as unknown as number,
            phone: marker(i, 3) as unknown as string,
            input: marker(i, 4) as unknown as string,
            customer_id: marker(i, 5) as unknown as string,
            parameters: marker(i, 6) as unknown as string,
            status: marker(i, 7) as unknown as string,
            skip_reason: marker(i, 8) as unknown as string,
            retryable: sql<number>`0`,
            updated_at: marker(i, 9) as unknown as number
          }))
        )
        .onConflict((oc) => oc.columns(["campaign_id", "phone"]).doNothing())
        .compile()
      const rowOf = new Int32Array(compiled.parameters.length)
      const columnOf = new Int8Array(compiled.parameters.length)
      compiled.parameters.forEach((p, i) => {
        const m = p as { readonly row: number; readonly column: number }
        rowOf[i] = m.row
        columnOf[i] = m.column
      })
      const text = compiled.sql
      statement = (campaignId, now, rows, from) => {
        const values = new Array<unknown>(rowOf.length)
        for (let i = 0; i < values.length; i++) {
          const r = rows[from + rowOf[i]]
          switch (columnOf[i]) {
            case 0: values[i] = r.id; break
            case 1: values[i] = campaignId; break
            case 2: values[i] = r.seq; break
            case 3: values[i] = r.phone; break
            case 4: values[i] = r.input; break
            case 5: values[i] = r.customerId; break
            case 6: values[i] = r.parameters; break
            case 7: values[i] = r.status; break
            case 8: values[i] = r.skipReason; break
            default: values[i] = now
          }
        }
        return CompiledQuery.raw(text, values)
      }
      if (insertStatements.size >= 64) insertStatements.delete(insertStatements.keys().next().value!)
      insertStatements.set(n, statement)
    }
    return statement
  }

  interface Row {
    readonly id: string
    readonly seq: number
    readonly phone: string | null
    readonly input: string | null
    readonly customerId: string | null
    readonly parameters: string | null
    readonly status: "pending" | "skipped"
    readonly skipReason: string | null
  }

  const affected = (result: { readonly numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n)

  /** One statement per 50,000 rows, one array parameter per column (PostgreSQL); answers how many were inserted. */
  const insertUnnest = (campaignId: string, rows: ReadonlyArray<Row>, now: number) =>
    Effect.gen(function* () {
      let count = 0
      for (let start = 0; start < rows.length; start += 50_000) {
        const chunk = rows.slice(start, start + 50_000)
        const column = <A>(f: (r: Row) => A) => chunk.map(f)
        const result = yield* q((k) =>
          sql`insert into campaign_recipients (id, campaign_id, seq, phone, input, customer_id, parameters, status, skip_reason, retryable, updated_at)
            select u.id, ${campaignId}::text, u.seq, u.phone, u.input, u.customer_id, u.parameters, u.status, u.skip_reason, 0, ${now}::bigint
            from unnest(${column((r) => r.id)}::text[], ${column((r) => r.seq)}::bigint[], ${column((r) => r.phone)}::text[],
              ${column((r) => r.input)}::text[], ${column((r) => r.customerId)}::text[], ${column((r) => r.parameters)}::text[],
              ${column((r) => r.status)}::text[], ${column((r) => r.skipReason)}::text[])
              as u(id, seq, phone, input, customer_id, parameters, status, skip_reason)
            on conflict (campaign_id, phone) do nothing`.execute(k)
        )
        count += affected(result)
      }
      return count
    })

  /** Multi-row VALUES in chunks under SQLite's bound-variable limit; answers how many were inserted. */
  const insertValues = (campaignId: string, rows: ReadonlyArray<Row>, now: number) =>
    Effect.gen(function* () {
      let count = 0
      for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
        const n = Math.min(INSERT_CHUNK, rows.length - start)
        count += affected(yield* exec(insertStatement(n)(campaignId, now, rows, start)))
      }
      return count
    })

  /**
   * Inserts rows whose seqs are `[fromSeq, fromSeq + rows.length)`; answers the ids actually
   * inserted (a phone the campaign has is not), or "all" in the common case.
   */
  const insertRows = (campaignId: string, rows: ReadonlyArray<Row>, now: number, fromSeq: number) =>
    Effect.gen(function* () {
      const count = yield* (dialect.arrayParameters ? insertUnnest(campaignId, rows, now) : insertValues(campaignId, rows, now))
      if (count === rows.length) return "all" as const
      const present = yield* q((k) =>
        k
          .selectFrom("campaign_recipients")
          .select("id")
          .where("campaign_id", "=", campaignId)
          .where("seq", ">=", fromSeq)
          .where("seq", "<", fromSeq + rows.length)
          .execute()
      )
      return new Set(present.map((r) => r.id))
    })

  // ---- lane and reports ---------------------------------------------------------------

  const claimCandidates = prepare((p: { campaignId: string; storeId: string; mode: string; cursor: number; limit: number }) =>
    kysely
      .selectFrom("campaign_recipients as r")
      .leftJoin("opt_outs as o", (join) =>
        join.on("o.store_id", "=", p.storeId).on("o.mode", "=", p.mode as "test").onRef("o.phone", "=", "r.phone")
      )
      .select(["r.id", "r.seq", "r.phone", "r.parameters", "o.phone as opted_out"])
      .where("r.campaign_id", "=", p.campaignId)
      .where("r.status", "=", "pending")
      .where("r.seq", ">=", p.cursor)
      .orderBy("r.seq")
      .limit(p.limit)
  )

  const markSending = prepare((p: { campaignId: string; from: number; to: number; laneAttempt: string; now: number }) =>
    kysely
      .updateTable("campaign_recipients")
      .set({ status: "sending", lane_attempt: p.laneAttempt, sending_at: p.now, updated_at: p.now })
      .where("campaign_id", "=", p.campaignId)
      .where("status", "=", "pending")
      .where("seq", ">=", p.from)
      .where("seq", "<=", p.to)
      .returning(["id", "seq", "phone", "parameters"])
  )

  /** Moves the cursor past a claim unless someone lowered it meanwhile (a retry, a release), and counts the skipped. */
  const advanceCursor = prepare((p: { id: string; cursor: number; next: number; skipped: number }) =>
    kysely
      .updateTable("campaigns")
      .set((eb) => ({
        cursor_seq: sql<number>`(case when cursor_seq = ${p.cursor} then ${p.next} else cursor_seq end)`,
        skipped: eb("skipped", "+", p.skipped),
        pending: eb("pending", "-", p.skipped)
      }))
      .where("id", "=", p.id)
  )

  /** Accepted outcomes, ACCEPT_CHUNK at a time, padded with ids that match nothing: one statement compiled once. */
  const acceptStatement = prepare((p: Record<string, unknown>) =>
    kysely
      .updateTable("campaign_recipients")
      .set({
        status: "accepted",
        lane_attempt: null,
        operator_message_id: sql<string>`(case id ${sql.join(
          Array.from({ length: ACCEPT_CHUNK }, (_, i) => sql`when ${p[`id${i}`]} then ${p[`wamid${i}`]}`),
          sql` `
        )} end)`,
        updated_at: p.now as number
      })
      .where("id", "in", Array.from({ length: ACCEPT_CHUNK }, (_, i) => p[`id${i}`] as string))
      .where("status", "=", "sending")
      .where("lane_attempt", "=", p.laneAttempt as string)
  )

  const findRecipientQuery = prepare((p: { id: string; storeId: string }) =>
    kysely
      .selectFrom("campaign_recipients as r")
      .innerJoin("campaigns as c", "c.id", "r.campaign_id")
      .select([
        "r.id",
        "r.campaign_id",
        "r.phone",
        "r.status",
        "r.sent_at",
        "r.delivered_at",
        "r.read_at",
        "r.operator_message_id",
        "c.store_id",
        "c.mode"
      ])
      .where("r.id", "=", p.id)
      .where("c.store_id", "=", p.storeId)
  )

  const insertDelta = prepare(
    (p: { campaignId: string; pending: number; cancelled: number; sent: number; delivered: number; read: number; failed: number }) =>
      kysely.insertInto("campaign_counter_deltas").values({
        campaign_id: p.campaignId,
        pending: p.pending,
        cancelled: p.cancelled,
        sent: p.sent,
        delivered: p.delivered,
        read: p.read,
        failed: p.failed
      })
  )

  const compactCounters = (campaignId: string) =>
    db.withTransaction(
      Effect.gen(function* () {
        if ((yield* lock(campaignId)) === undefined) return
        const deltas = yield* q((k) =>
          k.deleteFrom("campaign_counter_deltas").where("campaign_id", "=", campaignId).returning(DELTA_COLUMNS).execute()
        )
        if (deltas.length === 0) return
        const sum = { pending: 0, cancelled: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
        for (const d of deltas) for (const column of DELTA_COLUMNS) sum[column] += Number(d[column])
        yield* q((k) =>
          k
            .updateTable("campaigns")
            .set((eb) => ({
              pending: eb("pending", "+", sum.pending),
              cancelled: eb("cancelled", "+", sum.cancelled),
              sent: eb("sent", "+", sum.sent),
              delivered: eb("delivered", "+", sum.delivered),
              read: eb("read", "+", sum.read),
              failed: eb("failed", "+", sum.failed)
            }))
            .where("id", "=", campaignId)
            .execute()
        )
      })
    )

  const changedRows = (result: { readonly numUpdatedRows: bigint }): number => Number(result.numUpdatedRows)

  return CampaignRepo.CampaignRepo.of({
    insert: (c) =>
      q((k) =>
        k
          .insertInto("campaigns")
          .values({
            id: c.id,
            store_id: c.storeId,
            mode: c.mode,
            name: c.name,
            template_name: c.templateName,
            template_language: c.templateLanguage,
            template_category: c.templateCategory,
            template_components: c.templateComponents === null ? null : JSON.stringify(c.templateComponents),
            parameters: JSON.stringify(c.parameters),
            messages_per_second: c.messagesPerSecond,
            status: c.status,
            scheduled_at: c.scheduledAt?.getTime() ?? null,
            phone_number_id: c.phoneNumberId,
            paused_reason: c.pausedReason,
            ...c.counters,
            next_seq: 0,
            cursor_seq: 0,
            launched_at: c.launchedAt?.getTime() ?? null,
            completed_at: c.completedAt?.getTime() ?? null,
            cancelled_at: c.cancelledAt?.getTime() ?? null,
            created_at: c.createdAt.getTime(),
            updated_at: c.updatedAt.getTime()
          })
          .execute()
      ).pipe(Effect.asVoid),

    findById: (scope, id) =>
      q((k) =>
        selectCampaigns(k).where("c.id", "=", id).where("c.store_id", "=", scope.storeId).where("c.mode", "=", scope.mode).executeTakeFirst()
      ).pipe(Effect.map((row) => Option.map(Option.fromNullable(row as CampaignRow | undefined), toCampaign))),

    get,

    list: (scope, query) =>
      q((k) =>
        selectCampaigns(k)
          .where("c.store_id", "=", scope.storeId)
          .where("c.mode", "=", scope.mode)
          .$if(query.status !== undefined, (w) => w.where("c.status", "=", query.status!))
          .$if(query.after !== undefined, (w) => w.where("c.id", "<", query.after!))
          .orderBy("c.id", "desc")
          .limit(query.limit + 1)
          .execute()
      ).pipe(Effect.map((rows) => Pagination.sliceOf((rows as Array<CampaignRow>).map(toCampaign), query.limit))),

    updateDraft: (scope, id, patch, now) =>
      Effect.gen(function* () {
        const set: Record<string, unknown> = { updated_at: now.getTime() }
        if (patch.name !== undefined) set.name = patch.name
        if (patch.templateName !== undefined) set.template_name = patch.templateName
        if (patch.templateLanguage !== undefined) set.template_language = patch.templateLanguage
        if (patch.parameters !== undefined) set.parameters = JSON.stringify(patch.parameters)
        if (patch.scheduledAt !== undefined) set.scheduled_at = patch.scheduledAt === null ? null : patch.scheduledAt.getTime()
        if (patch.messagesPerSecond !== undefined) set.messages_per_second = patch.messagesPerSecond
        const result = yield* q((k) =>
          k
            .updateTable("campaigns")
            .set(set)
            .where("id", "=", id)
            .where("store_id", "=", scope.storeId)
            .where("mode", "=", scope.mode)
            .where("status", "=", "draft")
            .executeTakeFirst()
        )
        return changedRows(result) === 0 ? Option.none() : yield* get(id)
      }),

    deleteDraft: (scope, id) =>
      q((k) =>
        k
          .deleteFrom("campaigns")
          .where("id", "=", id)
          .where("store_id", "=", scope.storeId)
          .where("mode", "=", scope.mode)
          .where("status", "=", "draft")
          .executeTakeFirst()
      ).pipe(Effect.map((result) => Number(result.numDeletedRows) > 0)),

    transition: (id, change) =>
      Effect.gen(function* () {
        if (change.from.length === 0) return Option.none()
        const s = change.set ?? {}
        const set: Record<string, unknown> = { status: change.to, updated_at: change.now.getTime() }
        if (s.pausedReason !== undefined) set.paused_reason = s.pausedReason
        if (s.templateCategory !== undefined) set.template_category = s.templateCategory
        if (s.templateComponents !== undefined) set.template_components = JSON.stringify(s.templateComponents)
        if (s.phoneNumberId !== undefined) set.phone_number_id = s.phoneNumberId
        if (s.launchedAt !== undefined) set.launched_at = s.launchedAt.getTime()
        if (s.completedAt !== undefined) set.completed_at = s.completedAt === null ? null : s.completedAt.getTime()
        if (s.cancelledAt !== undefined) set.cancelled_at = s.cancelledAt.getTime()
        const result = yield* q((k) =>
          k.updateTable("campaigns").set(set).where("id", "=", id).where("status", "in", change.from).executeTakeFirst()
        )
        return changedRows(result) === 0 ? Option.none() : yield* get(id)
      }),

    addRecipients: (campaignId, whileStatus, recipients, now) =>
      Effect.gen(function* () {
        const n = recipients.length
        if (whileStatus.length === 0) return Option.none()
        // The seq range first, in its own short transaction (only in an allowed status), so
        // that concurrent requests of one campaign insert side by side instead of queueing
        // on the campaign row for the whole insert.
        const allocated = yield* q((k) =>
          k
            .updateTable("campaigns")
            .set((eb) => ({ next_seq: eb("next_seq", "+", n), updated_at: now.getTime() }))
            .where("id", "=", campaignId)
            .where("status", "in", whileStatus)
            .returning(["next_seq"])
            .executeTakeFirst()
        )
        if (allocated === undefined) return Option.none()
        const base = Number(allocated.next_seq) - n
        const t = now.getTime()
        const rows: Array<Row> = recipients.map((r, i) => ({
          id: r.id,
          seq: base + i,
          phone: r.phone,
          input: r.input === r.phone ? null : r.input,
          customerId: r.customerId,
          parameters: r.parameters === null ? null : JSON.stringify(r.parameters),
          status: r.status,
          skipReason: r.skipReason
        }))
        // in phone order: two requests that share phones take their row locks in the same order (no deadlock)
        const byPhone = [...rows].sort((a, b) => (a.phone === b.phone ? 0 : a.phone === null ? 1 : b.phone === null ? -1 : a.phone < b.phone ? -1 : 1))
        return yield* db.withTransaction(
          Effect.gen(function* () {
            const inserted = yield* insertRows(campaignId, byPhone, t, base)
            const isInserted = (r: Row) => inserted === "all" || inserted.has(r.id)
            // a phone the campaign already had: stored as a skipped duplicate entry without the phone
            const duplicates = inserted === "all"
              ? []
              : rows.filter((r) => !isInserted(r)).map((r): Row => ({ ...r, phone: null, input: r.input ?? r.phone, parameters: null, status: "skipped", skipReason: "duplicate" }))
            if (duplicates.length > 0) {
              if (dialect.arrayParameters) yield* insertUnnest(campaignId, duplicates, t)
              else yield* insertValues(campaignId, duplicates, t)
            }
            const skipped: Record<CampaignRecipient.SkipReason, number> = { opted_out: 0, duplicate: duplicates.length, invalid_number: 0, unknown_customer: 0 }
            let added = 0
            for (const r of rows) {
              if (!isInserted(r)) continue
              if (r.status === "pending") added++
              else skipped[r.skipReason as CampaignRecipient.SkipReason]++
            }
            const counted = yield* q((k) =>
              k
                .updateTable("campaigns")
                .set((eb) => ({ total: eb("total", "+", n), pending: eb("pending", "+", added), skipped: eb("skipped", "+", n - added) }))
                .where("id", "=", campaignId)
                .returning("total")
                .executeTakeFirstOrThrow()
            )
            return Option.some({ added, skipped, total: Number(counted.total) })
          })
        )
      }),

    listRecipients: (campaignId, query) =>
      q((k) =>
        k
          .selectFrom("campaign_recipients")
          .select(recipientColumns)
          .where("campaign_id", "=", campaignId)
          .$if(query.status !== undefined, (w) => w.where("status", "=", query.status!))
          .$if(query.afterSeq !== undefined, (w) => w.where("seq", ">", query.afterSeq!))
          .orderBy("seq")
          .limit(query.limit + 1)
          .execute()
      ).pipe(Effect.map((rows) => Pagination.sliceOf(rows.map(toRecipient), query.limit))),

    hasPending: (campaignId) =>
      q((k) =>
        k.selectFrom("campaign_recipients").select("id").where("campaign_id", "=", campaignId).where("status", "=", "pending").limit(1).executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

    hasSending: (campaignId) =>
      q((k) =>
        k.selectFrom("campaign_recipients").select("id").where("campaign_id", "=", campaignId).where("status", "=", "sending").limit(1).executeTakeFirst()
      ).pipe(Effect.map((row) => row !== undefined)),

    skipOptedOut: (campaign, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lock(campaign.id)) === undefined) return 0
          const result = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "skipped", skip_reason: "opted_out", updated_at: now.getTime() })
              .where("campaign_id", "=", campaign.id)
              .where("status", "=", "pending")
              .where("phone", "in", (eb) =>
                eb.selectFrom("opt_outs").select("phone").where("store_id", "=", campaign.storeId).where("mode", "=", campaign.mode)
              )
              .executeTakeFirst()
          )
          const n = changedRows(result)
          yield* addToCounters(campaign.id, { pending: -n, skipped: n })
          return n
        })
      ),

    retryFailed: (campaignId, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lock(campaignId)) === undefined) return 0
          const found = yield* q((k) =>
            k
              .selectFrom("campaign_recipients")
              .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min<number>("seq").as("min_seq")])
              .where("campaign_id", "=", campaignId)
              .where("status", "=", "failed")
              .where("retryable", "=", 1)
              .executeTakeFirstOrThrow()
          )
          if (Number(found.n) === 0) return 0
          const result = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({
                status: "pending",
                failure_code: null,
                failure_reason: null,
                retryable: 0,
                lane_attempt: null,
                sending_at: null,
                operator_message_id: null,
                updated_at: now.getTime()
              })
              .where("campaign_id", "=", campaignId)
              .where("status", "=", "failed")
              .where("retryable", "=", 1)
              .executeTakeFirst()
          )
          const n = changedRows(result)
          yield* addToCounters(campaignId, { pending: n, failed: -n }, Number(found.min_seq))
          return n
        })
      ),

    cancelPending: (campaignId, input) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lock(campaignId)) === undefined) return 0
          const t = input.now.getTime()
          const pending = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "cancelled", updated_at: t })
              .where("id", "in", (eb) =>
                eb
                  .selectFrom("campaign_recipients")
                  .select("id")
                  .where("campaign_id", "=", campaignId)
                  .where("status", "=", "pending")
                  .orderBy("seq")
                  .limit(input.limit)
              )
              .where("status", "=", "pending")
              .executeTakeFirst()
          )
          const stale = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: "cancelled", lane_attempt: null, updated_at: t })
              .where("campaign_id", "=", campaignId)
              .where("status", "=", "sending")
              .where("sending_at", "<", input.staleSendingBefore)
              .executeTakeFirst()
          )
          const n = changedRows(pending) + changedRows(stale)
          yield* addToCounters(campaignId, { pending: -n, cancelled: n })
          return n
        })
      ),

    recount: (campaignId) =>
      db.withTransaction(
        Effect.gen(function* () {
          if ((yield* lock(campaignId)) === undefined) return Option.none()
          // rows and deltas in one statement (one snapshot): base = recount - deltas, so base + deltas = recount
          const counted = yield* q((k) =>
            k
              .selectFrom("campaign_recipients")
              .select((eb) => [
                eb.fn.countAll<number>().as("total"),
                sql<number>`coalesce(sum(case when status in ('pending', 'sending') then 1 else 0 end), 0)`.as("pending"),
                sql<number>`coalesce(sum(case when status = 'skipped' then 1 else 0 end), 0)`.as("skipped"),
                sql<number>`coalesce(sum(case when status = 'cancelled' then 1 else 0 end), 0)`.as("cancelled"),
                sql<number>`coalesce(sum(case when status = 'failed' then 1 else 0 end), 0)`.as("failed"),
                eb.fn.count<number>("sent_at").as("sent"),
                eb.fn.count<number>("delivered_at").as("delivered"),
                eb.fn.count<number>("read_at").as("read"),
                ...DELTA_COLUMNS.map((column) =>
                  sql<number>`(select coalesce(sum(d.${sql.ref(column)}), 0) from campaign_counter_deltas d where d.campaign_id = ${campaignId})`.as(`d_${column}`)
                )
              ])
              .where("campaign_id", "=", campaignId)
              .executeTakeFirstOrThrow()
          )
          const c = counted as unknown as Record<string, number | string>
          yield* q((k) =>
            k
              .updateTable("campaigns")
              .set({
                total: num(c.total),
                skipped: num(c.skipped),
                pending: num(c.pending) - num(c.d_pending),
                cancelled: num(c.cancelled) - num(c.d_cancelled),
                failed: num(c.failed) - num(c.d_failed),
                sent: num(c.sent) - num(c.d_sent),
                delivered: num(c.delivered) - num(c.d_delivered),
                read: num(c.read) - num(c.d_read)
              })
              .where("id", "=", campaignId)
              .execute()
          )
          return yield* get(campaignId)
        })
      ),

    compactCounters,

    findRecipient: (storeId, recipientId) =>
      exec(findRecipientQuery({ id: recipientId, storeId })).pipe(
        Effect.map(({ rows }) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            id: row.id,
            campaignId: row.campaign_id,
            storeId: row.store_id,
            mode: row.mode,
            phone: row.phone,
            operatorMessageId: row.operator_message_id,
            progress: {
              status: row.status as CampaignRecipient.Status,
              sentAt: nullableNumber(row.sent_at),
              deliveredAt: nullableNumber(row.delivered_at),
              readAt: nullableNumber(row.read_at)
            }
          }))
        )
      ),

    advanceRecipient: (ref, next, operatorMessageId, delta, now) =>
      Effect.gen(function* () {
        const from = ref.progress
        const result = yield* q((k) =>
          k
            .updateTable("campaign_recipients")
            .set((eb) => ({
              status: next.status,
              sent_at: next.sentAt,
              delivered_at: next.deliveredAt,
              read_at: next.readAt,
              ...(next.failure !== null
                ? { failure_code: next.failure.code, failure_reason: next.failure.reason, retryable: next.failure.retryable ? 1 : 0 }
                : {}),
              ...(from.status === "sending" || from.status === "pending" || from.status === "cancelled" ? { lane_attempt: null } : {}),
              ...(operatorMessageId !== null ? { operator_message_id: eb.fn.coalesce("operator_message_id", eb.val(operatorMessageId)) } : {}),
              updated_at: now
            }))
            .where("id", "=", ref.id)
            .where("status", "=", from.status)
            .where("sent_at", from.sentAt === null ? "is" : "=", from.sentAt)
            .where("delivered_at", from.deliveredAt === null ? "is" : "=", from.deliveredAt)
            .where("read_at", from.readAt === null ? "is" : "=", from.readAt)
            .executeTakeFirst()
        )
        if (changedRows(result) === 0) return false
        const d = {
          campaignId: ref.campaignId,
          pending: delta.pending ?? 0,
          cancelled: delta.cancelled ?? 0,
          sent: delta.sent ?? 0,
          delivered: delta.delivered ?? 0,
          read: delta.read ?? 0,
          failed: delta.failed ?? 0
        }
        if (d.pending !== 0 || d.cancelled !== 0 || d.sent !== 0 || d.delivered !== 0 || d.read !== 0 || d.failed !== 0) {
          yield* exec(insertDelta(d))
        }
        return true
      }),

    activeOfLane: (phoneNumberId) =>
      exec(activeOfLaneQuery({ phoneNumberId })).pipe(Effect.map(({ rows }) => (rows as Array<CampaignRow>).map(toCampaign))),

    claim: (campaign, input) =>
      db.withTransaction(
        Effect.gen(function* () {
          const locked = yield* lock(campaign.id)
          if (locked === undefined || locked.status !== "active") return { recipients: [], skipped: 0 }
          const cursor = Number(locked.cursor_seq)
          const { rows } = yield* exec(
            claimCandidates({ campaignId: campaign.id, storeId: campaign.storeId, mode: campaign.mode, cursor, limit: input.limit })
          )
          if (rows.length === 0) return { recipients: [], skipped: 0 }
          const opted: Array<string> = []
          let maxSeq = cursor
          for (const row of rows) {
            if (row.opted_out !== null) opted.push(row.id)
            if (Number(row.seq) > maxSeq) maxSeq = Number(row.seq)
          }
          let skipped = 0
          if (opted.length > 0) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({ status: "skipped", skip_reason: "opted_out", updated_at: input.now })
                .where("id", "in", opted)
                .where("status", "=", "pending")
                .executeTakeFirst()
            )
            skipped = changedRows(result)
          }
          // every pending row in [cursor, maxSeq] is one the select found (or one a release just
          // put back, which is as good): one range update, its RETURNING is what was claimed
          const { rows: claimed } = yield* exec(
            markSending({ campaignId: campaign.id, from: cursor, to: maxSeq, laneAttempt: input.laneAttempt, now: input.now })
          )
          yield* exec(advanceCursor({ id: campaign.id, cursor, next: maxSeq + 1, skipped }))
          const recipients = claimed
            .map((r) => ({
              id: r.id,
              seq: Number(r.seq),
              phone: r.phone!,
              parameters: r.parameters === null ? null : (JSON.parse(r.parameters) as ReadonlyArray<string>)
            }))
            .sort((a, b) => a.seq - b.seq)
          return { recipients, skipped }
        })
      ),

    recordOutcomes: (campaignId, laneAttempt, outcomes, now) =>
      db.withTransaction(
        Effect.gen(function* () {
          if (outcomes.accepted.length === 0 && outcomes.failed.length === 0 && outcomes.released.length === 0) {
            return { accepted: 0, failed: 0, released: 0 }
          }
          // Recipient rows first, the campaign row last (in addToCounters), so the campaign row is
          // not held while these rows wait for a status report's transaction to commit. No
          // writer that locks the campaign row first touches rows in `sending` of a live lane.
          let accepted = 0
          for (let start = 0; start < outcomes.accepted.length; start += ACCEPT_CHUNK) {
            const chunk = outcomes.accepted.slice(start, start + ACCEPT_CHUNK)
            const params: Record<string, unknown> = { laneAttempt, now }
            for (let i = 0; i < ACCEPT_CHUNK; i++) {
              params[`id${i}`] = i < chunk.length ? chunk[i].id : ""
              params[`wamid${i}`] = i < chunk.length ? chunk[i].operatorMessageId : null
            }
            accepted += Number((yield* exec(acceptStatement(params))).numAffectedRows ?? 0n)
          }
          let failed = 0
          const groups = new Map<string, { code: number; reason: string; retryable: boolean; ids: Array<string> }>()
          for (const f of outcomes.failed) {
            const key = `${f.code}\u0000${f.retryable}\u0000${f.reason}`
            let group = groups.get(key)
            if (group === undefined) {
              group = { code: f.code, reason: f.reason, retryable: f.retryable, ids: [] }
              groups.set(key, group)
            }
            group.ids.push(f.id)
          }
          for (const group of groups.values()) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({
                  status: "failed",
                  failure_code: group.code,
                  failure_reason: group.reason,
                  retryable: group.retryable ? 1 : 0,
                  lane_attempt: null,
                  updated_at: now
                })
                .where("id", "in", group.ids)
                .where("status", "=", "sending")
                .where("lane_attempt", "=", laneAttempt)
                .executeTakeFirst()
            )
            failed += changedRows(result)
          }
          let released = 0
          let minSeq: number | undefined
          if (outcomes.released.length > 0) {
            const result = yield* q((k) =>
              k
                .updateTable("campaign_recipients")
                .set({ status: "pending", lane_attempt: null, sending_at: null, updated_at: now })
                .where("id", "in", outcomes.released.map((r) => r.id))
                .where("status", "=", "sending")
                .where("lane_attempt", "=", laneAttempt)
                .executeTakeFirst()
            )
            released = changedRows(result)
            for (const r of outcomes.released) if (minSeq === undefined || r.seq < minSeq) minSeq = r.seq
          }
          yield* addToCounters(campaignId, { pending: -(accepted + failed), failed }, released > 0 ? minSeq : undefined)
          return { accepted, failed, released }
        })
      ),

    reconcile: (campaignId, input) =>
      db.withTransaction(
        Effect.gen(function* () {
          const stale = yield* q((k) =>
            k
              .selectFrom("campaign_recipients")
              .select((eb) => [eb.fn.countAll<number>().as("n")])
              .where("campaign_id", "=", campaignId)
              .where("status", "=", "sending")
              .where("sending_at", "<", input.sendingBefore)
              .executeTakeFirstOrThrow()
          )
          if (Number(stale.n) === 0) return 0
          // an operator webhook still waiting in the inbox may hold the report of one of them
          const backlog = yield* q((k) =>
            k
              .selectFrom("jobs")
              .select("id")
              .where("status", "in", ["queued", "running"])
              .where("kind", "=", OperatorWebhooks.PROCESS_JOB)
              .where("created_at", "<", input.webhooksBefore)
              .limit(1)
              .executeTakeFirst()
          )
          if (backlog !== undefined) return 0
          if ((yield* lock(campaignId)) === undefined) return 0
          const rows = yield* q((k) =>
            k
              .updateTable("campaign_recipients")
              .set({ status: input.to, lane_attempt: null, sending_at: null, updated_at: input.now })
              .where("campaign_id", "=", campaignId)
              .where("status", "=", "sending")
              .where("sending_at", "<", input.sendingBefore)
              .returning("seq")
              .execute()
          )
          const n = rows.length
          if (n === 0) return 0
          if (input.to === "pending") {
            yield* addToCounters(campaignId, {}, Math.min(...rows.map((r) => Number(r.seq))))
          } else {
            yield* addToCounters(campaignId, { pending: -n, cancelled: n })
          }
          return n
        })
      ),

    completeIfDone: (campaignId, now) =>
      Effect.gen(function* () {
        const result = yield* q((k) =>
          k
            .updateTable("campaigns")
            .set({ status: "completed", completed_at: now.getTime(), updated_at: now.getTime() })
            .where("id", "=", campaignId)
            .where("status", "=", "active")
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom("campaign_recipients")
                    .select("id")
                    .where("campaign_id", "=", campaignId)
                    .where("status", "in", ["pending", "sending"])
                )
              )
            )
            .executeTakeFirst()
        )
        return changedRows(result) === 0 ? Option.none() : yield* get(campaignId)
      }),

    dueScheduled: (now, limit) =>
      q((k) =>
        selectCampaigns(k).where("c.status", "=", "scheduled").where("c.scheduled_at", "<=", now.getTime()).orderBy("c.scheduled_at").limit(limit).execute()
      ).pipe(Effect.map((rows) => (rows as Array<CampaignRow>).map(toCampaign))),

    cancelledWithPending: (limit) =>
      q((k) => k.selectFrom("campaigns").select("id").where("status", "=", "cancelled").where("pending", ">", 0).limit(limit).execute()).pipe(
        Effect.map((rows) => rows.map((r) => r.id))
      ),

    activeLanes: () =>
      q((k) =>
        k.selectFrom("campaigns").select("phone_number_id").distinct().where("status", "=", "active").where("phone_number_id", "is not", null).execute()
      ).pipe(Effect.map((rows) => rows.map((r) => r.phone_number_id!))),

    withUncompactedCounters: (limit) =>
      q((k) => k.selectFrom("campaign_counter_deltas").select("campaign_id").distinct().limit(limit).execute()).pipe(
        Effect.map((rows) => rows.map((r) => r.campaign_id))
      ),

    lockLane: (phoneNumberId, now) =>
      Effect.gen(function* () {
        yield* q((k) =>
          k
            .insertInto("campaign_lanes")
            .values({ phone_number_id: phoneNumberId, generation: 0, job_id: null, updated_at: now })
            .onConflict((oc) => oc.column("phone_number_id").doNothing())
            .execute()
        )
        const lane = yield* q((k) =>
          k
            .updateTable("campaign_lanes")
            .set({ updated_at: now })
            .where("phone_number_id", "=", phoneNumberId)
            .returning(["generation", "job_id"])
            .executeTakeFirstOrThrow()
        )
        if (lane.job_id === null) return { generation: Number(lane.generation), alive: false }
        const job = yield* q((k) => k.selectFrom("jobs").select("status").where("id", "=", lane.job_id!).executeTakeFirst())
        return { generation: Number(lane.generation), alive: job !== undefined && (job.status === "queued" || job.status === "running") }
      }),

    setLane: (phoneNumberId, generation, jobId, now) =>
      q((k) =>
        k.updateTable("campaign_lanes").set({ generation, job_id: jobId, updated_at: now }).where("phone_number_id", "=", phoneNumberId).execute()
      ).pipe(Effect.asVoid)
  })
})

export const layer: Layer.Layer<CampaignRepo.CampaignRepo, never, Database | SqlDialect> = Layer.effect(CampaignRepo.CampaignRepo, make)
