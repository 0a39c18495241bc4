/**
 * Call routes (spec §4.8): connect (business-initiated, with the customer's permission
 * checked at call time), the business's answers to a user-initiated call (pre-accept,
 * accept, reject), terminate, and reading calls and their media. Every route works in the
 * caller's tenant; another store's call id answers 404 `resource_not_found` as an unknown one.
 *
 * A control asks the state machine first (409 `invalid_state` naming the current status),
 * then the operator, then writes the status by compare-and-set with its caller event in one
 * transaction (`Control.run`); the operator is never called inside a transaction.
 */
import { Effect, Either, Option } from "effect"
import { CallOperator } from "./CallOperator.js"
import * as Control from "../shared/Control.js"
import * as Id from "../shared/Id.js"
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
    const call: Call.Call = {
      id: yield* Call.CallId.generate,
      storeId: tenant.storeId,
      mode: tenant.mode,
      phone,
      direction: "business_initiated",
      status: "calling",
      operatorCallId: null,
      offerSdp: input.sdp.sdp,
      answerSdp: null,
      payload: null,
      endStatus: null,
      startedAt: null,
      endedAt: null,
      durationSeconds: null,
      error: null,
      createdAt: now,
      updatedAt: now
    }
    const repo = yield* CallRepo
    yield* repo.insert(tenant, call)
    const placed = yield* Effect.either(
      (yield* CallOperator).connect(Store.accountFor(store, tenant.mode), { to: phone, sdp: input.sdp.sdp, callbackData: call.id })
    )
    if (Either.isLeft(placed)) {
      const error = placed.left
      const code = "operatorCode" in error ? error.operatorCode : "code" in error && typeof error.code === "number" ? error.code : 0
      yield* repo.update(tenant, call.id, ["calling"], { status: "failed", error: { code, message: error.message }, updatedAt: yield* Time.now })
      return yield* Effect.fail(error)
    }
    const after = yield* repo.update(tenant, call.id, ["calling", "ringing", "accepted"], { operatorCallId: placed.right.callId })
    return Option.getOrElse(after, () => ({ ...call, operatorCallId: placed.right.callId }))
  })

/** Runs one control of a call: the state machine, then the operator (`act`), then the compare-and-set and its event. */
const control = <E, R>(
  id: string,
  operation: "pre_accept" | "accept" | "reject" | "terminate",
  act: (call: Call.Call) => Effect.Effect<CallPatch, E, R>
) =>
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

/** `POST /chat/calls/{id}/reject`: refuses a user-initiated call. */
export const reject = (id: string) =>
  control(id, "reject", (call) =>
    Effect.gen(function* () {
      yield* (yield* CallOperator).end(yield* accountOf, { callId: call.operatorCallId ?? "", action: "reject" })
      return { updatedAt: yield* Time.now }
    })
  )

/** `POST /chat/calls/{id}/terminate`: ends the call from any live status (the operator's terminate webhook then fills in its figures). */
export const terminate = (id: string) =>
  control(id, "terminate", (call) =>
    Effect.gen(function* () {
      if (call.operatorCallId !== null) yield* (yield* CallOperator).end(yield* accountOf, { callId: call.operatorCallId, action: "terminate" })
      const now = yield* Time.now
      return {
        endedAt: now,
        durationSeconds: call.startedAt === null ? 0 : Math.max(0, Math.round((now - call.startedAt) / 1000)),
        updatedAt: now
      }
    })
  )

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
