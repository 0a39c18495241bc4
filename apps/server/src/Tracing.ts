/**
 * Traces (README, "Metrics and traces"): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, spans go out
 * over OTLP/HTTP (`@opentelemetry/exporter-trace-otlp-http`, posting to `<endpoint>/v1/traces`)
 * through `@effect/opentelemetry`'s `NodeSdk`, batched. The spans:
 * one per request (the platform's HTTP tracer, switched on; a server that traces serves every
 * request through the platform's pipeline, without the fast lane), one per job
 * (`job <kind>`, `@switchboard/worker`) and one per operator call (`operator <METHOD> <edge>`,
 * `@switchboard/operator-client`; a campaign's paced sends are counted in `/metrics` but not
 * traced one by one). Unset: no tracer, no exporter, no cost.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Option } from "effect"
import * as AppConfig from "./Config.js"

/** Whether spans are exported (the endpoint is set). */
export const enabled = Effect.map(AppConfig.otlpEndpoint, Option.isSome)

export const layer = Layer.unwrapEffect(
  Effect.gen(function* () {
    const endpoint = yield* AppConfig.otlpEndpoint
    if (Option.isNone(endpoint)) return Layer.empty
    const serviceName = yield* AppConfig.otelServiceName
    const url = `${endpoint.value.replace(/\/$/, "")}/v1/traces`
    return NodeSdk.layer(() => ({
      resource: { serviceName, serviceVersion: AppConfig.VERSION },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500 })
    }))
  })
)
