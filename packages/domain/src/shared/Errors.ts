/**
 * The domain's errors. Each carries what a caller needs to act on it; the HTTP status and
 * the snake_case `code` of the error body are attached in `@switchboard/http`.
 */
import { Schema } from "effect"

export const FieldIssue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})
export type FieldIssue = typeof FieldIssue.Type

/** Input broke a rule; `details` names each failing field path. */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()("ValidationFailed", {
  message: Schema.String,
  details: Schema.Array(FieldIssue)
}) {
  static of(path: string, message: string): ValidationFailed {
    return new ValidationFailed({ message: `${path}: ${message}`, details: [{ path, message }] })
  }
  static all(details: ReadonlyArray<FieldIssue>): ValidationFailed {
    return new ValidationFailed({
      message: details.map((d) => `${d.path}: ${d.message}`).join("; "),
      details
    })
  }
}

/** Missing, malformed or unknown API key. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String
}) {}

/** The key is valid but may not do this (e.g. template writes with a test key when live credentials exist). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

/**
 * No such resource for this store. Another store's id answers exactly the same: the message
 * names only what the caller sent.
 */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message(): string {
    return `No such ${this.resource}: '${this.id}'`
  }
}

/** A resource with the same identity exists already. */
export class ResourceAlreadyExists extends Schema.TaggedError<ResourceAlreadyExists>()("ResourceAlreadyExists", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message(): string {
    return `A ${this.resource} '${this.id}' already exists`
  }
}

/** The state machine refuses the operation in the current status. */
export class InvalidState extends Schema.TaggedError<InvalidState>()("InvalidState", {
  resource: Schema.String,
  status: Schema.String,
  operation: Schema.String
}) {
  override get message(): string {
    return `Cannot ${this.operation} ${/^[aeiou]/i.test(this.resource) ? "an" : "a"} ${this.resource} in status '${this.status}'`
  }
}

/** Only approved templates may be sent outside the 24-hour window after the customer's last message. */
export class OutsideCustomerWindow extends Schema.TaggedError<OutsideCustomerWindow>()("OutsideCustomerWindow", {
  to: Schema.String
}) {
  override get message(): string {
    return `The customer ${this.to} has not written in the last 24 hours; only an approved template can be sent`
  }
}

/** The contact opted out; only UTILITY and AUTHENTICATION templates may reach them. */
export class RecipientOptedOut extends Schema.TaggedError<RecipientOptedOut>()("RecipientOptedOut", {
  to: Schema.String
}) {
  override get message(): string {
    return `The contact ${this.to} has opted out; only UTILITY or AUTHENTICATION templates may be sent`
  }
}

/** The operator refused the request; `code` is the operator's error code. */
export class OperatorRejected extends Schema.TaggedError<OperatorRejected>()("OperatorRejected", {
  code: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `The operator rejected the request (code ${this.code}): ${this.reason}`
  }
}

/**
 * The operator could not be reached or is throttling us; the request can be retried later.
 * - `kind: "rate_limited"`: the operator refused for a rate limit, so it did not take the
 *   request; `code` is its rate-limit code (see `OperatorErrorCode.RATE_LIMIT_CODES`), absent
 *   for a bare HTTP 429, and `retryAfterSeconds` is always set.
 * - `kind: "unreachable"`: no usable answer (network error, timeout, 5xx, an unreadable or
 *   refused answer where the operation has no refusal of its own); whether a write was taken
 *   is unknown. `code` is the operator's code when its answer carried one (a 5xx's), absent
 *   when no answer came.
 * The code is a field, never to be read back from `reason` (which is for people).
 */
export class OperatorUnavailable extends Schema.TaggedError<OperatorUnavailable>()("OperatorUnavailable", {
  kind: Schema.Literal("rate_limited", "unreachable"),
  code: Schema.optional(Schema.Number),
  reason: Schema.String,
  retryAfterSeconds: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `The operator is unavailable: ${this.reason}`
  }
}

/** The same Idempotency-Key was used with a different request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  key: Schema.String
}) {
  override get message(): string {
    return `Idempotency-Key '${this.key}' was already used with a different request`
  }
}

/** A request with this Idempotency-Key is still being processed. */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {
  key: Schema.String
}) {
  override get message(): string {
    return `A request with Idempotency-Key '${this.key}' is still in progress; retry shortly`
  }
}
