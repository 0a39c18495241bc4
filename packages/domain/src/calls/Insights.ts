/**
 * `GET /chat/calls/health` and `GET /chat/calls/analytics` (spec §4.8).
 *
 * Health answers in one payload whether calls can work now and why not: the operator's
 * health of the number, calling on or off in the settings, the call webhooks seen, our own
 * recent failures by operator code, and whether the call hours are open now.
 *
 * Analytics come from our call records over [since, until), by day or hour: counts by
 * direction and outcome, the connected rate, and total, average, p50 and p90 durations.
 */
import { Effect, Schema } from "effect"
import { CallOperator } from "./CallOperator.js"
import * as Errors from "../shared/Errors.js"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Store from "../stores/Store.js"
import type * as Call from "./Call.js"
import { CallRepo } from "./CallRepo.js"
import * as CallSettings from "./CallSettings.js"
import * as SettingsRoutes from "./SettingsRoutes.js"

/** Calls read at most for one health or analytics answer. */
export const MAX_CALLS = 50_000
const RECENT_MS = Time.DAY

export const Health = Schema.Struct({
  can_call: Schema.Boolean,
  reasons: Schema.Array(Schema.String),
  operator: Schema.Struct({ health_status: Schema.String, detail: Schema.NullOr(Schema.String) }),
  calling_enabled: Schema.Boolean,
  webhooks: Schema.Struct({ call_events_seen: Schema.Boolean, last_call_event_at: Schema.NullOr(Time.IsoDateTime) }),
  recent_failures: Schema.Array(Schema.Struct({ operator_code: Schema.Number, count: Schema.Int, last_at: Time.IsoDateTime })),
  call_hours: Schema.Struct({ enabled: Schema.Boolean, timezone_id: Schema.NullOr(Schema.String), open_now: Schema.Boolean })
}).annotations({ identifier: "CallHealth" })

/** `GET /chat/calls/health`. */
export const health = Effect.gen(function* () {
  const { store, tenant } = yield* CurrentStore
  const now = yield* Time.now
  const settings = (yield* SettingsRoutes.current(tenant)).calling
  const operator = yield* Effect.orElseSucceed((yield* CallOperator).getHealth(Store.accountFor(store, tenant.mode)), () => ({
    status: "UNREACHABLE",
    detail: "the operator did not answer"
  }))
  const recent = yield* (yield* CallRepo).createdBetween(tenant, now - RECENT_MS, now + 1, MAX_CALLS)
  const failures = new Map<number, { count: number; last: number }>()
  for (const c of recent) {
    if (c.error === null) continue
    const f = failures.get(c.error.code) ?? { count: 0, last: 0 }
    failures.set(c.error.code, { count: f.count + 1, last: Math.max(f.last, c.updatedAt) })
  }
  // a call that moved past `calling`, or one the operator announced, came by the call webhooks
  const seen = recent.filter((c) => c.direction === "user_initiated" || (c.status !== "calling" && c.operatorCallId !== null && c.error === null))
  const lastSeen = seen.length === 0 ? null : Math.max(...seen.map((c) => c.updatedAt))
  const open = CallSettings.hoursOpenAt(settings, now)
  const reasons = [
    ...(operator.status === "AVAILABLE" ? [] : [`the operator reports the number's health as ${operator.status}`]),
    ...(settings.status === "ENABLED" ? [] : ["calling is disabled in the settings"]),
    ...(open ? [] : ["the call hours are closed now"])
  ]
  return {
    can_call: reasons.length === 0,
    reasons,
    operator: { health_status: operator.status, detail: operator.detail },
    calling_enabled: settings.status === "ENABLED",
    webhooks: { call_events_seen: lastSeen !== null, last_call_event_at: lastSeen },
    recent_failures: [...failures.entries()].map(([code, f]) => ({ operator_code: code, count: f.count, last_at: f.last })),
    call_hours: { enabled: settings.call_hours.status === "ENABLED", timezone_id: settings.call_hours.timezone_id, open_now: open }
  }
})

const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const AnalyticsQuery = Schema.Struct({
  since: Schema.optional(Time.IsoDateTime),
  until: Schema.optional(Time.IsoDateTime),
  granularity: Schema.optionalWith(Schema.Literal("day", "hour"), { default: () => "day" as const })
}).annotations({ ...strict, identifier: "CallAnalyticsQuery" })

const Counts = Schema.Struct({
  total: Schema.Int,
  business_initiated: Schema.Int,
  user_initiated: Schema.Int,
  connected: Schema.Int,
  rejected: Schema.Int,
  failed: Schema.Int,
  unanswered: Schema.Int,
  in_progress: Schema.Int,
  connected_rate: Schema.Number,
  duration_seconds: Schema.Struct({
    total: Schema.Number,
    average: Schema.NullOr(Schema.Number),
    p50: Schema.NullOr(Schema.Number),
    p90: Schema.NullOr(Schema.Number)
  })
})

export const Analytics = Schema.Struct({
  since: Time.IsoDateTime,
  until: Time.IsoDateTime,
  granularity: Schema.Literal("day", "hour"),
  totals: Counts,
  buckets: Schema.Array(Schema.Struct({ start: Time.IsoDateTime, ...Counts.fields })),
  operator: Schema.NullOr(Schema.Unknown)
}).annotations({ identifier: "CallAnalytics" })

/** The outcome of a call for analytics. */
const outcomeOf = (c: Call.Call): "connected" | "rejected" | "failed" | "unanswered" | "in_progress" =>
  c.startedAt !== null
    ? "connected"
    : c.status === "rejected"
      ? "rejected"
      : c.status === "failed"
        ? "failed"
        : c.status === "ended"
          ? "unanswered"
          : "in_progress"

/** The p-th percentile (nearest rank) of sorted values. */
const percentile = (sorted: ReadonlyArray<number>, p: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

export const countsOf = (calls: ReadonlyArray<Call.Call>) => {
  const outcomes = { connected: 0, rejected: 0, failed: 0, unanswered: 0, in_progress: 0 }
  for (const c of calls) outcomes[outcomeOf(c)]++
  const durations = calls.flatMap((c) => (c.durationSeconds === null || c.startedAt === null ? [] : [c.durationSeconds])).sort((a, b) => a - b)
  const total = durations.reduce((a, b) => a + b, 0)
  const decided = calls.length - outcomes.in_progress
  return {
    total: calls.length,
    business_initiated: calls.filter((c) => c.direction === "business_initiated").length,
    user_initiated: calls.filter((c) => c.direction === "user_initiated").length,
    ...outcomes,
    connected_rate: decided === 0 ? 0 : outcomes.connected / decided,
    duration_seconds: {
      total,
      average: durations.length === 0 ? null : total / durations.length,
      p50: percentile(durations, 50),
      p90: percentile(durations, 90)
    }
  }
}

/** `GET /chat/calls/analytics`: over the last 7 days unless `since` and `until` say otherwise; at most 366 days. */
export const analytics = (query: typeof AnalyticsQuery.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const now = yield* Time.now
    const until = query.until ?? now
    const since = query.since ?? until - 7 * Time.DAY
    if (since >= until) return yield* Errors.ValidationFailed.of("since", "must be before until")
    if (until - since > 366 * Time.DAY) return yield* Errors.ValidationFailed.of("since", "the period may span at most 366 days")
    const step = query.granularity === "hour" ? Time.HOUR : Time.DAY
    if ((until - since) / step > 24 * 31) return yield* Errors.ValidationFailed.of("granularity", "at most 744 buckets: use day for long periods")
    const calls = yield* (yield* CallRepo).createdBetween(tenant, since, until, MAX_CALLS)
    const first = Math.floor(since / step) * step
    const buckets: Array<{ start: number } & ReturnType<typeof countsOf>> = []
    for (let start = first; start < until; start += step) {
      buckets.push({ start, ...countsOf(calls.filter((c) => c.createdAt >= start && c.createdAt < start + step)) })
    }
    return { since, until, granularity: query.granularity, totals: countsOf(calls), buckets, operator: null }
  })
