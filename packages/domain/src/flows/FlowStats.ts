/**
 * Flow statistics over a time range (`GET /chat/flows/{id}/stats`): messages sent,
 * responses, the completion rate (responses per message sent, at most 1), the hosted data
 * endpoint's figures (requests, errors, error rate, p50 and p90 latency, availability: the
 * share of requests we answered without a server-side failure), and counts by UTC day.
 * `compute` is pure; `stats` reads the records.
 */
import { Effect, Schema } from "effect"
import { CurrentStore } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import type { EndpointCall } from "./FlowEndpointRepo.js"
import { FlowEndpointRepo } from "./FlowEndpointRepo.js"
import { FlowResponseRepo } from "./FlowResponseRepo.js"
import { lookup } from "./Flows.js"

export const StatsQuery = Schema.Struct({ since: Schema.optional(Time.IsoText), until: Schema.optional(Time.IsoText) })

const Rate = Schema.NullOr(Schema.Number)

export const FlowStats = Schema.Struct({
  flow_id: Schema.String,
  since: Schema.String,
  until: Schema.String,
  sent: Schema.Int,
  responses: Schema.Int,
  completion_rate: Rate,
  endpoint: Schema.Struct({
    requests: Schema.Int,
    errors: Schema.Int,
    error_rate: Rate,
    p50_latency_ms: Rate,
    p90_latency_ms: Rate,
    availability: Rate
  }),
  by_day: Schema.Array(
    Schema.Struct({ date: Schema.String, sent: Schema.Int, responses: Schema.Int, endpoint_requests: Schema.Int, endpoint_errors: Schema.Int })
  )
}).annotations({ identifier: "FlowStats" })
export type FlowStats = typeof FlowStats.Type

const round = (n: number) => Math.round(n * 10_000) / 10_000

/** The `q` quantile (nearest rank) of `values`; null when there are none. */
export const quantile = (values: ReadonlyArray<number>, q: number): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** The stats of a flow from its records in [since, until). */
export const compute = (
  flowId: string,
  since: number,
  until: number,
  sends: ReadonlyArray<number>,
  responses: ReadonlyArray<number>,
  calls: ReadonlyArray<Pick<EndpointCall, "at" | "ok" | "httpStatus" | "latencyMs">>
): FlowStats => {
  const errors = calls.filter((c) => !c.ok).length
  const days = new Map<string, { sent: number; responses: number; endpoint_requests: number; endpoint_errors: number }>()
  const bucket = (ms: number) => {
    const key = day(ms)
    let b = days.get(key)
    if (b === undefined) {
      b = { sent: 0, responses: 0, endpoint_requests: 0, endpoint_errors: 0 }
      days.set(key, b)
    }
    return b
  }
  for (const t of sends) bucket(t).sent++
  for (const t of responses) bucket(t).responses++
  for (const c of calls) {
    const b = bucket(c.at)
    b.endpoint_requests++
    if (!c.ok) b.endpoint_errors++
  }
  return {
    flow_id: flowId,
    since: Time.toIso(since),
    until: Time.toIso(until),
    sent: sends.length,
    responses: responses.length,
    completion_rate: sends.length === 0 ? null : round(Math.min(1, responses.length / sends.length)),
    endpoint: {
      requests: calls.length,
      errors,
      error_rate: calls.length === 0 ? null : round(errors / calls.length),
      p50_latency_ms: quantile(
        calls.map((c) => c.latencyMs),
        0.5
      ),
      p90_latency_ms: quantile(
        calls.map((c) => c.latencyMs),
        0.9
      ),
      availability: calls.length === 0 ? null : round(calls.filter((c) => c.httpStatus < 500).length / calls.length)
    },
    by_day: [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, b]) => ({ date, ...b }))
  }
}

/** `GET /chat/flows/{id}/stats`: the last 30 days unless `since`/`until` say otherwise. */
export const stats = (id: string, query: typeof StatsQuery.Type) =>
  Effect.gen(function* () {
    const { tenant } = yield* CurrentStore
    const flow = yield* lookup(tenant, id)
    const now = yield* Time.now
    const until = query.until === undefined ? now + 1 : Date.parse(query.until)
    const since = query.since === undefined ? until - 30 * Time.DAY : Date.parse(query.since)
    const times = yield* (yield* FlowResponseRepo).times(tenant, flow.id, since, until)
    const calls = yield* (yield* FlowEndpointRepo).calls(tenant, flow.id, since, until)
    return compute(flow.id, since, until, times.sends, times.responses, calls)
  })
