import { HttpApiBuilder } from "@effect/platform"
import { Context, Effect } from "effect"
import { apiOf } from "../internal/Handlers.js"
import { HealthGroup } from "./Api.js"

/** Whether the service can serve requests (the database answers). */
export class Readiness extends Context.Tag("@switchboard/http/Readiness")<Readiness, { readonly check: Effect.Effect<void, string> }>() {}

export const HealthLive = HttpApiBuilder.group(apiOf(HealthGroup), "health", (handlers) =>
  handlers
    .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
    .handle("readyz", () =>
      Effect.flatMap(Readiness, (r) => r.check).pipe(
        Effect.as({ status: "ok" as const }),
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "database did not answer within 2 s" }),
        Effect.mapError((reason) => ({ status: "unavailable" as const, reason }))
      )
    )
)
