import { HttpApiBuilder } from "@effect/platform"
import { Context, Effect } from "effect"
import { apiOf } from "../internal/Handlers.js"
import { HealthGroup } from "./Api.js"

/** How far behind the job runners are: the oldest runnable job's wait, and the longest wait that still counts as ready. */
export interface JobBacklog {
  readonly oldestJobAgeMs: number
  readonly maxJobAgeMs: number
}

/**
 * Whether the service can serve requests: the database answers (`check`) and, when `jobs` is
 * given, no runnable job has waited longer than its `maxJobAgeMs` (the workers keep up).
 */
export class Readiness extends Context.Tag("@switchboard/http/Readiness")<
  Readiness,
  { readonly check: Effect.Effect<void, string>; readonly jobs?: Effect.Effect<JobBacklog, string> | undefined }
>() {}

const seconds = (ms: number) => Math.floor(ms / 1000)

export const HealthLive = HttpApiBuilder.group(apiOf(HealthGroup), "health", (handlers) =>
  handlers
    .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
    .handle("readyz", () =>
      Effect.gen(function* () {
        const readiness = yield* Readiness
        yield* readiness.check
        return readiness.jobs === undefined ? undefined : yield* readiness.jobs
      }).pipe(
        Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "database did not answer within 2 s" }),
        Effect.mapError((reason) => ({ status: "unavailable" as const, reason })),
        Effect.flatMap((backlog) => {
          if (backlog === undefined) return Effect.succeed({ status: "ok" as const })
          const age = seconds(backlog.oldestJobAgeMs)
          return backlog.oldestJobAgeMs > backlog.maxJobAgeMs
            ? Effect.fail({
                status: "unavailable" as const,
                reason: `the oldest runnable job has waited ${age} s, longer than ${seconds(backlog.maxJobAgeMs)} s: the workers are behind`,
                oldest_job_age_seconds: age
              })
            : Effect.succeed({ status: "ok" as const, oldest_job_age_seconds: age })
        })
      )
    )
)
