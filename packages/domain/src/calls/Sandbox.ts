/**
 * The customer's side of calls in the sandbox (test keys only), played by the emulator: a
 * customer answers a permission request, or places a call. Each goes through the emulator,
 * which sends the real signed webhook to our inbound route; the route answers once the
 * webhook has been applied here (or after `APPLY_TIMEOUT`, if no worker applies it).
 */
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { CallOperator } from "./CallOperator.js"
import * as Errors from "../shared/Errors.js"
import { CurrentStore, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Call from "./Call.js"
import * as CallPermission from "./CallPermission.js"
import { CallRepo } from "./CallRepo.js"
import * as Permissions from "./Permissions.js"
import * as Sdp from "./Sdp.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** `POST /chat/sandbox/call-permission-replies`. */
export const PermissionReply = Schema.Struct({
  phone: Schema.String,
  response: Schema.Literal("accept", "reject")
}).annotations({ ...strict, identifier: "SandboxCallPermissionReply" })

/** `POST /chat/sandbox/calls`: the customer's offer is a browser-like example when left out. */
export const PlaceCall = Schema.Struct({
  phone: Schema.String,
  sdp: Schema.optional(Call.SessionDescription("offer")),
  /** The call button's payload the call came from (echoed as `payload`). */
  payload: Schema.optional(Schema.String.pipe(Schema.maxLength(512)))
}).annotations({ ...strict, identifier: "SandboxPlaceCall" })

export const APPLY_TIMEOUT = Duration.seconds(10)

const testOnly = Effect.gen(function* () {
  const caller = yield* CurrentStore
  if (caller.tenant.mode !== "test") return yield* new Errors.Forbidden({ message: "Sandbox routes need a test key (sk_test_…)" })
  return caller
})

/** Retries `probe` every 25 ms until it answers some, within `APPLY_TIMEOUT`. */
const applied = <A, R>(probe: Effect.Effect<Option.Option<A>, never, R>) =>
  probe.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("not yet" as const), onSome: Effect.succeed })),
    Effect.retry(Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(APPLY_TIMEOUT))),
    Effect.option
  )

/** A sandbox customer answers the last permission request sent to them. Answers once the reply is applied. */
export const permissionReply = (input: typeof PermissionReply.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* testOnly
    const phone = yield* Permissions.phoneOrFail(input.phone, "phone")
    const before = yield* Permissions.current(tenant, phone)
    yield* (yield* CallOperator).sandboxPermissionReply(store.sandbox, { from: phone, response: input.response })
    // settled: the reply was applied (a decline too writes the record, also when there was no permission to withdraw)
    const after = yield* applied(Effect.map(Permissions.current(tenant, phone), (p) => (p.version > before.version ? Option.some(p) : Option.none())))
    const p = Option.getOrElse(after, () => before)
    return { accepted: true as const, phone, response: input.response, permission: CallPermission.view(p, yield* Time.now) }
  })

/** The call the operator's connect webhook made of `operatorCallId`, once applied. */
export const appliedCall = (tenant: Tenant, operatorCallId: string) =>
  applied(Effect.flatMap(CallRepo, (repo) => repo.findByOperatorId(tenant, operatorCallId)))

/** A sandbox customer calls the store's sandbox number. Answers once the call is recorded (`ringing`). */
export const placeCall = (input: typeof PlaceCall.Type) =>
  Effect.gen(function* () {
    const { store, tenant } = yield* testOnly
    const phone = yield* Permissions.phoneOrFail(input.phone, "phone")
    const offer = input.sdp?.sdp ?? Sdp.EXAMPLE_OFFER
    if (input.sdp !== undefined) yield* Sdp.check(offer, "sdp.sdp")
    const placed = yield* (yield* CallOperator).sandboxPlaceCall(store.sandbox, { from: phone, sdp: offer, payload: input.payload })
    const call = yield* appliedCall(tenant, placed.callId)
    return { accepted: true as const, operator_call_id: placed.callId, call_id: Option.match(call, { onNone: () => null, onSome: (c) => c.id }) }
  })
