/**
 * The jobs this service runs, by kind, and the Layer that runs them in the background.
 * The worker decides when and how fast; the domain decides what each job does.
 */
import type { Store } from "@switchboard/domain"
import { Campaigns, type JobQueue, Messaging, OperatorWebhooks, Webhooks, type WebhookEvent } from "@switchboard/domain"
import { Effect, Layer } from "effect"
import * as CampaignLane from "./CampaignLane.js"
import * as JobRunner from "./JobRunner.js"

const field = (payload: unknown, name: string): string => {
  const value = (payload as Record<string, unknown> | null)?.[name]
  if (typeof value !== "string") throw new Error(`job payload without ${name}`)
  return value
}

/** What each operator event does. */
export const eventHandlers = {
  InboundMessage: Messaging.onInboundMessage,
  /** Campaign sends carry the recipient id (`rcp_…`) as callback data; other messages their message id. */
  MessageStatus: (
    store: Store.Store,
    _kind: Store.AccountKind,
    event: WebhookEvent.MessageStatus
  ): Effect.Effect<boolean, never, Effect.Effect.Context<ReturnType<typeof Campaigns.onRecipientStatus | typeof Messaging.onMessageStatus>>> =>
    event.callbackData?.startsWith("rcp_") ? Campaigns.onRecipientStatus(store, event) : Messaging.onMessageStatus(store, event),
  MarketingPreference: Messaging.onMarketingPreference
}

type Requirements<H> = H extends { readonly run: (...args: any) => import("effect").Effect.Effect<any, any, infer R> } ? R : never

const jobs = {
  /** Operator webhooks: applied in one transaction with the job's completion (exactly once). */
  [OperatorWebhooks.PROCESS_JOB]: {
    run: (job: JobQueue.Job) => OperatorWebhooks.process(field(job.payload, "inboxId"), eventHandlers)
  },
  /** Caller webhook deliveries: an HTTP call, retried for about three days. */
  [Webhooks.DELIVER_JOB]: {
    transactional: false,
    maxAttempts: Webhooks.MAX_ATTEMPTS,
    backoffMs: Webhooks.retryDelayMs,
    run: (job: JobQueue.Job) => Webhooks.deliver({ eventId: field(job.payload, "eventId"), endpointId: field(job.payload, "endpointId") }, job.attempt)
  }
}

/** Every job kind with its handler. */
export const handlers: Readonly<Record<string, JobRunner.Handler<Requirements<(typeof jobs)[keyof typeof jobs]>>>> = jobs

/**
 * Runs every job kind in the background of the process that includes it. Campaign lanes
 * (`campaign.lane`, long-lived and paced) have their own runner, configured from the
 * environment (see `CampaignLane.layerConfig`).
 */
export const layer = Layer.merge(Layer.scopedDiscard(Effect.forkScoped(JobRunner.run({ handlers }))), CampaignLane.layerConfig)
