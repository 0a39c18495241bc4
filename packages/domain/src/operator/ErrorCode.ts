/**
 * The operator's error codes (GRAPH_API.md §10), named once, and classified by what we do
 * about them. Every code our sources compare against is a constant here; nowhere else in
 * `domain`, `worker` or `operator-client` is an operator code written as a number. (The
 * emulator plays the operator and keeps its own table: it imports nothing of ours.)
 *
 * Codes of send refusals and of `failed` status webhooks share one space.
 */

// ---------------------------------------------------------------------------------------------
// Graph API (any edge)

/** Generic "unknown" Graph error; transient. */
export const API_UNKNOWN = 1
/** Graph service error; transient. */
export const API_SERVICE = 2
/** App-level call rate limit (subcode 2390008 on call permissions). */
export const APP_RATE_LIMIT = 4
/** Permission denied. */
export const PERMISSION_DENIED = 10
/** Invalid parameter: the Graph's generic validation error (with subcode 33: no such object). */
export const INVALID_PARAMETER = 100
/** Subcode of `INVALID_PARAMETER`: the object does not exist or cannot be loaded. */
export const UNKNOWN_OBJECT_SUBCODE = 33
/** The access token is invalid or expired. */
export const ACCESS_TOKEN_EXPIRED = 190
/** Temporarily blocked for policy violations. */
export const TEMPORARILY_BLOCKED = 368
/** The business account's (WABA) call budget is used up. */
export const WABA_RATE_LIMIT = 80007
/** The catalog's `items_batch` call quota ("Catalog Batch" business use case) is used up: back off. */
export const CATALOG_BATCH_RATE_LIMIT = 80014

// ---------------------------------------------------------------------------------------------
// Messaging (§3)

/** The sender number's throughput is used up (messages per second). */
export const RATE_LIMIT_HIT = 130429
/** The user is in a marketing experiment group: not sent. */
export const MARKETING_EXPERIMENT = 130472
/** Something went wrong on the operator's side. */
export const SOMETHING_WENT_WRONG = 131000
/** Required send parameter missing. */
export const MISSING_PARAMETER = 131008
/** A send parameter's value is invalid. */
export const INVALID_PARAMETER_VALUE = 131009
/** Service temporarily unavailable. */
export const SERVICE_UNAVAILABLE = 131016
/** Undeliverable: not on WhatsApp, an old client, or terms not accepted. */
export const UNDELIVERABLE = 131026
/** More than 24 hours since the customer last wrote: only a template may be sent. */
export const OUTSIDE_WINDOW = 131047
/** Spam rate limit. */
export const SPAM_RATE_LIMIT = 131048
/** Held back by the per-user marketing cap. */
export const MARKETING_CAP = 131049
/** The user stopped marketing messages from this business. */
export const USER_STOPPED_MARKETING = 131050
/** Unsupported message type. */
export const UNSUPPORTED_MESSAGE_TYPE = 131051
/** Too many messages from the sender number to the same user (the pair rate). */
export const PAIR_RATE_LIMIT = 131056
/** The business account is in maintenance mode. */
export const ACCOUNT_IN_MAINTENANCE = 131057
/** The messaging limit was hit because of template-classification violations: not retryable. */
export const TEMPLATE_CLASSIFICATION_LIMIT = 131064

// ---------------------------------------------------------------------------------------------
// Templates (§4)

/** The template's parameter count does not match the send. */
export const TEMPLATE_PARAM_COUNT = 132000
/** No such template in that language, or not approved. */
export const TEMPLATE_NOT_FOUND = 132001
/** The template text is too long after substitution. */
export const TEMPLATE_TEXT_TOO_LONG = 132005
/** The template violates a content policy. */
export const TEMPLATE_POLICY_VIOLATION = 132007
/** The template is paused (low quality) until unpaused. */
export const TEMPLATE_PAUSED = 132015
/** The template is disabled. */
export const TEMPLATE_DISABLED = 132016
/** Too many register / deregister attempts of a number. */
export const TOO_MANY_REGISTRATIONS = 133016

// ---------------------------------------------------------------------------------------------
// Calling (§6.9)

/** Calling is not enabled for the number. */
export const CALLING_NOT_ENABLED = 138000
/** The receiver cannot be called (not on WhatsApp, an old client, terms not accepted). */
export const RECEIVER_UNCALLABLE = 138001
/** 1,000 concurrent calls or more. */
export const CONCURRENT_CALLS_LIMIT = 138002
/** There already is a call with this user. */
export const CALL_IN_PROGRESS = 138003
/** The call could not connect. */
export const CALL_CONNECTION_ERROR = 138004
/** The business's call rate limit. */
export const CALL_RATE_LIMIT = 138005
/** No approved call permission from the user. */
export const NO_CALL_PERMISSION = 138006
/** The answer SDP was not applied in time. */
export const CALL_CONNECT_TIMEOUT = 138007
/** The permission-request limit (1 per 24 h, 2 per 7 days) is used up. */
export const CALL_PERMISSION_REQUEST_LIMIT = 138009
/** 5 connected business-initiated calls per user per 24 h; `error_data` gives the next allowed time. */
export const CALLS_PER_USER_LIMIT = 138012
/** Calling cannot be enabled (prerequisites, or no app subscribed to `calls`). */
export const CALLING_CANNOT_BE_ENABLED = 138018
/** The permission-status fetch rate limit (formerly 138013). */
export const CALL_PERMISSION_CHECK_RATE_LIMIT = 613

// ---------------------------------------------------------------------------------------------
// Flows (§5.2)

/** The flow is blocked (health monitoring or integrity): it cannot be sent. */
export const FLOW_BLOCKED = 132068
/** The flow is throttled: 10 sends an hour are used. */
export const FLOW_THROTTLED = 132069
/** The flow is blocked for integrity. */
export const FLOW_INTEGRITY_BLOCK = 139000
/** Updating the flow failed (published, JSON processing, `endpoint_uri` in Flow JSON 3.0 and later). */
export const FLOW_UPDATE_FAILED = 139001
/** Publishing the flow failed (validation errors, no endpoint, no signed public key, endpoint unavailable, ...). */
export const FLOW_PUBLISH_FAILED = 139002
/** Deprecating the flow failed (unpublished, or already deprecated). */
export const FLOW_DEPRECATE_FAILED = 139003
/** Deleting the flow failed (published). */
export const FLOW_DELETE_FAILED = 139004

// ---------------------------------------------------------------------------------------------
// Classification

/**
 * What we do about a code:
 * - `throttled`: back off and retry later (rate limits).
 * - `transient`: retry with back-off.
 * - `optedOut`: never retry; the contact joins the store's opt-out list.
 * - `permanent`: never retry.
 */
export type ErrorClass = "throttled" | "transient" | "optedOut" | "permanent"

/** The rate-limit codes: the request was not taken and may be sent again later. */
export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([
  APP_RATE_LIMIT,
  WABA_RATE_LIMIT,
  CATALOG_BATCH_RATE_LIMIT,
  RATE_LIMIT_HIT,
  PAIR_RATE_LIMIT,
  // restrictions on how many messages the number may send (spam rate limit; what the sandbox
  // answers past the messaging limit): not sent, the lane waits and sends again later
  SPAM_RATE_LIMIT
])
const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  API_UNKNOWN,
  API_SERVICE,
  SOMETHING_WENT_WRONG,
  SERVICE_UNAVAILABLE,
  ACCOUNT_IN_MAINTENANCE,
  // the per-user marketing cap holds back only this recipient: retryable later (issue 30)
  MARKETING_CAP,
  TOO_MANY_REGISTRATIONS,
  TEMPORARILY_BLOCKED
])
/** Refusals that name the template rather than the recipient: every send of it would fail alike. */
export const TEMPLATE_BLOCKED_CODES: ReadonlySet<number> = new Set([TEMPLATE_PAUSED, TEMPLATE_DISABLED, TEMPLATE_NOT_FOUND])

export const classify = (code: number): ErrorClass =>
  RATE_LIMIT_CODES.has(code) ? "throttled" : code === USER_STOPPED_MARKETING ? "optedOut" : TRANSIENT_CODES.has(code) ? "transient" : "permanent"

export const isRetryable = (code: number): boolean => {
  const c = classify(code)
  return c === "throttled" || c === "transient"
}

export const isRateLimit = (code: number): boolean => RATE_LIMIT_CODES.has(code)

/**
 * What a rate limit is on: the sender number's throughput (`RATE_LIMIT_HIT`), one user (the
 * pair rate, `PAIR_RATE_LIMIT`), or the app or business account (`APP_RATE_LIMIT`,
 * `WABA_RATE_LIMIT`, and a rate limit without a code).
 */
export type RateLimitScope = "number" | "user" | "account"

export const rateLimitScope = (code: number | undefined): RateLimitScope =>
  code === RATE_LIMIT_HIT ? "number" : code === PAIR_RATE_LIMIT ? "user" : "account"

/** Seconds to wait after a rate limit when the operator did not say how long. */
export const defaultRetryAfterSeconds = (code: number | undefined): number => {
  switch (code) {
    case PAIR_RATE_LIMIT:
      return 6 // one message per 6 s to the same user (§3.2)
    case RATE_LIMIT_HIT:
      return 1 // per-number throughput, a one-second window
    case CATALOG_BATCH_RATE_LIMIT:
      return 10 // the catalog's batch quota; the batch runner paces below it and backs off from here
    case SPAM_RATE_LIMIT:
      return 5 // the number is restricted for now: the lane waits, then tries again
    case APP_RATE_LIMIT:
    case WABA_RATE_LIMIT:
      return 60 // app / WABA call budgets refill over minutes
    default:
      return 1
  }
}
