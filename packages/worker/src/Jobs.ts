/**
 * The jobs this service runs, built from the domain's one list of modules
 * (`Modules.jobKinds`), and the Layer that runs them in the background. The worker decides
 * when and how fast; the domain decides what each job does.
 */
import { type JobQueue, Modules, type Module } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import * as CampaignLane from "./CampaignLane.js"
import * as JobRunner from "./JobRunner.js"

type Kind = (typeof Modules.jobKinds)[number]
type Requirements = Kind extends Module.JobKind<any, infer R> ? R : never

/** A job kind as the runner takes it: its handler runs on the decoded payload (a payload that does not decode fails the job). */
const handlerOf = <P, R>(kind: Module.JobKind<P, R>): JobRunner.Handler<R> => ({
  ...kind,
  run: (job: JobQueue.Job) => Effect.flatMap(Schema.decodeUnknown(kind.payload)(job.payload), (payload) => kind.run(payload, job))
})

/** Every job kind with its handler. */
export const handlers: Readonly<Record<string, JobRunner.Handler<Requirements>>> = Object.fromEntries(
  Modules.jobKinds.map((kind) => [kind.kind, handlerOf<unknown, Requirements>(kind as Module.JobKind<unknown, Requirements>)])
)

/**
 * Runs every job kind in the background of the process that includes it. Campaign lanes
 * (`campaign.lane`, long-lived and paced) have their own runner, configured from the
 * environment (see `CampaignLane.layerConfig`).
 */
export const layer = Layer.merge(Layer.scopedDiscard(Effect.forkScoped(JobRunner.run({ handlers }))), CampaignLane.layerConfig)
