/**
 * The call actions that change the call at the operator, as mirrored writes
 * (`shared/Mirror.ts`). The routes run them inline (a call is real time: the caller waits for
 * the operator's verdict); a crash between the steps is finished by the sweep.
 *
 * - **connect**: the call record (`calling`) is the intent, written with the outbox row. The
 *   operator's connect takes no idempotency key, and dialling a customer twice is worse than
 *   not at all, so only the inline attempt dials (the attempt fence): a sweep finds the call
 *   the operator placed by its status webhook (`RINGING` names our id in
 *   `biz_opaque_callback_data` and sets the operator's call id here) and settles it, or
 *   else marks the call `failed` without dialling again.
 * - **reject**, **terminate**: the pending record is the outbox row; the operator call, then
 *   the status by compare-and-set with its caller event (`Control.run`). A sweep sends the
 *   end again: a call left live at the operator by a crash is ended. The operator refuses to
 *   end a call twice, and its terminate webhook ends the call here (`CallWebhooks.ts`), often
 *   before the settle: a call no longer live here was ended at the operator, so the sweep does
 *   not call again (`recover`) and the settle answers the call as it is now.
 *
 * pre-accept and accept are not here: see `Calls.ts`.
 */
import { Effect, Option, Schema } from "effect"
import * as Control from "../shared/Control.js"
import { OperatorRejected } from "../shared/Errors.js"
import * as Mirror from "../shared/Mirror.js"
import * as Time from "../shared/Time.js"
import * as Call from "./Call.js"
import { type CallActionError, CallOperator } from "./CallOperator.js"
import { CallRepo } from "./CallRepo.js"
import * as Events from "./Events.js"

const find = (tenant: Parameters<CallRepo["Type"]["find"]>[0], id: Call.CallId) => Effect.flatMap(CallRepo, (repo) => repo.find(tenant, id))

/** What a sweep answers for a connect it could not prove placed: the call was not dialled again. */
export const notPlaced = new OperatorRejected({
  code: 0,
  reason: "the server stopped before the operator answered the connect; a call is never dialled twice, so it was not placed"
})

const ConnectPayload = Schema.Struct({ id: Call.CallId.schema, phone: Schema.String, sdp: Schema.String })

/** `POST /chat/calls/connect`. */
export const connect = Mirror.kind({
  kind: "calls.connect",
  payload: ConnectPayload,
  call: (
    p: typeof ConnectPayload.Type,
    { account, attempt }
  ): Effect.Effect<{ readonly callId: string }, CallActionError, CallOperator | CallRepo> =>
    attempt > 1 ? Effect.fail(notPlaced) : Effect.flatMap(CallOperator, (op) => op.connect(account, { to: p.phone, sdp: p.sdp, callbackData: p.id })),
  recover: (p, { tenant }) =>
    Effect.map(find(tenant, p.id), (found) =>
      Option.flatMap(found, (c) => (c.operatorCallId === null ? Option.none() : Option.some({ callId: c.operatorCallId })))
    ),
  settle: (p, placed: { readonly callId: string }, { tenant }) =>
    Effect.gen(function* () {
      const repo = yield* CallRepo
      const after = yield* repo.update(tenant, p.id, ["calling", "ringing", "accepted"], { operatorCallId: placed.callId })
      if (Option.isSome(after)) return after.value
      // the call moved on meanwhile (failed, ended): as it is now
      return Option.getOrThrow(yield* repo.find(tenant, p.id))
    }),
  compensate: (p, error, { tenant }) =>
    Effect.gen(function* () {
      const code = "operatorCode" in error ? error.operatorCode : "code" in error && typeof error.code === "number" ? error.code : 0
      yield* (yield* CallRepo).update(tenant, p.id, ["calling"], {
        status: "failed",
        error: { code: code ?? 0, message: error.message },
        updatedAt: yield* Time.now
      })
    })
})

/** The call is over here: the operator's terminate webhook (or a status) ended it. */
const over = (call: Call.Call): boolean => !Call.LIVE.includes(call.status)

const EndPayload = Schema.Struct({ id: Call.CallId.schema, operatorCallId: Schema.NullOr(Schema.String) })

/** The end of a call (reject or terminate): the operator's, then the status here. */
const end = (operation: "reject" | "terminate") =>
  Mirror.kind({
    kind: `calls.${operation}`,
    payload: EndPayload,
    call: (p: typeof EndPayload.Type, { account }): Effect.Effect<void, CallActionError, CallOperator | CallRepo> =>
      // a call the operator never placed has nothing to end there
      p.operatorCallId === null
        ? Effect.void
        : Effect.flatMap(CallOperator, (op) => op.end(account, { callId: p.operatorCallId!, action: operation })),
    // ended here by the operator's terminate webhook: the operator ended it (it refuses a second end)
    recover: (p, { tenant }) =>
      Effect.map(find(tenant, p.id), (found) => (Option.isSome(found) && over(found.value) ? Option.some<void>(undefined) : Option.none<void>())),
    settle: (p, _answer, { tenant }) =>
      Effect.gen(function* () {
        const repo = yield* CallRepo
        const load = Effect.flatMap(find(tenant, p.id), (c) => Effect.orDie(c))
        const first = yield* load
        // the operator's terminate webhook came first and ended it here: as it is now
        if (over(first)) return first
        return yield* Control.run({
          load,
          status: (c: Call.Call) => c.status,
          transition: (status: Call.Status, op: typeof operation) => Call.transition(status, op, first.direction),
          operation,
          compareAndSet: (current, from, to) =>
            Effect.gen(function* () {
              const now = yield* Time.now
              const patch =
                operation === "terminate"
                  ? {
                      endedAt: now,
                      durationSeconds: current.startedAt === null ? 0 : Math.max(0, Math.round((now - current.startedAt) / 1000)),
                      updatedAt: now
                    }
                  : { updatedAt: now }
              return yield* repo.update(tenant, current.id, [from], { ...patch, status: to })
            }),
          emit: (after) => Events.emitStatus(after)
        })
      })
  })

/** `POST /chat/calls/{id}/reject`. */
export const reject = end("reject")
/** `POST /chat/calls/{id}/terminate`. */
export const terminate = end("terminate")

/** Every call mirror kind (the calls module registers them). */
export const kinds = [connect, reject, terminate] as const
