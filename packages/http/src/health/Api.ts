import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

export class HealthGroup extends HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(HealthStatus))
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(HealthStatus)
      .addError(Schema.Struct({ status: Schema.Literal("unavailable"), reason: Schema.String }), { status: 503 })
  ) {}
