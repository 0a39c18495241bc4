/** The FlowResponseRepo port over `flow_sends` and `flow_responses`, scoped by the tenant; one response per operator message id. */
import { type FlowResponse, type FlowResponseRepo as Port, FlowResponseRepo } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import { Database } from "../Database.js"
import { findOne, findPage, scoped } from "../internal/Scoped.js"
import type { FlowResponsesTable, FlowSendsTable } from "./Tables.js"

const sendOf = (row: FlowSendsTable): FlowResponse.FlowSend => ({
  id: row.id as FlowResponse.FlowSendId,
  flowId: row.flow_id as FlowResponse.FlowSend["flowId"],
  flowToken: row.flow_token,
  messageId: row.message_id,
  to: row.to_phone,
  createdAt: Number(row.created_at)
})

const responseOf = (row: FlowResponsesTable): FlowResponse.FlowResponse => ({
  id: row.id as FlowResponse.FlowResponseId,
  storeId: row.store_id as FlowResponse.FlowResponse["storeId"],
  mode: row.mode,
  flowId: row.flow_id as FlowResponse.FlowResponse["flowId"],
  sendId: row.send_id as FlowResponse.FlowResponse["sendId"],
  flowToken: row.flow_token,
  operatorMessageId: row.operator_message_id,
  from: row.from_phone,
  response: JSON.parse(row.response_json),
  receivedAt: Number(row.received_at)
})

export const make: Effect.Effect<Port.FlowResponseRepo["Type"], never, Database> = Effect.gen(function* () {
  const db = yield* Database
  return FlowResponseRepo.FlowResponseRepo.of({
    recordSend: (tenant, send) =>
      db
        .query((k) =>
          k
            .insertInto("flow_sends")
            .values({
              id: send.id,
              store_id: tenant.storeId,
              mode: tenant.mode,
              flow_id: send.flowId,
              flow_token: send.flowToken,
              message_id: send.messageId,
              to_phone: send.to,
              created_at: send.createdAt
            })
            .execute()
        )
        .pipe(Effect.asVoid),

    sendByToken: (tenant, flowToken) =>
      findOne(db, (k) => scoped(k, "flow_sends", tenant).selectAll().where("flow_token", "=", flowToken).orderBy("id", "desc").limit(1), sendOf),

    insertResponse: (tenant, response) =>
      db
        .queryUnique((k) =>
          k
            .insertInto("flow_responses")
            .values({
              id: response.id,
              store_id: tenant.storeId,
              mode: tenant.mode,
              flow_id: response.flowId,
              send_id: response.sendId,
              flow_token: response.flowToken,
              operator_message_id: response.operatorMessageId,
              from_phone: response.from,
              response_json: JSON.stringify(response.response),
              received_at: response.receivedAt
            })
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
        responseOf
      ),

    times: (tenant, flowId, since, until) =>
      Effect.gen(function* () {
        const sends = yield* db.query((k) =>
          scoped(k, "flow_sends", tenant)
            .select("created_at")
            .where("flow_id", "=", flowId)
            .where("created_at", ">=", since)
            .where("created_at", "<", until)
            .execute()
        )
        const responses = yield* db.query((k) =>
          scoped(k, "flow_responses", tenant)
            .select("received_at")
            .where("flow_id", "=", flowId)
            .where("received_at", ">=", since)
            .where("received_at", "<", until)
            .execute()
        )
        return { sends: sends.map((r) => Number(r.created_at)), responses: responses.map((r) => Number(r.received_at)) }
      })
  })
})

export const layer = Layer.effect(FlowResponseRepo.FlowResponseRepo, make)
