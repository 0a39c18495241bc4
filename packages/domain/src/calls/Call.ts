/**
 * Calls (spec §4.8; GRAPH_API.md §6.3, §6.4): a voice call between the store's number and a
 * customer, business-initiated (`POST /chat/calls/connect`, with the customer's permission)
 * or user-initiated (the operator's `connect` webhook). A call belongs to one tenant; another
 * tenant's id answers as an id that does not exist.
 *
 * State machine (DESIGN.md "State machines", filled for calls):
 *
 *   business-initiated:
 *     (connect) ──► calling ──(operator RINGING)──► ringing
 *     calling | ringing ──(operator ACCEPTED, or connect webhook with the answer)──► accepted
 *     calling | ringing ──(operator REJECTED)──► rejected
 *     calling | ringing ──(terminate webhook before any answer)──► failed
 *     failed ──(operator REJECTED, arriving after the terminate webhook)──► rejected
 *   user-initiated:
 *     (connect webhook with the customer's offer) ──► ringing
 *     ringing ──pre_accept──► pre_accepted
 *     ringing | pre_accepted ──accept──► accepted
 *     ringing | pre_accepted ──reject──► rejected
 *   both:
 *     calling | ringing | pre_accepted | accepted ──terminate──► ended
 *     calling | ringing | pre_accepted | accepted ──(terminate webhook)──► ended
 *       (a business-initiated call terminated before any answer: failed, no answer)
 *     rejected | failed | ended ──(terminate webhook)──► unchanged (fills in the operator's
 *       end status, start, end and duration)
 *
 * `pre_accept`, `accept` and `reject` are the business's answers to a user-initiated call;
 * on a business-initiated call they are refused. Anything refused is `InvalidState` naming
 * the current status. `ended` is final.
 */
import { Effect, Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import { Owned, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

/** `call_…` */
export const CallId = Id.kind("call", "CallId")
export type CallId = Id.Of<typeof CallId>

export const Status = Schema.Literal("calling", "ringing", "pre_accepted", "accepted", "rejected", "failed", "ended")
export type Status = typeof Status.Type

export const Direction = Schema.Literal("business_initiated", "user_initiated")
export type Direction = typeof Direction.Type

/** The statuses in which a call is live (it can be terminated). */
export const LIVE: ReadonlyArray<Status> = ["calling", "ringing", "pre_accepted", "accepted"]

/** What a caller, or the operator's webhooks, ask of a call. */
export type Operation =
  | "pre_accept"
  | "accept"
  | "reject"
  | "terminate"
  /** The operator's status RINGING. */
  | "ring"
  /** The operator's status ACCEPTED, or a connect webhook with the customer's answer. */
  | "answered"
  /** The operator's status REJECTED. */
  | "declined"
  /** The operator's terminate webhook. */
  | "end"

const refuse = (status: Status, operation: string) => Either.left(new InvalidState({ resource: "call", status, operation }))

/**
 * The status after `operation` on a call of `direction` in `status`, or `InvalidState`. The
 * one place that knows which operation is allowed in which status.
 */
export const transition = (status: Status, operation: Operation, direction: Direction): Either.Either<Status, InvalidState> => {
  const userInitiated = direction === "user_initiated"
  switch (operation) {
    case "pre_accept":
      return userInitiated && status === "ringing" ? Either.right("pre_accepted") : refuse(status, "pre-accept")
    case "accept":
      return userInitiated && (status === "ringing" || status === "pre_accepted") ? Either.right("accepted") : refuse(status, operation)
    case "reject":
      return userInitiated && (status === "ringing" || status === "pre_accepted") ? Either.right("rejected") : refuse(status, operation)
    case "terminate":
      return LIVE.includes(status) ? Either.right("ended") : refuse(status, operation)
    case "ring":
      return !userInitiated && status === "calling" ? Either.right("ringing") : refuse(status, operation)
    case "answered":
      return !userInitiated && (status === "calling" || status === "ringing") ? Either.right("accepted") : refuse(status, operation)
    case "declined":
      return !userInitiated && (status === "calling" || status === "ringing" || status === "failed")
        ? Either.right("rejected")
        : refuse(status, operation)
    case "end":
      return LIVE.includes(status) ? Either.right(endOutcome({ status, direction })) : Either.right(status)
  }
}

/**
 * The status a terminate webhook leaves on a live call: `ended`, except that a
 * business-initiated call the customer never answered `failed` (kept apart so outcomes count it).
 */
export const endOutcome = (call: { readonly status: Status; readonly direction: Direction }): Status =>
  call.direction === "business_initiated" && (call.status === "calling" || call.status === "ringing") ? "failed" : "ended"

/** The statuses from which `operation` is allowed on a call of `direction` (for conditional updates). */
export const sources = (operation: Operation, direction: Direction): ReadonlyArray<Status> =>
  Status.literals.filter((s) => Either.isRight(transition(s, operation, direction)))

/** The operator's end status of a terminated call. */
export const EndStatus = Schema.Literal("COMPLETED", "FAILED")

export const CallError = Schema.Struct({ code: Schema.Number, message: Schema.String })

/** The call. Times are `Time.Millis`. */
export const Call = Schema.Struct({
  id: CallId.schema,
  ...Owned,
  /** The customer, E.164. */
  phone: Schema.String,
  direction: Direction,
  status: Status,
  /** The operator's call id (`wacid…`); null until the operator answered the connect. */
  operatorCallId: Schema.NullOr(Schema.String),
  /** The offer SDP (ours for business-initiated calls, the customer's for user-initiated). */
  offerSdp: Schema.String,
  /** The answer SDP (the customer's, or ours after pre-accept or accept). */
  answerSdp: Schema.NullOr(Schema.String),
  /** The call button's payload the operator echoed (`cta_payload`), when any. */
  payload: Schema.NullOr(Schema.String),
  endStatus: Schema.NullOr(EndStatus),
  /** When media connected (the operator's `start_time`, or acceptance). */
  startedAt: Schema.NullOr(Schema.Number),
  endedAt: Schema.NullOr(Schema.Number),
  durationSeconds: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(CallError),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Call extends Schema.Schema.Type<typeof Call> {}

/** A new call of the tenant, dated `now`: neither answered nor ended yet. */
export const fresh = (
  tenant: Tenant,
  start: Pick<Call, "phone" | "direction" | "status" | "operatorCallId" | "offerSdp" | "payload">,
  now: number
): Effect.Effect<Call> =>
  Effect.map(CallId.generate, (id) => ({
    id,
    storeId: tenant.storeId,
    mode: tenant.mode,
    ...start,
    answerSdp: null,
    endStatus: null,
    startedAt: null,
    endedAt: null,
    durationSeconds: null,
    error: null,
    createdAt: now,
    updatedAt: now
  }))

export const tenantOf = (c: Pick<Call, "storeId" | "mode">): Tenant => ({ storeId: c.storeId, mode: c.mode })

// ---------------------------------------------------------------------------------------
// requests

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** A session description as the API takes it: `{ type, sdp }` (the browser's RTCSessionDescription). */
export const SessionDescription = (type: "offer" | "answer") =>
  Schema.Struct({ type: Schema.Literal(type), sdp: Schema.String }).annotations({
    ...strict,
    identifier: `Sdp${type === "offer" ? "Offer" : "Answer"}`
  })

/** `POST /chat/calls/connect`. */
export const Connect = Schema.Struct({
  phone: Schema.String,
  sdp: SessionDescription("offer")
}).annotations({ ...strict, identifier: "ConnectCall" })
export type Connect = typeof Connect.Type

/** `POST /chat/calls/{id}/pre-accept` and `/accept`: our answer to the customer's offer. */
export const Answer = Schema.Struct({ sdp: SessionDescription("answer") }).annotations({ ...strict, identifier: "AnswerCall" })
export type Answer = typeof Answer.Type

/** `GET /chat/calls` filters. */
export const ListFilters = {
  status: Schema.optional(Status),
  direction: Schema.optional(Direction),
  phone: Schema.optional(Schema.String)
}

// ---------------------------------------------------------------------------------------
// the resource

const CallJson = Schema.Struct({
  id: CallId.schema,
  phone: Schema.String,
  direction: Direction,
  status: Status,
  operator_call_id: Schema.NullOr(Schema.String),
  payload: Schema.NullOr(Schema.String),
  end_status: Schema.NullOr(EndStatus),
  started_at: Schema.NullOr(Time.IsoDateTime),
  ended_at: Schema.NullOr(Time.IsoDateTime),
  duration_seconds: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(CallError),
  created_at: Time.IsoDateTime,
  updated_at: Time.IsoDateTime
}).annotations({ identifier: "Call" })

const Shown = Call.pipe(Schema.omit("storeId", "mode", "offerSdp", "answerSdp"))
type Shown = typeof Shown.Type

/** The call as the API shows it (the SDPs are on `GET /chat/calls/{id}/media`). */
export const CallResource: Schema.Schema<Shown, typeof CallJson.Encoded> = Schema.transform(CallJson, Schema.typeSchema(Shown), {
  strict: true,
  decode: (j) => ({
    id: j.id,
    phone: j.phone,
    direction: j.direction,
    status: j.status,
    operatorCallId: j.operator_call_id,
    payload: j.payload,
    endStatus: j.end_status,
    startedAt: j.started_at,
    endedAt: j.ended_at,
    durationSeconds: j.duration_seconds,
    error: j.error,
    createdAt: j.created_at,
    updatedAt: j.updated_at
  }),
  encode: (c) => ({
    id: c.id,
    phone: c.phone,
    direction: c.direction,
    status: c.status,
    operator_call_id: c.operatorCallId,
    payload: c.payload,
    end_status: c.endStatus,
    started_at: c.startedAt,
    ended_at: c.endedAt,
    duration_seconds: c.durationSeconds,
    error: c.error,
    created_at: c.createdAt,
    updated_at: c.updatedAt
  })
})

/** The JSON of a call, as caller events carry it. */
export const toJson: (c: Call) => typeof CallJson.Encoded = Schema.encodeSync(CallResource)
