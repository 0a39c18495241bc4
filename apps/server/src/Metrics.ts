/**
 * `GET /metrics` (README, "Metrics and traces"): the process's Effect metrics (the instruments
 * of `Telemetry` in `@switchboard/domain`), read by `@effect/opentelemetry`'s metric producer
 * and written as Prometheus text by `@opentelemetry/exporter-prometheus` (its exporter, with
 * its own server left off: this server answers the route).
 *
 * Counters and histograms are this process's own (a separate `switchboard worker` keeps its
 * sends, deliveries and operator calls to itself). What every process shares is read from
 * the database at each scrape and set on the gauges first: jobs by kind and state, the
 * oldest due job's age by kind, the inbox's lag, the operational tables' rows.
 *
 * The route needs `Authorization: Bearer <SWITCHBOARD_ADMIN_TOKEN>`; while the token is
 * unset it answers 401 to everyone (and says to set it).
 */
import { Metrics, Resource } from "@effect/opentelemetry"
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus"
import { Retention, Telemetry, type Time } from "@switchboard/domain"
import { Clock, Context, Effect, Layer, type Metric, Option, Redacted, Runtime } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as AppConfig from "./Config.js"

export class MetricsEndpoint extends Context.Tag("@switchboard/server/MetricsEndpoint")<
  MetricsEndpoint,
  {
    /** Answers `GET /metrics` (any method but GET and HEAD: 405). */
    readonly handle: (req: IncomingMessage, res: ServerResponse) => void
  }
>() {}

/** Whether `url` is the metrics route. */
export const isMetrics = (url: string | undefined): boolean => url === "/metrics" || (url?.startsWith("/metrics?") ?? false)

const JOB_STATES: Readonly<Record<string, string>> = { queued: "queued", running: "running", done: "done", dead: "failed" }

const refuse = (res: ServerResponse, status: number, code: string, message: string) => {
  const body = JSON.stringify({ error: { code, message } })
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const sameToken = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  if (header === undefined || !header.startsWith("Bearer ")) return false
  const given = Buffer.from(header.slice(7))
  const expected = Buffer.from(Redacted.value(token))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Sets the shared gauges from one read of the database. */
const refresh = (seen: Set<string>) =>
  Effect.gen(function* () {
    const gauges = yield* Telemetry.OperationalGauges
    const retention = yield* Retention.RetentionStore
    const now = (yield* Clock.currentTimeMillis) as Time.Millis
    const snapshot = yield* gauges.snapshot(now)
    const rows = yield* Effect.all(Retention.TABLES.map((table) => retention.count(table)))
    // a label set seen before and absent now reads 0, not its last value
    const fresh = new Set<string>()
    const set = (gauge: Metric.Metric.Gauge<number>, names: ReadonlyArray<string>, values: ReadonlyArray<string>, value: number) => {
      fresh.add(`${names.join(",")}|${values.join(",")}`)
      Telemetry.record(gauge, value, Telemetry.labels(names, values))
    }
    const counts = new Map<string, number>()
    for (const row of snapshot.jobs) {
      const key = `${row.kind}\u0000${JOB_STATES[row.status] ?? row.status}`
      counts.set(key, (counts.get(key) ?? 0) + row.count)
    }
    for (const [key, count] of counts) set(Telemetry.jobs, ["kind", "state"], key.split("\u0000"), count)
    for (const row of snapshot.oldestRunnable) set(Telemetry.jobOldestAge, ["kind"], [row.kind], Math.max(0, (now - row.runAt) / 1000))
    Telemetry.record(
      Telemetry.inboxLag,
      snapshot.oldestUnprocessedInbox === null ? 0 : Math.max(0, (now - snapshot.oldestUnprocessedInbox) / 1000),
      []
    )
    Retention.TABLES.forEach((table, i) => {
      set(Telemetry.tableRows, ["table"], [table], rows[i])
    })
    for (const key of seen) {
      if (fresh.has(key)) continue
      const [names, values] = key.split("|")
      const gauge = names === "kind,state" ? Telemetry.jobs : names === "kind" ? Telemetry.jobOldestAge : Telemetry.tableRows
      Telemetry.record(gauge, 0, Telemetry.labels(names.split(","), values.split(",")))
    }
    seen.clear()
    for (const key of fresh) seen.add(key)
  })

export const layer = Layer.scoped(
  MetricsEndpoint,
  Effect.gen(function* () {
    const token = yield* AppConfig.adminToken
    const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
    yield* Effect.flatMap(Metrics.makeProducer, (producer) => Metrics.registerProducer(producer, () => exporter)).pipe(
      Effect.provide(Resource.layer({ serviceName: "switchboard", serviceVersion: AppConfig.VERSION }))
    )
    const run = Runtime.runCallback(yield* Effect.runtime<Telemetry.OperationalGauges | Retention.RetentionStore>())
    const seen = new Set<string>()
    const read = refresh(seen).pipe(Effect.catchAllCause((cause) => Effect.logWarning("metrics: could not read the database's gauges", cause)))
    return MetricsEndpoint.of({
      handle: (req, res) => {
        if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405, "method_not_allowed", "Use GET /metrics")
        if (Option.isNone(token)) return refuse(res, 401, "unauthorized", "Set SWITCHBOARD_ADMIN_TOKEN to read /metrics")
        if (!sameToken(req.headers.authorization, token.value))
          return refuse(res, 401, "unauthorized", "Send Authorization: Bearer <SWITCHBOARD_ADMIN_TOKEN>")
        run(read, { onExit: () => exporter.getMetricsRequestHandler(req, res) })
      }
    })
  })
)
