/**
 * Call permission (spec §4.8, §8; GRAPH_API.md §6.1, §6.2): whether the business may call a
 * customer, and the budget of permission requests it may still send them. One record per
 * tenant and customer phone, computed by time: a temporary permission lapses at its
 * `expiresAt` and a request leaves the budget when its period has passed, so no job ever
 * has to run for either.
 *
 * The budget is the operator's: at most 1 request per 24 hours and 2 per 7 days per
 * customer; a connected call resets it (`budgetResetAt`: requests sent before it no longer
 * count). `requestTimes` keeps the times of the requests that may still count.
 *
 * The status is open: `no_permission`, `temporary` and `permanent` are the values in use,
 * and any other value the operator reports is kept as it says.
 */
import { Schema } from "effect"
import { Owned, type Tenant } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

/** The statuses in use; the operator may report others, kept as given. */
export const KNOWN_STATUSES = ["no_permission", "temporary", "permanent"] as const
export const Status = Schema.String.annotations({ examples: [...KNOWN_STATUSES] })

/** How long a permission accepted without an expiry lasts (the operator's temporary permission). */
export const TEMPORARY_MS: Time.Millis = 7 * Time.DAY

/** The request budget: one entry per period, as the operator counts it. */
export const LIMITS = [
  { period: "PT24H", windowMs: Time.DAY, max: 1 },
  { period: "P7D", windowMs: 7 * Time.DAY, max: 2 }
] as const
const LONGEST_MS = 7 * Time.DAY

export const Permission = Schema.Struct({
  ...Owned,
  /** E.164. */
  phone: Schema.String,
  status: Schema.String,
  /** When a temporary permission lapses; null for none or permanent. */
  expiresAt: Schema.NullOr(Schema.Number),
  /** Times of the requests sent that may still count against the budget. */
  requestTimes: Schema.Array(Schema.Number),
  /** Requests sent before this time do not count (a connected call resets the budget). */
  budgetResetAt: Schema.NullOr(Schema.Number),
  /** The operator's message id of the last request sent (a reply names it as its context). */
  lastRequestMessageId: Schema.NullOr(Schema.String),
  /** Compare-and-set version: every change adds one. */
  version: Schema.Number,
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Permission extends Schema.Schema.Type<typeof Permission> {}

/** The record of a phone nobody asked about yet. */
export const fresh = (tenant: Tenant, phone: string, now: Time.Millis): Permission => ({
  storeId: tenant.storeId,
  mode: tenant.mode,
  phone,
  status: "no_permission",
  expiresAt: null,
  requestTimes: [],
  budgetResetAt: null,
  lastRequestMessageId: null,
  version: 0,
  createdAt: now,
  updatedAt: now
})

/** The status at `now`: a temporary permission past its expiry has lapsed. */
export const statusAt = (p: Pick<Permission, "status" | "expiresAt">, now: Time.Millis): string =>
  p.expiresAt !== null && p.expiresAt <= now && p.status !== "permanent" ? "no_permission" : p.status

/** Whether a business-initiated call may start at `now`. */
export const mayCall = (p: Pick<Permission, "status" | "expiresAt">, now: Time.Millis): boolean => {
  const status = statusAt(p, now)
  return status === "temporary" || status === "permanent"
}

/** The requests that count at `now`: within the longest period and after the last reset. */
const counted = (p: Pick<Permission, "requestTimes" | "budgetResetAt">, now: Time.Millis, windowMs: Time.Millis) =>
  p.requestTimes.filter((t) => t > now - windowMs && (p.budgetResetAt === null || t > p.budgetResetAt)).sort((a, b) => a - b)

export interface Limit {
  readonly period: (typeof LIMITS)[number]["period"]
  readonly max: number
  readonly used: number
  /** When one more request fits in this period again; null while there is room. */
  readonly freesAt: Time.Millis | null
}

/** Each period's use of the budget at `now`. */
export const limitsAt = (p: Pick<Permission, "requestTimes" | "budgetResetAt">, now: Time.Millis): ReadonlyArray<Limit> =>
  LIMITS.map(({ period, windowMs, max }) => {
    const times = counted(p, now, windowMs)
    return { period, max, used: times.length, freesAt: times.length >= max ? times[times.length - max] + windowMs : null }
  })

/** When the next request may be sent: null when one may be sent at `now`. */
export const nextRequestAllowedAt = (p: Pick<Permission, "requestTimes" | "budgetResetAt">, now: Time.Millis): Time.Millis | null => {
  const full = limitsAt(p, now).flatMap((l) => (l.freesAt === null ? [] : [l.freesAt]))
  return full.length === 0 ? null : Math.max(...full)
}

/** The request times still worth keeping at `now`, with `at` added. */
export const withRequest = (p: Pick<Permission, "requestTimes" | "budgetResetAt">, at: Time.Millis): ReadonlyArray<Time.Millis> => [
  ...counted(p, at, LONGEST_MS),
  at
]

/** A permission as a route shows it at one moment. */
export interface View {
  readonly phone: string
  readonly status: string
  readonly expiresAt: Time.Millis | null
  readonly canStartCall: boolean
  readonly canRequestPermission: boolean
  readonly limits: ReadonlyArray<Limit>
  readonly nextRequestAllowedAt: Time.Millis | null
  readonly updatedAt: Time.Millis | null
}

export const view = (p: Permission, now: Time.Millis): View => {
  const status = statusAt(p, now)
  const next = nextRequestAllowedAt(p, now)
  return {
    phone: p.phone,
    status,
    expiresAt: status === "no_permission" ? null : p.expiresAt,
    canStartCall: mayCall(p, now),
    canRequestPermission: next === null,
    limits: limitsAt(p, now),
    nextRequestAllowedAt: next,
    updatedAt: p.version === 0 ? null : p.updatedAt
  }
}

// ---------------------------------------------------------------------------------------
// requests and resources

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** The approved template that carries the request outside the customer's window. */
export const PermissionTemplate = Schema.Struct({
  name: Schema.String,
  language: Schema.String,
  parameters: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}).annotations({ ...strict, identifier: "CallPermissionTemplate" })

/** `POST /chat/calls/permissions`. */
export const RequestPermission = Schema.Struct({
  phone: Schema.String,
  /** The text of the interactive request (inside the window). */
  body: Schema.optional(Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 1024) || "must be 1 to 1024 characters"))),
  /** Outside the window: the approved template that carries the request. */
  template: Schema.optional(PermissionTemplate)
}).annotations({ ...strict, identifier: "RequestCallPermission" })
export type RequestPermission = typeof RequestPermission.Type

/** The default text of the interactive request. */
export const DEFAULT_REQUEST_TEXT = "May we call you on WhatsApp about your order?"

const LimitJson = Schema.Struct({
  period: Schema.Literal("PT24H", "P7D"),
  max: Schema.Int,
  used: Schema.Int,
  frees_at: Schema.NullOr(Time.IsoDateTime)
}).annotations({ identifier: "CallPermissionLimit" })

const ViewJson = Schema.Struct({
  phone: Schema.String,
  status: Status,
  expires_at: Schema.NullOr(Time.IsoDateTime),
  can_start_call: Schema.Boolean,
  can_request_permission: Schema.Boolean,
  limits: Schema.Array(LimitJson),
  next_request_allowed_at: Schema.NullOr(Time.IsoDateTime),
  updated_at: Schema.NullOr(Time.IsoDateTime)
})

const ViewType = Schema.Struct({
  phone: Schema.String,
  status: Schema.String,
  expiresAt: Schema.NullOr(Schema.Number),
  canStartCall: Schema.Boolean,
  canRequestPermission: Schema.Boolean,
  limits: Schema.Array(
    Schema.Struct({ period: Schema.Literal("PT24H", "P7D"), max: Schema.Number, used: Schema.Number, freesAt: Schema.NullOr(Schema.Number) })
  ),
  nextRequestAllowedAt: Schema.NullOr(Schema.Number),
  updatedAt: Schema.NullOr(Schema.Number)
})

const encodeView = (v: View): typeof ViewJson.Type => ({
  phone: v.phone,
  status: v.status,
  expires_at: v.expiresAt,
  can_start_call: v.canStartCall,
  can_request_permission: v.canRequestPermission,
  limits: v.limits.map((l) => ({ period: l.period, max: l.max, used: l.used, frees_at: l.freesAt })),
  next_request_allowed_at: v.nextRequestAllowedAt,
  updated_at: v.updatedAt
})

/** `GET /chat/calls/permissions/{phone}`: the permission and the request budget at the time of the request. */
export const PermissionResource: Schema.Schema<View, typeof ViewJson.Encoded> = Schema.transform(ViewJson, Schema.typeSchema(ViewType), {
  strict: true,
  decode: (j) => ({
    phone: j.phone,
    status: j.status,
    expiresAt: j.expires_at,
    canStartCall: j.can_start_call,
    canRequestPermission: j.can_request_permission,
    limits: j.limits.map((l) => ({ period: l.period, max: l.max, used: l.used, freesAt: l.frees_at })),
    nextRequestAllowedAt: j.next_request_allowed_at,
    updatedAt: j.updated_at
  }),
  encode: encodeView
}).annotations({ identifier: "CallPermission" })

/** The JSON of a permission view, as caller events carry it. */
export const toJson = Schema.encodeSync(PermissionResource)

/** What `POST /chat/calls/permissions` answers: the request sent and the permission after it. */
export const PermissionRequestSent = Schema.Struct({
  phone: Schema.String,
  message_id: Schema.String,
  sent_via: Schema.Literal("interactive", "template"),
  sent_at: Time.IsoDateTime,
  permission: PermissionResource
}).annotations({ identifier: "CallPermissionRequestSent" })
