/**
 * The FlowResponseRepo port over `flow_sends` and `flow_responses`, scoped by the tenant; one
 * response per operator message id. A batch's sends are read in one query per 500 tokens, its
 * responses written in one multi-row INSERT … ON CONFLICT DO NOTHING per 500, which answers
 * the ones stored (RETURNING); both compiled once per number of tokens or rows.
 */
import { type FlowResponse, type FlowResponseRepo as Port, FlowResponseRepo, type Tenant } from "@switchboard/domain"
import { Effect, Layer, Option } from "effect"
import { sql } from "kysely"
import { Database } from "../Database.js"
import * as Chunks from "../internal/Chunks.js"
import * as Columns from "../internal/Columns.js"
import { multiRow, namedRows, prepare } from "../internal/Prepared.js"
import { BATCH_COUNTS, preparedLists } from "../internal/PreparedLists.js"
import { findPage, scoped } from "../internal/Scoped.js"
import { type FlowResponsesTable, flowResponseColumns, flowSendColumns } from "./Tables.js"

/** The columns of `insertResponses`' rows, in order. */
const RESPONSE_COLUMNS = [
  "id",
  "store_id",
  "mode",
  "flow_id",
  "send_id",
  "flow_token",
  "operator_message_id",
  "from_phone",
  "response_json",
  "received_at"
] as const satisfies ReadonlyArray<keyof FlowResponsesTable>

type FlowSend = FlowResponse.FlowSend

export const make: Effect.Effect<Port.FlowResponseRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  // compiled once: the hosted endpoint reads a send by its token on each operator request
  const byToken = prepare((p: { storeId: string; mode: Tenant.Mode; flowToken: string }) =>
    scoped(db.kysely, "flow_sends", p).selectAll().where("flow_token", "=", p.flowToken).orderBy("id", "desc").limit(1)
  )
  // compiled once per number of tokens: a batch of `nfm_reply` messages reads the sends they name
  const byTokens = preparedLists((p: { storeId: string; mode: Tenant.Mode }, [tokens]) =>
    scoped(db.kysely, "flow_sends", p).selectAll().where("flow_token", "in", tokens).orderBy("id", "desc")
  )
  // compiled once per row count: a batch's responses (every column, in RESPONSE_COLUMNS' order)
  const insertRows = multiRow(
    RESPONSE_COLUMNS.length,
    (rows) =>
      db.kysely
        .insertInto("flow_responses")
        .values(namedRows<FlowResponsesTable>(RESPONSE_COLUMNS, rows))
        .onConflict((oc) => oc.columns(["store_id", "mode", "operator_message_id"]).doNothing())
        .returning("operator_message_id"),
    BATCH_COUNTS
  )
  const responseRow = Columns.tenantTuple(RESPONSE_COLUMNS, flowResponseColumns.toTuple(RESPONSE_COLUMNS))
  return FlowResponseRepo.FlowResponseRepo.of({
    recordSend: (tenant, send) =>
      db
        .query((k) =>
          k
            .insertInto("flow_sends")
            .values({ ...flowSendColumns.toRow(send), store_id: tenant.storeId, mode: tenant.mode })
            .execute()
        )
        .pipe(Effect.asVoid),

    sendByToken: (tenant, flowToken) =>
      Effect.map(db.execute(byToken({ storeId: tenant.storeId, mode: tenant.mode, flowToken })), ({ rows }) =>
        rows.length === 0 ? Option.none() : Option.some(flowSendColumns.fromRow(rows[0]))
      ),

    sendsByTokens: (tenant, flowTokens) =>
      Effect.gen(function* () {
        const latest = new Map<string, FlowSend>()
        for (const chunk of Chunks.chunks([...new Set(flowTokens)], 500)) {
          const { rows } = yield* db.execute(byTokens(tenant, [chunk]))
          for (const row of rows) if (!latest.has(row.flow_token)) latest.set(row.flow_token, flowSendColumns.fromRow(row))
        }
        return latest
      }),

    insertResponses: (tenant, responses) =>
      Effect.gen(function* () {
        const stored = new Set<string>()
        for (const chunk of Chunks.chunks(responses, 500)) {
          const { rows } = yield* db.execute(insertRows(chunk.map((r) => responseRow(r, tenant))))
          for (const row of rows) stored.add(row.operator_message_id)
        }
        return stored
      }),

    insertResponse: (tenant, response) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("flow_responses")
            .values({ ...flowResponseColumns.toRow(response), store_id: tenant.storeId, mode: tenant.mode })
            .execute()
        )
        .pipe(
          Effect.as(true),
          Effect.catchTag("UniqueViolation", () => Effect.succeed(false))
        ),

    list: (tenant, query) =>
      findPage(
        db,
        query,
        (k) =>
          scoped(k, "flow_responses", tenant)
            .selectAll()
            .$if(query.flowId !== undefined, (q) => q.where("flow_id", "=", query.flowId!))
            .$if(query.unmatched === true, (q) => q.where("flow_id", "is", null))
            .$if(query.unmatched === false, (q) => q.where("flow_id", "is not", null))
            .$if(query.flowToken !== undefined, (q) => q.where("flow_token", "=", query.flowToken!))
            .$if(query.since !== undefined, (q) => q.where("received_at", ">=", query.since!))
            .$if(query.until !== undefined, (q) => q.where("received_at", "<", query.until!)),
        flowResponseColumns.fromRow
      ),

    times: (tenant, flowId, since, until) =>
      Effect.gen(function* () {
        /** The times in `column` of the flow's rows of `table` within [since, until). */
        const within = (table: "flow_sends" | "flow_responses", column: "created_at" | "received_at") =>
          Effect.map(
            db.query((k) =>
              scoped(k, table, tenant)
                .select(sql<number>`${sql.ref(column)}`.as("at"))
                .where("flow_id", "=", flowId)
                .where(sql.ref(column), ">=", since)
                .where(sql.ref(column), "<", until)
                .execute()
            ),
            (rows) => rows.map((r) => Number(r.at))
          )
        return { sends: yield* within("flow_sends", "created_at"), responses: yield* within("flow_responses", "received_at") }
      })
  })
})

export const layer = Layer.effect(FlowResponseRepo.FlowResponseRepo, make)
