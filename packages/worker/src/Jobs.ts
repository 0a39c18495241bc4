/**
 * The jobs this service runs, by kind, and the Layer that runs them in the background.
 * The worker decides when and how fast; the domain decides what each job does.
 */
import type { Store } from "@switchboard/domain"
import { Campaigns, InboxModule, type JobQueue, MessagingEvents, type Module, OperatorWebhooks, WebhookDeliveries, type WebhookEvent } from "@switchboard/domain"
import { Effect, Layer, Schema } from "effect"
import * as CampaignLane from "./CampaignLane.js"
import * as JobRunner from "./JobRunner.js"

/** A job kind as the runner takes it: its handler runs on the decoded payload (a payload that does not decode fails the job). */
const handlerOf = <P, R>(kind: Module.JobKind<P, R>) => ({
  ...kind,
  run: (job: JobQueue.Job) => Effect.flatMap(Schema.decodeUnknown(kind.payload)(job.payload), (payload) => kind.run(payload, job))
})

/** What each operator event does. */
export const eventHandlers = {
  InboundMessage: MessagingEvents.onInboundMessage,
  /** Campaign sends carry the recipient id (`rcp_…`) as callback data; other messages their message id. */
  MessageStatus: (
    store: Store.Store,
    _kind: Store.AccountKind,
    event: WebhookEvent.MessageStatus
  ): Effect.Effect<boolean, never, Effect.Effect.Context<ReturnType<typeof Campaigns.onRecipientStatus | typeof MessagingEvents.onMessageStatus>>> =>
    event.callbackData?.startsWith("rcp_") ? Campaigns.onRecipientStatus(store, event) : MessagingEvents.onMessageStatus(store, event),
  MarketingPreference: MessagingEvents.onMarketingPreference
}

type Requirements<H> = H extends { readonly run: (...args: any) => import("effect").Effect.Effect<any, any, infer R> } ? R : never

const jobs = {
  /** Operator webhooks: applied in one transaction with the job's completion (exactly once). */
  [OperatorWebhooks.PROCESS_JOB]: handlerOf(InboxModule.processJob(eventHandlers)),
  /** Caller webhook deliveries: an HTTP call, retried for about three days. */
  [WebhookDeliveries.deliverJob.kind]: handlerOf(WebhookDeliveries.deliverJob)
}

/** Every job kind with its handler. */
export const handlers: Readonly<Record<string, JobRunner.Handler<Requirements<(typeof jobs)[keyof typeof jobs]>>>> = jobs

/**
 * Runs every job kind in the background of the process that includes it. Campaign lanes
 * (`campaign.lane`, long-lived and paced) have their own runner, configured from the
 * environment (see `CampaignLane.layerConfig`).
 */
export const layer = Layer.merge(Layer.scopedDiscard(Effect.forkScoped(JobRunner.run({ handlers }))), CampaignLane.layerConfig)
