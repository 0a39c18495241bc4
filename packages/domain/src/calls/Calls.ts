/**
 * Call routes (spec §4.8): connect (business-initiated, with the customer's permission
 * checked at call time), the business's answers to a user-initiated call (pre-accept,
 * accept, reject), terminate, and reading calls and their media. Every route works in the
 * caller's tenant; another store's call id answers 404 `resource_not_found` as an unknown one.
 *
 * A control asks the state machine first (409 `invalid_state` naming the current status),
 * then the operator, then writes the status by compare-and-set with its caller event in one
 * transaction (`Control.run`); the operator is never called inside a transaction. Connect,
 * reject and terminate are mirrored writes (`CallMirrors.ts`: a crash between the steps is
 * finished by the sweep). Pre-accept and accept stay a `Control.run` after the operator call:
 * their answer SDP belongs to a media session that does not outlive a crash, so a sweep could
 * only refuse, and the operator's terminate webhook closes the call either way.
 */
import { Effect, Either } from "effect"
import { CallOperator } from "./CallOperator.js"
import * as CallMirrors from "./CallMirrors.js"
import * as Control from "../shared/Control.js"
import * as Id from "../shared/Id.js"
import * as Mirror from "../shared/Mirror.js"
import * as Pagination from "../shared/Pagination.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import * as Call from "./Call.js"
import { CallPermissionRequired } from "./CallErrors.js"
import * as CallPermission from "./CallPermission.js"
import { type CallPatch, CallRepo } from "./CallRepo.js"
import * as Events from "./Events.js"
import * as Permissions from "./Permissions.js"
import * as Sdp from "./Sdp.js"
import * as SettingsRoutes from "./SettingsRoutes.js"

const RESOURCE = "call"

const lookup = (tenant: Tenant, id: string) =>
  Effect.flatMap(CallRepo, (repo) => Id.lookup(Call.CallId, RESOURCE, id, (callId) => repo.find(tenant, callId)))

/** The SRTP key exchange the tenant's call settings choose (DTLS unless SDES is set). */
export const keyExchangeOf = (tenant: Tenant) =>
  Effect.map(SettingsRoutes.current(tenant), (s): Sdp.KeyExchange => s.calling.srtp_key_exchange_protocol)

/** `POST /chat/calls/connect`: a business-initiated call with our offer. 201 with the call in `calling`. */
export const connect = (input: Call.Connect) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const phone = yield* Permissions.phoneOrFail(input.phone, "phone")
    yield* Sdp.check(input.sdp.sdp, "sdp.sdp", yield* keyExchangeOf(tenant))
    const permission = yield* Permissions.current(tenant, phone)
    const now = yield* Time.now
    if (!CallPermission.mayCall(permission, now)) {
      return yield* new CallPermissionRequired({ phone, status: CallPermission.statusAt(permission, now) })
    }
    const call = yield* Call.fresh(
      tenant,
      { phone, direction: "business_initiated", status: "calling", operatorCallId: null, offerSdp: input.sdp.sdp, payload: null },
      now
    )
    const repo = yield* CallRepo
    return yield* Mirror.run(CallMirrors.connect, {
      tenant,
      account: Store.accountFor(store, tenant.mode),
      prepare: Effect.as(repo.insert(tenant, call), { id: call.id, phone, sdp: input.sdp.sdp })
    })
  })

/** Runs one control of a call: the state machine, then the operator (`act`), then the compare-and-set and its event. */
const control = <E, R>(id: string, operation: "pre_accept" | "accept", act: (call: Call.Call) => Effect.Effect<CallPatch, E, R>) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const call = yield* lookup(tenant, id)
    yield* Either.match(Call.transition(call.status, operation, call.direction), { onLeft: Effect.fail, onRight: Effect.succeed })
    const patch = yield* act(call)
    const repo = yield* CallRepo
    return yield* Control.run({
      load: lookup(tenant, id),
      status: (c: Call.Call) => c.status,
      transition: (status: Call.Status, op: typeof operation) => Call.transition(status, op, call.direction),
      operation,
      compareAndSet: (current, from, to) => repo.update(tenant, current.id, [from], { ...patch, status: to }),
      emit: (after) => Events.emitStatus(after)
    })
  })

const accountOf = Effect.map(CurrentStore, ({ store, tenant }) => Store.accountFor(store, tenant.mode))

/** The business answers a user-initiated call with `sdp` (`pre_accept` or `accept`). */
const answer = (id: string, action: "pre_accept" | "accept", input: Call.Answer) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    yield* Sdp.check(input.sdp.sdp, "sdp.sdp", yield* keyExchangeOf(tenant))
    return yield* control(id, action, (call) =>
      Effect.gen(function* () {
        yield* (yield* CallOperator).answer(yield* accountOf, { callId: call.operatorCallId ?? "", action, sdp: input.sdp.sdp })
        const now = yield* Time.now
        return action === "accept" ? { answerSdp: input.sdp.sdp, startedAt: now, updatedAt: now } : { answerSdp: input.sdp.sdp, updatedAt: now }
      })
    )
  })

/** `POST /chat/calls/{id}/pre-accept`: our answer while the call still rings, so media connects before accept. */
export const preAccept = (id: string, input: Call.Answer) => answer(id, "pre_accept", input)

/** `POST /chat/calls/{id}/accept`. */
export const accept = (id: string, input: Call.Answer) => answer(id, "accept", input)

/** Ends a call (reject or terminate) as a mirrored write: the state machine asked first, then the operator, then the status here. */
const end = (id: string, operation: "reject" | "terminate") =>
  Effect.gen(function* () {
    const { store, tenant } = yield* CurrentStore
    const call = yield* lookup(tenant, id)
    yield* Either.match(Call.transition(call.status, operation, call.direction), { onLeft: Effect.fail, onRight: Effect.succeed })
    return yield* Mirror.run(operation === "reject" ? CallMirrors.reject : CallMirrors.terminate, {
      tenant,
      account: Store.accountFor(store, tenant.mode),
      prepare: Effect.succeed({ id: call.id, operatorCallId: call.operatorCallId })
    })
  })

/** `POST /chat/calls/{id}/reject`: refuses a user-initiated call. */
export const reject = (id: string) => end(id, "reject")

/** `POST /chat/calls/{id}/terminate`: ends the call from any live status (the operator's terminate webhook then fills in its figures). */
export const terminate = (id: string) => end(id, "terminate")

/** `GET /chat/calls/{id}`. */
export const get = (id: string) => Effect.flatMap(CurrentStore, ({ tenant }) => lookup(tenant, id))

/** `GET /chat/calls`: newest first, filtered by status, direction and phone. */
export const list = (query: {
  readonly limit: number
  readonly cursor?: Call.CallId | undefined
  readonly status?: Call.Status | undefined
  readonly direction?: Call.Direction | undefined
  readonly phone?: string | undefined
}) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const phone = query.phone === undefined ? undefined : yield* Permissions.phoneOrFail(query.phone, "phone")
    const slice = yield* (yield* CallRepo).list(tenant, {
      limit: query.limit,
      after: query.cursor,
      status: query.status,
      direction: query.direction,
      phone
    })
    return Pagination.pageOf(slice, Call.CallId.schema, (c) => c.id)
  })

/** `GET /chat/calls/{id}/media`: the negotiated media (codecs both sides offer, directions, fingerprint, candidates) and the raw SDPs. */
export const media = (id: string) =>
  Effect.gen(function* () {
    const call = yield* get(id)
    const offer = Sdp.summaryOf(call.offerSdp)
    const answer = Sdp.summaryOf(call.answerSdp)
    const names = (s: typeof offer) => new Set((s?.codecs ?? []).map((c) => c.name.toLowerCase()))
    const answered = names(answer)
    const negotiated = answer === null ? [] : (offer?.codecs ?? []).filter((c) => answered.has(c.name.toLowerCase())).map((c) => c.name)
    return { id: call.id, status: call.status, negotiated_codecs: negotiated, offer, answer }
  })
