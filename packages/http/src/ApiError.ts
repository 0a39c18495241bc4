/**
 * The error model of the API: every error answers
 * `{"error": {"code": "snake_case_code", "message": "...", "details": ...}}` with the status
 * the README lists (API conventions). Domain errors stay transport-free; the status and code are attached
 * here, once, by `errorSchema`.
 */
import { type HttpApiEndpoint, HttpApiSchema } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { CallErrors, Errors, FlowErrors, OrderMoney, OrderPayments, Time } from "@switchboard/domain"
import { ParseResult, Schema } from "effect"

export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    details: Schema.optional(Schema.Unknown)
  })
}).annotations({ identifier: "Error" })
export type ErrorBody = typeof ErrorBody.Type

/** A request body larger than its route's limit (1 MiB unless the route sets its own: `BodyLimit`). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  limitBytes: Schema.Number
}) {
  override get message(): string {
    return `The request body exceeds ${this.limitBytes} bytes`
  }
}

/** A request body that stopped arriving: no byte for `idleSeconds`. */
export class BodyTimedOut extends Schema.TaggedError<BodyTimedOut>()("BodyTimedOut", {
  idleSeconds: Schema.Number
}) {
  override get message(): string {
    return `The request body stopped arriving: no byte for ${this.idleSeconds} s`
  }
}

/** A request body in a content type the route does not declare. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  contentType: Schema.String,
  accepted: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const given = this.contentType.length > 100 ? `${this.contentType.slice(0, 100)}…` : this.contentType
    return `Content-Type '${given}' is not accepted here; send ${this.accepted.join(" or ")}`
  }
}

/** No route has this method and path. */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String
}) {
  override get message(): string {
    return `No route ${this.method} ${this.path}`
  }
}

/** A bug: logged with its cause, answered without internals. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {}) {
  override get message(): string {
    return "An internal error occurred; it has been logged"
  }
}

/** The error body whose `code` is exactly `code` (the OpenAPI document shows it as an `enum` of one). */
const errorBodyOf = (code: string) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: Schema.String,
      details: Schema.optional(Schema.Unknown)
    })
  })

/**
 * An error answer as the typed client (`Client.ts`) sees it: an instance of the error's class,
 * with its tag, and the answer's `message`, `code` and `details` (the other fields the server
 * had are not on the wire).
 */
const fromBody = <E>(errorClass: new (...args: any) => E, body: ErrorBody): E => {
  const error = Object.create(errorClass.prototype) as E
  const tag = (errorClass as unknown as { readonly _tag?: unknown })._tag
  const fields: Record<string, unknown> = { message: body.error.message, code: body.error.code, details: body.error.details }
  if (typeof tag === "string") fields._tag = tag
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) Object.defineProperty(error, key, { value, enumerable: true, configurable: true })
  }
  return error
}

/**
 * The schema that encodes instances of `errorClass` as the error body with `status` and
 * `code`. The decoding side is the body, which is what OpenAPI documents, with `error.code`
 * constrained to `code`; decoding (the typed client) gives back an instance (`fromBody`).
 */
export const errorSchema = <E extends { readonly message: string }>(
  errorClass: new (...args: any) => E,
  code: string,
  status: number,
  details?: (e: E) => unknown,
  /** For two errors of one status and code: which answers are this one's (the client decodes the first that matches). */
  matches?: (body: ErrorBody) => boolean
): Schema.Schema<E, ErrorBody> =>
  Schema.transformOrFail(
    errorBodyOf(code) as unknown as typeof ErrorBody,
    Schema.declare((u): u is E => u instanceof errorClass, { identifier: errorClass.name }),
    {
      strict: true,
      decode: (body, _, ast) =>
        matches === undefined || matches(body)
          ? ParseResult.succeed(fromBody(errorClass, body))
          : ParseResult.fail(new ParseResult.Type(ast, body, `not a ${errorClass.name} answer`)),
      encode: (e) => {
        const d = details?.(e)
        return ParseResult.succeed({ error: d === undefined ? { code, message: e.message } : { code, message: e.message, details: d } })
      }
    }
  ).annotations({
    ...HttpApiSchema.annotations({ status }),
    identifier: `${code}`,
    description: `${status} ${code}`
  })

export const ValidationFailed = errorSchema(Errors.ValidationFailed, "validation_failed", 400, (e) => e.details)
export const Unauthorized = errorSchema(Errors.Unauthorized, "unauthorized", 401)
export const Forbidden = errorSchema(Errors.Forbidden, "forbidden", 403)
export const ResourceNotFound = errorSchema(Errors.ResourceNotFound, "resource_not_found", 404)
export const NoRoute = errorSchema(RouteNotFound, "resource_not_found", 404, undefined, (body) => body.error.message.startsWith("No route "))
export const ResourceAlreadyExists = errorSchema(Errors.ResourceAlreadyExists, "resource_already_exists", 409)
export const InvalidState = errorSchema(Errors.InvalidState, "invalid_state", 409, (e) => ({ status: e.status }))
export const OutsideCustomerWindow = errorSchema(Errors.OutsideCustomerWindow, "outside_customer_window", 409)
export const PaymentsNotConfigured = errorSchema(OrderPayments.PaymentsNotConfigured, "payments_not_configured", 409)
export const RecipientOptedOut = errorSchema(Errors.RecipientOptedOut, "recipient_opted_out", 409)
export const IdempotencyKeyInUse = errorSchema(Errors.IdempotencyKeyInUse, "idempotency_key_in_use", 409)
export const IdempotencyKeyReused = errorSchema(Errors.IdempotencyKeyReused, "idempotency_key_reused", 422)
export const RefundExceedsRefundable = errorSchema(OrderMoney.RefundExceedsRefundable, "refund_exceeds_refundable", 422, (e) => ({
  refundable_amount: e.refundable,
  currency: e.currency,
  requested: e.requested
}))
export const OperatorRejected = errorSchema(Errors.OperatorRejected, "operator_rejected", 422, (e) => ({ operator_code: e.code }))
export const OperatorUnavailable = errorSchema(Errors.OperatorUnavailable, "operator_unavailable", 503, (e) =>
  e.retryAfterSeconds === undefined ? undefined : { retry_after_seconds: e.retryAfterSeconds }
)
export const CallPermissionRequired = errorSchema(CallErrors.CallPermissionRequired, "call_permission_required", 409, (e) => ({
  phone: e.phone,
  status: e.status
}))
export const CallPermissionRequestLimited = errorSchema(CallErrors.CallPermissionRequestLimited, "call_permission_request_limited", 409, (e) => ({
  next_allowed_at: Time.toIso(e.nextAllowedAt)
}))
export const CallInProgress = errorSchema(CallErrors.CallInProgress, "call_in_progress", 409, (e) => ({ operator_code: e.operatorCode }))
export const CustomerNotCallable = errorSchema(CallErrors.CustomerNotCallable, "customer_not_callable", 422, (e) => ({
  operator_code: e.operatorCode
}))
export const CallLimitReached = errorSchema(CallErrors.CallLimitReached, "call_limit_reached", 409, (e) => ({
  operator_code: e.operatorCode,
  next_allowed_at: e.nextAllowedAt === undefined ? null : Time.toIso(e.nextAllowedAt)
}))
export const CallingNotEnabled = errorSchema(CallErrors.CallingNotEnabled, "calling_not_enabled", 409, (e) => ({ operator_code: e.operatorCode }))
export const FlowPublished = errorSchema(FlowErrors.FlowPublished, "flow_published", 409, (e) => ({ status: e.status }))
export const FlowJsonInvalid = errorSchema(
  FlowErrors.FlowJsonInvalid,
  "validation_failed",
  400,
  (e) => e.errors,
  (b) => b.error.message.startsWith("The Flow JSON")
)
export const TooLarge = errorSchema(PayloadTooLarge, "payload_too_large", 413)
export const RequestTimeout = errorSchema(BodyTimedOut, "request_timeout", 408)
export const UnsupportedType = errorSchema(UnsupportedMediaType, "unsupported_media_type", 415)
export const Internal = errorSchema(InternalError, "internal_error", 500)

/** A route that calls the operator: its refusal (422) and its absence (503). */
export const operatorErrors = [OperatorRejected, OperatorUnavailable] as const

/** A send to a customer: outside the window, opted out, unknown or not sendable, and the operator's answers. */
export const sendErrors = [OutsideCustomerWindow, RecipientOptedOut, ResourceNotFound, InvalidState, ...operatorErrors] as const

/** Adds the error answers `errors` to an endpoint (`.pipe(ApiError.withErrors(ApiError.Forbidden, ...ApiError.operatorErrors))`). */
export const withErrors =
  <const Es extends ReadonlyArray<Schema.Schema.Any>>(...errors: Es) =>
  <N extends string, M extends HttpMethod, P, U, B, H, S, E, R, RE>(
    endpoint: HttpApiEndpoint.HttpApiEndpoint<N, M, P, U, B, H, S, E, R, RE>
  ): HttpApiEndpoint.HttpApiEndpoint<N, M, P, U, B, H, S, E | Schema.Schema.Type<Es[number]>, R, RE | Schema.Schema.Context<Es[number]>> =>
    errors.reduce((e: any, schema) => e.addError(schema), endpoint)
