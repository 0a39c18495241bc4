/**
 * The domain's `CallOperator` over the Graph API (GRAPH_API.md §6, Appendix B.5): call
 * permissions (`GET /{phone_number_id}/call_permissions`, a read, retried), the call actions
 * (`POST /{phone_number_id}/calls`, writes: only rate limits are retried) and, for sandbox
 * accounts, the emulator's customer side of calls (`POST /_emulator/call-permission-replies`,
 * `POST /_emulator/calls`). The calling refusals (§6.9) become the domain's named errors.
 */
import { CallErrors, CallOperator, OperatorErrorCode, Phone, type Store } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import { GraphApi } from "./GraphApi.js"
import { decode } from "./internal/answers.js"
import * as Graph from "./internal/graph.js"

const PermissionAnswer = Schema.Struct({
  permission: Schema.Struct({
    status: Schema.String,
    expiration_time: Schema.optional(Schema.NullOr(Schema.Union(Schema.Number, Schema.String)))
  })
})
const ConnectAnswer = Schema.Struct({ calls: Schema.NonEmptyArray(Schema.Struct({ id: Schema.String })) })
const PlacedAnswer = Schema.Struct({ call_id: Schema.String })

/** The next allowed time a 138012 refusal gives in its details (a date-time or epoch seconds, the details' last word). */
const nextAllowedOf = (details: string | undefined): number | undefined => {
  const last = details?.trim().split(" ").pop()
  if (last === undefined || last === "") return undefined
  const asNumber = Number(last)
  if (Number.isFinite(asNumber) && asNumber > 0) return asNumber * 1000
  const parsed = Date.parse(last)
  return Number.isNaN(parsed) ? undefined : parsed
}

/** The domain error of a failed call action: the calling refusals by name (§6.9), anything else as `Graph.toDomainError`. */
export const callError = (failure: Graph.GraphFailure, phone: string): CallOperator.CallActionError => {
  if (failure._tag !== "Refused") return Graph.toDomainError(failure)
  const { code, details } = failure.error
  const fields = { operatorCode: code, detail: Graph.reasonOf(failure.error) }
  switch (code) {
    case OperatorErrorCode.NO_CALL_PERMISSION:
      return new CallErrors.CallPermissionRequired({ phone, status: "no_permission" })
    case OperatorErrorCode.CALLING_NOT_ENABLED:
    case OperatorErrorCode.CALLING_CANNOT_BE_ENABLED:
      return new CallErrors.CallingNotEnabled(fields)
    case OperatorErrorCode.RECEIVER_UNCALLABLE:
      return new CallErrors.CustomerNotCallable(fields)
    case OperatorErrorCode.CALL_IN_PROGRESS:
      return new CallErrors.CallInProgress(fields)
    case OperatorErrorCode.CALLS_PER_USER_LIMIT: {
      const next = nextAllowedOf(details)
      return new CallErrors.CallLimitReached({ ...fields, ...(next === undefined ? {} : { nextAllowedAt: next }) })
    }
    case OperatorErrorCode.CONCURRENT_CALLS_LIMIT:
    case OperatorErrorCode.CALL_RATE_LIMIT:
      return Graph.unavailable({ kind: "rate_limited", code, reason: `call rate limit: ${fields.detail}`, retryAfterSeconds: 60 })
    default:
      return Graph.toDomainError(failure)
  }
}

/** Builds the capability on the `GraphApi` in context. */
export const make: Effect.Effect<CallOperator.CallOperator["Type"], never, GraphApi> = Effect.map(GraphApi, (api) => {
  const action = (account: Store.OperatorAccount, json: Record<string, unknown>, phone: string) =>
    Effect.gen(function* () {
      const endpoint = yield* api.endpointFor(account)
      const request = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.phoneNumberId, "calls"), {
        json: { messaging_product: "whatsapp", ...json }
      })
      return yield* Effect.mapError(api.run(request, "write"), (failure) => callError(failure, phone))
    })
  const control = (account: Store.OperatorAccount, path: string, json: Record<string, unknown>) =>
    Effect.gen(function* () {
      yield* api.registerSandboxAccount(account)
      const request = Graph.request(api.sandbox, "POST", Graph.controlUrl(api.sandbox, path), {
        json: { phone_number_id: account.phoneNumberId, ...json }
      })
      return yield* Effect.mapError(api.run(request, "write"), Graph.toDomainError)
    })
  return CallOperator.CallOperator.of({
    getPermission: (account, phone) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const answer = yield* Effect.mapError(
          api.run(
            Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, account.phoneNumberId, "call_permissions"), {
              query: { user_wa_id: Phone.toWaId(phone) }
            }),
            "idempotent"
          ),
          Graph.toUnavailable
        )
        const { permission } = yield* decode(PermissionAnswer, "call permission")(answer.body)
        const expiry = permission.expiration_time === undefined || permission.expiration_time === null ? NaN : Number(permission.expiration_time)
        return { status: permission.status, expiresAt: Number.isFinite(expiry) && expiry > 0 ? expiry * 1000 : null }
      }),
    connect: (account, input) =>
      Effect.gen(function* () {
        const answer = yield* action(
          account,
          {
            to: Phone.toWaId(input.to),
            action: "connect",
            session: { sdp_type: "offer", sdp: input.sdp },
            ...(input.callbackData === undefined ? {} : { biz_opaque_callback_data: input.callbackData })
          },
          input.to
        )
        const { calls } = yield* decode(ConnectAnswer, "call connect")(answer.body)
        return { callId: calls[0].id }
      }),
    answer: (account, input) =>
      Effect.asVoid(action(account, { call_id: input.callId, action: input.action, session: { sdp_type: "answer", sdp: input.sdp } }, "")),
    end: (account, input) => Effect.asVoid(action(account, { call_id: input.callId, action: input.action }, "")),
    setSettings: (account, calling) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const request = Graph.request(endpoint, "POST", Graph.graphUrl(endpoint, account.phoneNumberId, "settings"), { json: { calling } })
        yield* Effect.mapError(api.run(request, "idempotent"), Graph.toDomainError)
      }),
    getHealth: (account) =>
      Effect.gen(function* () {
        const endpoint = yield* api.endpointFor(account)
        const request = Graph.request(endpoint, "GET", Graph.graphUrl(endpoint, account.phoneNumberId), {
          query: { fields: "health_status,status,quality_rating" }
        })
        const answer = yield* Effect.mapError(api.run(request, "idempotent"), Graph.toUnavailable)
        const body = (answer.body ?? {}) as Record<string, any>
        const health = body.health_status as { can_send_message?: unknown } | undefined
        if (health !== undefined && typeof health.can_send_message === "string") return { status: health.can_send_message, detail: null }
        const status = typeof body.status === "string" ? body.status : "UNKNOWN"
        const quality = typeof body.quality_rating === "string" ? body.quality_rating : null
        return {
          status: status === "CONNECTED" && quality !== "RED" ? "AVAILABLE" : status === "CONNECTED" ? "LIMITED" : "BLOCKED",
          detail: `phone number ${status}${quality === null ? "" : `, quality ${quality}`}`
        }
      }),
    sandboxPermissionReply: (account, input) =>
      Effect.asVoid(control(account, "call-permission-replies", { from: Phone.toWaId(input.from), response: input.response })),
    sandboxPlaceCall: (account, input) =>
      Effect.gen(function* () {
        const answer = yield* control(account, "calls", {
          from: Phone.toWaId(input.from),
          sdp: input.sdp,
          ...(input.payload === undefined ? {} : { payload: input.payload })
        })
        const placed = yield* decode(PlacedAnswer, "sandbox call")(answer.body)
        return { callId: placed.call_id }
      })
  })
})

/** `CallOperator` on the `GraphApi` in context. */
export const layer: Layer.Layer<CallOperator.CallOperator, never, GraphApi> = Layer.effect(CallOperator.CallOperator, make)
