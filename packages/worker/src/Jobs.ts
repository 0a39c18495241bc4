/**
 * The jobs this service runs, built from the domain's one list of modules
 * (`Modules.jobKinds`), and the Layer that runs them in the background. The worker decides
 * when and how fast; the domain decides what each job does.
 */
import { BatchJob, type JobQueue, Modules, type Module } from "@switchboard/domain"
import { Config, Effect, Layer, Schema } from "effect"
import * as CampaignLane from "./CampaignLane.js"
import * as JobRunner from "./JobRunner.js"

type Kind = (typeof Modules.jobKinds)[number]
type Requirements = Kind extends Module.JobKind<any, infer R> ? R : never

/** A job kind as the runner takes it: its handler runs on the decoded payload (a payload that does not decode fails the job). */
const handlerOf = <P, R>(kind: Module.JobKind<P, R>): JobRunner.Handler<R> => {
  const decode = Schema.decodeUnknown(kind.payload)
  const runMany = kind.runMany
  return {
    ...kind,
    run: (job: JobQueue.Job) => Effect.flatMap(decode(job.payload), (payload) => kind.run(payload, job)),
    runMany:
      runMany === undefined
        ? undefined
        : (jobs: ReadonlyArray<JobQueue.Job>) =>
            Effect.flatMap(
              Effect.forEach(jobs, (job) => decode(job.payload)),
              (payloads) => runMany(payloads, jobs)
            )
  }
}

/** Every job kind with its handler. */
export const handlers: Readonly<Record<string, JobRunner.Handler<Requirements>>> = Object.fromEntries(
  Modules.jobKinds.map((kind) => [kind.kind, handlerOf<unknown, Requirements>(kind as Module.JobKind<unknown, Requirements>)])
)

/**
 * Runs every job kind in the background of the process that includes it. Campaign lanes
 * (`campaign.lane`, long-lived and paced) have their own runner, configured from the
 * environment (see `CampaignLane.layerConfig`).
 */
/**
 * The operator's `items_batch` quota per catalog the batch job keeps under:
 * `SWITCHBOARD_CATALOG_BATCH_CALLS` calls (default 10) in any `SWITCHBOARD_CATALOG_BATCH_WINDOW_MS`
 * (default 60000).
 */
const catalogBatchQuota = Config.all({
  calls: Config.integer("SWITCHBOARD_CATALOG_BATCH_CALLS").pipe(
    Config.withDefault(10),
    Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 })
  ),
  windowMs: Config.integer("SWITCHBOARD_CATALOG_BATCH_WINDOW_MS").pipe(
    Config.withDefault(60_000),
    Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 })
  )
})

export const layer = Layer.merge(
  Layer.scopedDiscard(
    Effect.flatMap(catalogBatchQuota, (quota) => Effect.forkScoped(Effect.provideService(JobRunner.run({ handlers }), BatchJob.Quota, quota)))
  ).pipe(Layer.provide(BatchJob.layerSenders)),
  CampaignLane.layerConfig
)
