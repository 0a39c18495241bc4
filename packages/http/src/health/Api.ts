import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

/** How long the oldest runnable job has waited, in whole seconds (0 when none waits); absent when the service has no job queue to report on. */
const OldestJobAge = Schema.optional(Schema.Number)

export const ReadyStatus = Schema.Struct({ status: Schema.Literal("ok"), oldest_job_age_seconds: OldestJobAge })

export const NotReady = Schema.Struct({ status: Schema.Literal("unavailable"), reason: Schema.String, oldest_job_age_seconds: OldestJobAge })

export class HealthGroup extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(HealthStatus))
  .add(HttpApiEndpoint.get("readyz", "/readyz").addSuccess(ReadyStatus).addError(NotReady, { status: 503 })) {}
