/**
 * The storage of every module in one place: a new module adds its migration to `migrations`
 * and its repositories to `layer` (and their tags to `Services`) here, and its tables to
 * `Tables` in `Tables.ts` (its own file, so that the repositories, which read `Tables`,
 * import nothing that imports them).
 *
 * Migrations: Kysely runs them by name, so names start with a zero-padded sequence number;
 * append new ones at the end, never edit one that has shipped.
 */
import type {
  BatchRepo,
  CallRepo,
  CampaignRepo,
  CatalogRepo,
  CommerceSettingsRepo,
  FeedRepo,
  FlowEndpointRepo,
  FlowRepo,
  FlowResponseRepo,
  IdempotencyStore,
  MediaPorts,
  ProductRepo,
  ShippingProfileRepo,
  OrderRepo,
  Inbox,
  JobQueue,
  MessagingRepo,
  MirrorOutbox,
  Retention,
  Inspection,
  StoreRepo,
  Telemetry,
  TemplateRepo,
  Transactor,
  WebhookRepo
} from "@switchboard/domain"
import { Layer } from "effect"
import type { Migration } from "kysely"
import { type Database, layerTransactor } from "./Database.js"
import * as SqlCallPermissionRepo from "./calls/SqlCallPermissionRepo.js"
import * as SqlCallRepo from "./calls/SqlCallRepo.js"
import * as SqlCallSettingsRepo from "./calls/SqlCallSettingsRepo.js"
import * as SqlCampaignLaneRepo from "./campaigns/SqlCampaignLaneRepo.js"
import * as SqlCampaignRepo from "./campaigns/SqlCampaignRepo.js"
import * as SqlBatchRepo from "./commerce/SqlBatchRepo.js"
import * as SqlCatalogRepo from "./commerce/SqlCatalogRepo.js"
import * as SqlProductRepo from "./commerce/SqlProductRepo.js"
import * as SqlCommerceSettingsRepo from "./commerce/SqlCommerceSettingsRepo.js"
import * as SqlFeedRepo from "./commerce/SqlFeedRepo.js"
import * as SqlShippingProfileRepo from "./commerce/SqlShippingProfileRepo.js"
import * as SqlOrderRepo from "./orders/SqlOrderRepo.js"
import * as SqlFlowEndpointRepo from "./flows/SqlFlowEndpointRepo.js"
import * as SqlFlowRepo from "./flows/SqlFlowRepo.js"
import * as SqlFlowResponseRepo from "./flows/SqlFlowResponseRepo.js"
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
import * as m0001 from "./migrations/0001_foundation.js"
import * as m0002 from "./migrations/0002_messaging.js"
import * as m0003 from "./migrations/0003_campaigns.js"
import * as m0004 from "./migrations/0004_jobs_runnable.js"
import * as m0005 from "./migrations/0005_template_quality.js"
import * as m0006 from "./migrations/0006_key_expiry_and_message_list.js"
import * as m0007 from "./migrations/0007_campaign_template_parameters.js"
import * as m0008 from "./migrations/0008_commerce_shipping_profiles.js"
import * as m0009 from "./migrations/0009_commerce_settings.js"
import * as m0010 from "./migrations/0010_commerce_catalogs.js"
import * as m0011 from "./migrations/0011_commerce_products.js"
import * as m0012 from "./migrations/0012_commerce_feeds.js"
import * as m0014 from "./migrations/0014_commerce_orders.js"
import * as m0013 from "./migrations/0013_calls.js"
import * as m0015 from "./migrations/0015_flows.js"
import * as m0016 from "./migrations/0016_catalog_owners.js"
import * as m0017 from "./migrations/0017_jobs_fairness.js"
import * as m0018 from "./migrations/0018_flow_versions_unique.js"
import * as m0019 from "./migrations/0019_retention.js"
import * as m0020 from "./migrations/0020_mirror_outbox.js"
import * as m0021 from "./migrations/0021_order_payments.js"
import * as m0022 from "./migrations/0022_campaign_limits.js"
import * as SqlMirrorOutbox from "./mirror/SqlMirrorOutbox.js"
import * as SqlOperationalGauges from "./SqlOperationalGauges.js"
import * as SqlRetention from "./SqlRetention.js"
import * as SqlInspection from "./SqlInspection.js"
import * as m0023 from "./migrations/0023_media.js"
import * as m0024 from "./migrations/0024_jobs_notify.js"
import * as m0025 from "./migrations/0025_recipient_time_zones.js"
import * as m0026 from "./migrations/0026_order_updates_template.js"
import * as m0027 from "./migrations/0027_product_staging.js"
import * as m0028 from "./migrations/0028_product_staging_unlogged.js"
import * as m0029 from "./migrations/0029_recipient_zone_lists.js"
import * as SqlMediaRepo from "./media/SqlMediaRepo.js"

/** The ports this package implements. */
export type Services =
  | StoreRepo.StoreRepo
  | TemplateRepo.TemplateRepo
  | TemplateRepo.TemplateStatusRepo
  | JobQueue.JobQueue
  | Inbox.Inbox
  | IdempotencyStore.IdempotencyStore
  | Retention.RetentionStore
  | Telemetry.OperationalGauges
  | Inspection.Inspection
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
  | ShippingProfileRepo.ShippingProfileRepo
  | CommerceSettingsRepo.CommerceSettingsRepo
  | CatalogRepo.CatalogRepo
  | ProductRepo.ProductRepo
  | BatchRepo.BatchRepo
  | BatchRepo.BatchWorkRepo
  | FeedRepo.FeedRepo
  | FeedRepo.FeedWorkRepo
  | OrderRepo.OrderRepo
  | OrderRepo.OrderRecordRepo
  | CallRepo.CallPermissionRepo
  | CallRepo.CallRepo
  | FlowRepo.FlowRepo
  | FlowResponseRepo.FlowResponseRepo
  | FlowEndpointRepo.FlowEndpointRepo
  | CallRepo.CallSettingsRepo
  | MirrorOutbox.MirrorOutbox
  | MediaPorts.MediaRepo

export const layer: Layer.Layer<Services, never, Database | SqlDialect> = Layer.mergeAll(
  SqlStoreRepo.layer,
  SqlTemplateRepo.layer,
  SqlJobQueue.layer,
  SqlInbox.layer,
  SqlIdempotencyStore.layer,
  SqlRetention.layer,
  SqlOperationalGauges.layer,
  SqlInspection.layer,
  layerTransactor,
  SqlCustomerRepo.layer,
  SqlOptOutRepo.layer,
  SqlMessageRepo.layer,
  SqlInboundMessageRepo.layer,
  SqlWebhookRepo.layer,
  SqlCampaignRepo.layer,
  SqlCampaignLaneRepo.layer,
  SqlShippingProfileRepo.layer,
  SqlCommerceSettingsRepo.layer,
  SqlCatalogRepo.layer,
  SqlProductRepo.layer,
  SqlBatchRepo.layer,
  SqlFeedRepo.layer,
  SqlOrderRepo.layer,
  SqlCallPermissionRepo.layer,
  SqlCallRepo.layer,
  SqlFlowRepo.layer,
  SqlFlowResponseRepo.layer,
  SqlFlowEndpointRepo.layer,
  SqlCallSettingsRepo.layer,
  SqlMirrorOutbox.layer,
  SqlMediaRepo.layer
)

/** Every migration, in order. */
export const migrations: Readonly<Record<string, Migration>> = {
  "0001_foundation": m0001,
  "0002_messaging": m0002,
  "0003_campaigns": m0003,
  "0004_jobs_runnable": m0004,
  "0005_template_quality": m0005,
  "0006_key_expiry_and_message_list": m0006,
  "0007_campaign_template_parameters": m0007,
  "0008_commerce_shipping_profiles": m0008,
  "0009_commerce_settings": m0009,
  "0010_commerce_catalogs": m0010,
  "0011_commerce_products": m0011,
  "0012_commerce_feeds": m0012,
  "0013_calls": m0013,
  "0014_commerce_orders": m0014,
  "0015_flows": m0015,
  "0016_catalog_owners": m0016,
  "0017_jobs_fairness": m0017,
  "0018_flow_versions_unique": m0018,
  "0019_retention": m0019,
  "0020_mirror_outbox": m0020,
  "0021_order_payments": m0021,
  "0022_campaign_limits": m0022,
  "0023_media": m0023,
  "0024_jobs_notify": m0024,
  "0025_recipient_time_zones": m0025,
  "0026_order_updates_template": m0026,
  "0027_product_staging": m0027,
  "0028_product_staging_unlogged": m0028,
  "0029_recipient_zone_lists": m0029
}
