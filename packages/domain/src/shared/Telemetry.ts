/**
 * What the service counts (README, "Metrics and traces"): Effect `Metric` instruments, in the
 * process's one metric registry, that `apps/server` exports as Prometheus text at `/metrics`.
 * Counters and histograms are per process (a separate `switchboard worker` counts its own
 * sends, deliveries and operator calls); what is shared by every process (the job queue, the
 * inbox, the operational tables) is read from the database at scrape time through
 * `OperationalGauges` and set on the gauges here.
 *
 * Hot paths (the fast lane, a campaign's sends) record with `record` and a `labelSets`: the
 * label set is built once per distinct combination and kept, and Effect's registry keeps its
 * hook per label set, so a hot update is two map lookups and an addition, without a fiber.
 */
import { Context, type Effect, Metric, MetricBoundaries, MetricLabel } from "effect"
import type { Millis } from "./Time.js"

/** A counter that only goes up (`_total` in Prometheus). */
const counter = (name: string, description: string) => Metric.counter(name, { description, incremental: true })

/** Latency buckets in seconds: 1 ms to about 33 s, doubling. */
export const LATENCY_BOUNDARIES = MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 16 })

/**
 * The label sets of `names`, each built once per distinct combination of values and kept
 * (Effect's registry keeps its hook per label set array, so a hot update reuses both).
 */
export const labelSets = (names: ReadonlyArray<string>): ((values: ReadonlyArray<string>) => ReadonlyArray<MetricLabel.MetricLabel>) => {
  const sets = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  return (values) => {
    const key = values.length === 1 ? values[0] : values.join("\u0000")
    let set = sets.get(key)
    if (set === undefined) {
      set = names.map((name, i) => MetricLabel.make(name, values[i]))
      sets.set(key, set)
    }
    return set
  }
}

const byNames = new Map<string, (values: ReadonlyArray<string>) => ReadonlyArray<MetricLabel.MetricLabel>>()

/** The label set of `names` = `values` (for code off the hot path; a hot path keeps its own `labelSets`). */
export const labels = (names: ReadonlyArray<string>, values: ReadonlyArray<string>): ReadonlyArray<MetricLabel.MetricLabel> => {
  const key = names.join(",")
  let sets = byNames.get(key)
  if (sets === undefined) {
    sets = labelSets(names)
    byNames.set(key, sets)
  }
  return sets(values)
}

/** Adds `value` to `metric` under `tags`, synchronously (no fiber). */
export const record = <In>(metric: Metric.Metric<any, In, any>, value: In, tags: ReadonlyArray<MetricLabel.MetricLabel>): void =>
  metric.unsafeUpdate(value, tags)

// ---- requests (recorded by the HTTP adapter, both paths)

export const httpRequests = counter("switchboard_http_requests_total", "HTTP requests answered, by route template, method and status")
export const httpRequestDuration = Metric.histogram(
  "switchboard_http_request_duration_seconds",
  LATENCY_BOUNDARIES,
  "Time from a request's arrival to its answer, by route template, method and status"
)

// ---- the operator (recorded by the operator client)

export const operatorRequests = counter(
  "switchboard_operator_requests_total",
  "Requests to the operator (Graph API), by edge, outcome (ok, rate_limited, unreachable, refused) and operator error code"
)
export const operatorRequestDuration = Metric.histogram(
  "switchboard_operator_request_duration_seconds",
  LATENCY_BOUNDARIES,
  "Time of one request to the operator until its whole answer, by edge and outcome"
)

// ---- campaigns and caller webhooks (recorded by the domain)

export const campaignSends = counter(
  "switchboard_campaign_sends_total",
  "Campaign sends by the operator's answer as the lane wrote it: accepted, failed (refused), released (not sent, back to pending)"
)
export const webhookDeliveries = counter(
  "switchboard_webhook_deliveries_total",
  "Caller webhook delivery attempts, by outcome: delivered (2xx), failed (another status or no answer), gone (410, endpoint disabled)"
)

const byOutcome = labelSets(["outcome"])

/** Counts a batch of campaign send outcomes, as the lane wrote them. */
export const campaignSendsRecorded = (recorded: { readonly accepted: number; readonly failed: number; readonly released: number }): void => {
  if (recorded.accepted > 0) record(campaignSends, recorded.accepted, byOutcome(["accepted"]))
  if (recorded.failed > 0) record(campaignSends, recorded.failed, byOutcome(["failed"]))
  if (recorded.released > 0) record(campaignSends, recorded.released, byOutcome(["released"]))
}

/** Counts one caller webhook delivery attempt. */
export const webhookDelivered = (outcome: "delivered" | "failed" | "gone"): void => record(webhookDeliveries, 1, byOutcome([outcome]))

// ---- gauges read from the database at scrape time

export const jobs = Metric.gauge("switchboard_jobs", { description: "Jobs in the queue, by kind and state (queued, running, done, failed)" })
export const jobOldestAge = Metric.gauge("switchboard_jobs_oldest_age_seconds", {
  description: "Age of the oldest runnable job (queued and due), by kind; 0 when none waits"
})
export const inboxLag = Metric.gauge("switchboard_inbox_lag_seconds", {
  description: "Age of the oldest operator webhook stored but not yet processed; 0 when the inbox is caught up"
})
export const tableRows = Metric.gauge("switchboard_table_rows", { description: "Rows in the operational tables with a lifetime, by table" })

/** The job queue and inbox as the database holds them (shared by every process). */
export interface QueueSnapshot {
  /** Jobs by kind and stored status (`queued`, `running`, `done`, `dead`). */
  readonly jobs: ReadonlyArray<{ readonly kind: string; readonly status: string; readonly count: number }>
  /** The run time of the oldest due queued job, by kind. */
  readonly oldestRunnable: ReadonlyArray<{ readonly kind: string; readonly runAt: Millis }>
  /** When the oldest unprocessed inbox entry was received, or null. */
  readonly oldestUnprocessedInbox: Millis | null
}

/** The port the scrape reads the shared state through (store-sql implements it). */
export class OperationalGauges extends Context.Tag("@switchboard/domain/OperationalGauges")<
  OperationalGauges,
  {
    /** One read of the queue and the inbox; `now` decides which queued jobs are due. */
    readonly snapshot: (now: Millis) => Effect.Effect<QueueSnapshot>
  }
>() {}
