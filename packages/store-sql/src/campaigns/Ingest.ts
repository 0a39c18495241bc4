/**
 * Ingestion of campaign recipients (`CampaignRepo.addRecipients`): the seq range is
 * allocated first, in its own short statement, then the rows are inserted with
 * `INSERT … ON CONFLICT DO NOTHING` (a phone the campaign already has is not inserted, and
 * is stored again as a skipped `duplicate` entry without the phone): on SQLite multi-row
 * VALUES compiled once per chunk size, in chunks that stay under its limit of bound
 * variables; on PostgreSQL (`SqlDialect.arrayParameters`) one array per column, `unnest`ed,
 * which spares the server parsing a long VALUES list.
 */
import type { Campaign, CampaignRecipient, CampaignRepo, Tenant } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { sql } from "kysely"
import { SqlDialect } from "../SqlDialect.js"
import type { Statements } from "./Statements.js"
import { multiRow } from "../internal/Prepared.js"
import { scopedUpdate } from "../internal/Scoped.js"
import { zoneKeyOf } from "./PhoneZones.js"

/** Rows per INSERT: 11 bound variables a row, under SQLite's 32,766 (PostgreSQL allows 65,535). */
const INSERT_CHUNK = 2700

/** A recipient row as inserted (JSON already rendered, `input` null when it is the phone). */
interface Row {
  readonly id: string
  readonly seq: number
  readonly phone: string | null
  readonly input: string | null
  readonly customerId: string | null
  readonly parameters: string | null
  readonly status: "pending" | "skipped"
  readonly skipReason: string | null
  /** The phone's time zones (`PhoneZones.ts`), for the send window. */
  readonly timeZone: string | null
}

const affected = (result: { readonly numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n)

/** `addRecipients` over the statements of a campaign repository. */
export const make = (s: Statements) =>
  Effect.gen(function* () {
    const dialect = yield* SqlDialect
    const { db, kysely, q, exec } = s

    /** The INSERT of recipient rows, compiled once per row count (`multiRow`): a row is bound as its tuple of values, in column order. */
    const insertRecipients = multiRow(11, (rows) =>
      kysely
        .insertInto("campaign_recipients")
        .values(
          rows.map((r) => ({
            id: r[0],
            campaign_id: r[1],
            seq: r[2],
            phone: r[3],
            input: r[4],
            customer_id: r[5],
            parameters: r[6],
            status: r[7],
            skip_reason: r[8],
            retryable: sql<number>`0`,
            updated_at: r[9],
            time_zone: r[10]
          }))
        )
        .onConflict((oc) => oc.columns(["campaign_id", "phone"]).doNothing())
    )

    /** One statement per 50,000 rows, one array parameter per column (PostgreSQL); answers how many were inserted. */
    const insertUnnest = (campaignId: string, rows: ReadonlyArray<Row>, now: number) =>
      Effect.gen(function* () {
        let count = 0
        for (let start = 0; start < rows.length; start += 50_000) {
          const chunk = rows.slice(start, start + 50_000)
          const column = <A>(f: (r: Row) => A) => chunk.map(f)
          const result = yield* q((k) =>
            sql`insert into campaign_recipients (id, campaign_id, seq, phone, input, customer_id, parameters, status, skip_reason, retryable, updated_at, time_zone)
              select u.id, ${campaignId}::text, u.seq, u.phone, u.input, u.customer_id, u.parameters, u.status, u.skip_reason, 0, ${now}::bigint, u.time_zone
              from unnest(${column((r) => r.id)}::text[], ${column((r) => r.seq)}::bigint[], ${column((r) => r.phone)}::text[],
                ${column((r) => r.input)}::text[], ${column((r) => r.customerId)}::text[], ${column((r) => r.parameters)}::text[],
                ${column((r) => r.status)}::text[], ${column((r) => r.skipReason)}::text[], ${column((r) => r.timeZone)}::text[])
                as u(id, seq, phone, input, customer_id, parameters, status, skip_reason, time_zone)
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
          const chunk = rows.slice(start, start + INSERT_CHUNK)
          const tuples = chunk.map((r) => [
            r.id,
            campaignId,
            r.seq,
            r.phone,
            r.input,
            r.customerId,
            r.parameters,
            r.status,
            r.skipReason,
            now,
            r.timeZone
          ])
          count += affected(yield* exec(insertRecipients(tuples)))
        }
        return count
      })

    /**
     * Inserts rows whose seqs are `[fromSeq, fromSeq + rows.length)`; answers the ids actually
     * inserted (a phone the campaign has is not), or "all" in the common case.
     */
    const insertRows = (campaignId: string, rows: ReadonlyArray<Row>, now: number, fromSeq: number) =>
      Effect.gen(function* () {
        const count = yield* dialect.arrayParameters ? insertUnnest(campaignId, rows, now) : insertValues(campaignId, rows, now)
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

    const addRecipients = (
      tenant: Tenant.Tenant,
      campaignId: Campaign.CampaignId,
      whileStatus: ReadonlyArray<Campaign.Status>,
      recipients: ReadonlyArray<CampaignRepo.NewRecipient>,
      now: number
    ): Effect.Effect<Option.Option<CampaignRecipient.Added>> =>
      Effect.gen(function* () {
        const n = recipients.length
        if (whileStatus.length === 0) return Option.none()
        // The seq range first, in its own short transaction (only in an allowed status), so
        // that concurrent requests of one campaign insert side by side instead of queueing
        // on the campaign row for the whole insert.
        const allocated = yield* q((k) =>
          scopedUpdate(k, "campaigns", tenant)
            .set((eb) => ({ next_seq: eb("next_seq", "+", n), updated_at: now }))
            .where("id", "=", campaignId)
            .where("status", "in", whileStatus)
            .returning(["next_seq"])
            .executeTakeFirst()
        )
        if (allocated === undefined) return Option.none()
        const base = Number(allocated.next_seq) - n
        const t = now
        const rows: Array<Row> = recipients.map((r, i) => ({
          id: r.id,
          seq: base + i,
          phone: r.phone,
          input: r.input === r.phone ? null : r.input,
          customerId: r.customerId,
          parameters: r.parameters === null ? null : JSON.stringify(r.parameters),
          status: r.status,
          skipReason: r.skipReason,
          timeZone: r.status === "pending" ? zoneKeyOf(r.phone) : null
        }))
        // in phone order: two requests that share phones take their row locks in the same order (no deadlock)
        const byPhone = [...rows].sort((a, b) =>
          a.phone === b.phone ? 0 : a.phone === null ? 1 : b.phone === null ? -1 : a.phone < b.phone ? -1 : 1
        )
        return yield* db.withTransaction(
          Effect.gen(function* () {
            const inserted = yield* insertRows(campaignId, byPhone, t, base)
            const isInserted = (r: Row) => inserted === "all" || inserted.has(r.id)
            // a phone the campaign already had: stored as a skipped duplicate entry without the phone
            const duplicates =
              inserted === "all"
                ? []
                : rows
                    .filter((r) => !isInserted(r))
                    .map(
                      (r): Row => ({
                        ...r,
                        phone: null,
                        input: r.input ?? r.phone,
                        parameters: null,
                        status: "skipped",
                        skipReason: "duplicate",
                        timeZone: null
                      })
                    )
            if (duplicates.length > 0) {
              if (dialect.arrayParameters) yield* insertUnnest(campaignId, duplicates, t)
              else yield* insertValues(campaignId, duplicates, t)
            }
            const skipped: Record<CampaignRecipient.SkipReason, number> = {
              opted_out: 0,
              duplicate: duplicates.length,
              invalid_number: 0,
              unknown_customer: 0
            }
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
      })

    return addRecipients
  })
