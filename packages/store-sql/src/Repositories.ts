/**
 * Every storage port of the foundation and the messaging backbone over one `Database` and
 * `SqlDialect`, which the store packages (SQLite, PostgreSQL) provide.
 */
import type {
  CampaignRepo,
  IdempotencyStore,
  Inbox,
  JobQueue,
  MessagingRepo,
  StoreRepo,
  TemplateRepo,
  Transactor,
  WebhookRepo
} from "@switchboard/domain"
import { Layer } from "effect"
import { type Database, layerTransactor } from "./Database.js"
import * as SqlCampaignLaneRepo from "./campaigns/SqlCampaignLaneRepo.js"
import * as SqlCampaignRepo from "./campaigns/SqlCampaignRepo.js"
import * as SqlCustomerRepo from "./messaging/SqlCustomerRepo.js"
import * as SqlIdempotencyStore from "./idempotency/SqlIdempotencyStore.js"
import * as SqlInboundMessageRepo from "./messaging/SqlInboundMessageRepo.js"
import * as SqlInbox from "./inbox/SqlInbox.js"
import * as SqlJobQueue from "./SqlJobQueue.js"
import * as SqlMessageRepo from "./messaging/SqlMessageRepo.js"
import * as SqlOptOutRepo from "./messaging/SqlOptOutRepo.js"
import * as SqlStoreRepo from "./stores/SqlStoreRepo.js"
import * as SqlTemplateRepo from "./templates/SqlTemplateRepo.js"
import * as SqlWebhookRepo from "./webhooks/SqlWebhookRepo.js"
import type { SqlDialect } from "./SqlDialect.js"

/** The ports this package implements. */
export type Services =
  | StoreRepo.StoreRepo
  | TemplateRepo.TemplateRepo
  | TemplateRepo.TemplateStatusRepo
  | JobQueue.JobQueue
  | Inbox.Inbox
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
  | MessagingRepo.CustomerRepo
  | MessagingRepo.CustomerInboundRepo
  | MessagingRepo.OptOutRepo
  | MessagingRepo.MessageRepo
  | MessagingRepo.MessageStatusRepo
  | MessagingRepo.InboundMessageRepo
  | WebhookRepo.WebhookRepo
  | WebhookRepo.WebhookDeliveryRepo
  | CampaignRepo.CampaignRepo
  | CampaignRepo.CampaignLaneRepo

export const layer: Layer.Layer<Services, never, Database | SqlDialect> = Layer.mergeAll(
  SqlStoreRepo.layer,
  SqlTemplateRepo.layer,
  SqlJobQueue.layer,
  SqlInbox.layer,
  SqlIdempotencyStore.layer,
  layerTransactor,
  SqlCustomerRepo.layer,
  SqlOptOutRepo.layer,
  SqlMessageRepo.layer,
  SqlInboundMessageRepo.layer,
  SqlWebhookRepo.layer,
  SqlCampaignRepo.layer,
  SqlCampaignLaneRepo.layer
)
