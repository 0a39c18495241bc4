/**
 * Ingestion of campaign recipients (`CampaignRepo.addRecipients`): the seq range is
 * allocated first, in its own short statement, then the rows are inserted with
 * `INSERT … ON CONFLICT DO NOTHING` (a phone the campaign already has is not inserted, and
 * is stored again as a skipped `duplicate` entry without the phone): on SQLite multi-row
 * VALUES compiled once per chunk size, in chunks that stay under its limit of bound
 * variables; on PostgreSQL (`SqlDialect.arrayParameters`) one array per column, `unnest`ed,
 * which spares the server parsing a long VALUES list (the arrays written as literals by
 * `internal/ArrayLiteral.ts`).
 */
import type { Campaign, CampaignRecipient, CampaignRepo, Tenant } from "@switchboard/domain"
import { Effect, Option } from "effect"
import { sql } from "kysely"
import { SqlDialect } from "../SqlDialect.js"
import type { Statements } from "./Statements.js"
import { integerArray, textArray } from "../internal/ArrayLiteral.js"
import { multiRow } from "../internal/Prepared.js"
import { scopedUpdate } from "../internal/Scoped.js"
import { zoneListName, zoneListOf } from "./PhoneZones.js"
import * as ZoneLists from "./ZoneLists.js"

/**
 * Rows per INSERT on SQLite: 11 bound variables a row, well under its 32,766. At 1,000 the
 * array of values (11,000) stays a young object for the collector (at 2,700 it was a large
 * one, each allocated in the old generation), and a request of 10,000 is ten statements of
 * one compiled size: 7.8 to 7.0 µs of CPU a recipient in the store.
 */
const INSERT_CHUNK = 1000

/**
 * Recipient rows as inserted, read by position without an object per row: the recipients in
 * `order` (positions into them), JSON rendered, `input` null when it is the phone, the id
 * of the phone's time zone list (`ZoneLists.ts`, for the send window) for a pending row; seq
 * is `base` plus the recipient's own position.
 */
interface Rows {
  readonly length: number
  readonly id: (i: number) => string
  readonly seq: (i: number) => number
  readonly phone: (i: number) => string | null
  readonly input: (i: number) => string | null
  readonly customerId: (i: number) => string | null
  readonly parameters: (i: number) => string | null
  readonly status: (i: number) => "pending" | "skipped"
  readonly skipReason: (i: number) => string | null
  readonly zone: (i: number) => number | null
}

const rowsOf = (
  recipients: ReadonlyArray<CampaignRepo.NewRecipient>,
  base: number,
  order: ArrayLike<number>,
  zones: ReadonlyArray<number | null>
): Rows => {
  const at = (i: number) => recipients[order[i]]
  return {
    length: order.length,
    id: (i) => at(i).id,
    seq: (i) => base + order[i],
    phone: (i) => at(i).phone,
    input: (i) => {
      const r = at(i)
      return r.input === r.phone ? null : r.input
    },
    customerId: (i) => at(i).customerId,
    parameters: (i) => {
      const p = at(i).parameters
      return p === null ? null : JSON.stringify(p)
    },
    status: (i) => at(i).status,
    skipReason: (i) => at(i).skipReason,
    zone: (i) => zones[order[i]]
  }
}

/** The rows of the recipients at `positions` whose phone the campaign already had: skipped `duplicate` entries without the phone. */
const duplicateRowsOf = (recipients: ReadonlyArray<CampaignRepo.NewRecipient>, base: number, positions: ReadonlyArray<number>): Rows => {
  const at = (i: number) => recipients[positions[i]]
  return {
    length: positions.length,
    id: (i) => at(i).id,
    seq: (i) => base + positions[i],
    phone: () => null,
    input: (i) => at(i).input,
    customerId: (i) => at(i).customerId,
    parameters: () => null,
    status: () => "skipped",
    skipReason: () => "duplicate",
    zone: () => null
  }
}

const before = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1)

/**
 * The recipients' positions in phone order (no phone last, stably): two requests that share
 * phones take their row locks in the same order (no deadlock). Already in order (the usual
 * list), it is answered without sorting.
 */
const phoneOrder = (recipients: ReadonlyArray<CampaignRepo.NewRecipient>): ArrayLike<number> => {
  const positions = new Array<number>(recipients.length)
  let sorted = true
  for (let i = 0; i < recipients.length; i++) {
    positions[i] = i
    if (sorted && i > 0 && before(recipients[i - 1].phone, recipients[i].phone) > 0) sorted = false
  }
  return sorted ? positions : positions.sort((a, b) => before(recipients[a].phone, recipients[b].phone))
}

const allNull = (values: ReadonlyArray<unknown>): boolean => {
  for (let i = 0; i < values.length; i++) if (values[i] !== null) return false
  return true
}

/** A text column's array literal, or null when every value is null (sent as a null array, which `unnest` pads with nulls). */
const texts = (values: ReadonlyArray<string | null>): string | null => (allNull(values) ? null : textArray(values))

const affected = (result: { readonly numAffectedRows?: bigint }): number => Number(result.numAffectedRows ?? 0n)

/** `addRecipients` over the statements of a campaign repository. */
export const make = (s: Statements) =>
  Effect.gen(function* () {
    const dialect = yield* SqlDialect
    const { db, kysely, q, exec } = s
    const zoneLists = ZoneLists.make(s)

    /**
     * Each recipient's zone list id (null: skipped, or a phone the map does not know): the
     * lists of the request (few: one per area code at most) looked up once each, the new ones
     * added in a statement of their own before the rows' transaction.
     */
    const zonesOf = (recipients: ReadonlyArray<CampaignRepo.NewRecipient>) =>
      Effect.gen(function* () {
        const lists = new Int32Array(recipients.length)
        const seen: Array<number> = []
        const used = new Set<number>()
        for (let i = 0; i < recipients.length; i++) {
          const r = recipients[i]
          const list = r.status === "pending" ? zoneListOf(r.phone) : -1
          lists[i] = list
          if (list !== -1 && !used.has(list)) {
            used.add(list)
            seen.push(list)
          }
        }
        const ids = yield* zoneLists.ids(seen.map(zoneListName))
        const idOfList = new Map<number, number>()
        for (const list of seen) idOfList.set(list, ids.get(zoneListName(list))!)
        const zones = new Array<number | null>(recipients.length)
        for (let i = 0; i < recipients.length; i++) zones[i] = lists[i] === -1 ? null : idOfList.get(lists[i])!
        return zones
      })

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
            zone_id: r[10]
          }))
        )
        .onConflict((oc) => oc.columns(["campaign_id", "phone"]).doNothing())
    )

    /**
     * One statement per 50,000 rows, one array parameter per column (PostgreSQL); answers how
     * many were inserted. A column that is null in every row is sent as a null array (`unnest`
     * pads it with nulls).
     */
    const insertUnnest = (campaignId: string, rows: Rows, now: number) =>
      Effect.gen(function* () {
        let count = 0
        for (let start = 0; start < rows.length; start += 50_000) {
          const n = Math.min(50_000, rows.length - start)
          const ids = new Array<string>(n)
          const seqs = new Array<number>(n)
          const phones = new Array<string | null>(n)
          const inputs = new Array<string | null>(n)
          const customers = new Array<string | null>(n)
          const parameters = new Array<string | null>(n)
          const statuses = new Array<string>(n)
          const reasons = new Array<string | null>(n)
          const zones = new Array<number | null>(n)
          for (let k = 0; k < n; k++) {
            const i = start + k
            ids[k] = rows.id(i)
            seqs[k] = rows.seq(i)
            phones[k] = rows.phone(i)
            inputs[k] = rows.input(i)
            customers[k] = rows.customerId(i)
            parameters[k] = rows.parameters(i)
            statuses[k] = rows.status(i)
            reasons[k] = rows.skipReason(i)
            zones[k] = rows.zone(i)
          }
          const result = yield* q((k) =>
            sql`insert into campaign_recipients (id, campaign_id, seq, phone, input, customer_id, parameters, status, skip_reason, retryable, updated_at, zone_id)
              select u.id, ${campaignId}::text, u.seq, u.phone, u.input, u.customer_id, u.parameters, u.status, u.skip_reason, 0, ${now}::bigint, u.zone
              from unnest(${textArray(ids)}::text[], ${integerArray(seqs)}::bigint[], ${texts(phones)}::text[],
                ${texts(inputs)}::text[], ${texts(customers)}::text[], ${texts(parameters)}::text[],
                ${textArray(statuses)}::text[], ${texts(reasons)}::text[], ${allNull(zones) ? null : integerArray(zones)}::int[])
                as u(id, seq, phone, input, customer_id, parameters, status, skip_reason, zone)
              on conflict (campaign_id, phone) do nothing`.execute(k)
          )
          count += affected(result)
        }
        return count
      })

    /**
     * Multi-row VALUES in chunks under SQLite's bound-variable limit, bound from one flat
     * array of values (no tuple per row); answers how many were inserted.
     */
    const insertValues = (campaignId: string, rows: Rows, now: number) =>
      Effect.gen(function* () {
        let count = 0
        // one array for every full chunk, bound unfrozen (each statement has run before the next fills it)
        const full = rows.length >= INSERT_CHUNK ? new Array<unknown>(INSERT_CHUNK * 11) : undefined
        for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
          const n = Math.min(INSERT_CHUNK, rows.length - start)
          const values = n === INSERT_CHUNK && full !== undefined ? full : new Array<unknown>(n * 11)
          for (let k = 0; k < n; k++) {
            const i = start + k
            const o = k * 11
            values[o] = rows.id(i)
            values[o + 1] = campaignId
            values[o + 2] = rows.seq(i)
            values[o + 3] = rows.phone(i)
            values[o + 4] = rows.input(i)
            values[o + 5] = rows.customerId(i)
            values[o + 6] = rows.parameters(i)
            values[o + 7] = rows.status(i)
            values[o + 8] = rows.skipReason(i)
            values[o + 9] = now
            values[o + 10] = rows.zone(i)
          }
          count += affected(yield* exec(insertRecipients.flat(values, n, values === full)))
        }
        return count
      })

    /**
     * Inserts rows whose seqs are `[fromSeq, fromSeq + rows.length)`; answers the ids actually
     * inserted (a phone the campaign has is not), or "all" in the common case.
     */
    const insertRows = (campaignId: string, rows: Rows, now: number, fromSeq: number) =>
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
        const zones = yield* zonesOf(recipients)
        const byPhone = rowsOf(recipients, base, phoneOrder(recipients), zones)
        return yield* db.withTransaction(
          Effect.gen(function* () {
            const inserted = yield* insertRows(campaignId, byPhone, t, base)
            const isInserted = (i: number) => inserted === "all" || inserted.has(recipients[i].id)
            // a phone the campaign already had: stored as a skipped duplicate entry without the phone
            const duplicates: Array<number> = []
            if (inserted !== "all") for (let i = 0; i < n; i++) if (!isInserted(i)) duplicates.push(i)
            if (duplicates.length > 0) {
              const rows = duplicateRowsOf(recipients, base, duplicates)
              if (dialect.arrayParameters) yield* insertUnnest(campaignId, rows, t)
              else yield* insertValues(campaignId, rows, t)
            }
            const skipped: Record<CampaignRecipient.SkipReason, number> = {
              opted_out: 0,
              duplicate: duplicates.length,
              invalid_number: 0,
              unknown_customer: 0
            }
            let added = 0
            for (let i = 0; i < n; i++) {
              if (!isInserted(i)) continue
              const r = recipients[i]
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
