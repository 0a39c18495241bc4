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
import * as SqlCampaignRepo from "./SqlCampaignRepo.js"
import * as SqlCustomerRepo from "./SqlCustomerRepo.js"
import * as SqlIdempotencyStore from "./SqlIdempotencyStore.js"
import * as SqlInboundMessageRepo from "./SqlInboundMessageRepo.js"
import * as SqlInbox from "./SqlInbox.js"
import * as SqlJobQueue from "./SqlJobQueue.js"
import * as SqlMessageRepo from "./SqlMessageRepo.js"
import * as SqlOptOutRepo from "./SqlOptOutRepo.js"
import * as SqlStoreRepo from "./SqlStoreRepo.js"
import * as SqlTemplateRepo from "./SqlTemplateRepo.js"
import * as SqlWebhookRepo from "./SqlWebhookRepo.js"
import type { SqlDialect } from "./SqlDialect.js"

/** The ports this package implements. */
export type Services =
  | StoreRepo.StoreRepo
  | TemplateRepo.TemplateRepo
  | JobQueue.JobQueue
  | Inbox.Inbox
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor
  | MessagingRepo.CustomerRepo
  | MessagingRepo.OptOutRepo
  | MessagingRepo.MessageRepo
  | MessagingRepo.InboundMessageRepo
  | WebhookRepo.WebhookRepo
  | CampaignRepo.CampaignRepo

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
  SqlCampaignRepo.layer
)
