/**
 * Every storage port of the foundation over one `Database` and `SqlDialect`, which the store
 * packages (SQLite, PostgreSQL) provide.
 */
import type { IdempotencyStore, Inbox, JobQueue, StoreRepo, TemplateRepo, Transactor } from "@switchboard/domain"
import { Layer } from "effect"
import { type Database, layerTransactor } from "./Database.js"
import * as SqlIdempotencyStore from "./SqlIdempotencyStore.js"
import * as SqlInbox from "./SqlInbox.js"
import * as SqlJobQueue from "./SqlJobQueue.js"
import * as SqlStoreRepo from "./SqlStoreRepo.js"
import * as SqlTemplateRepo from "./SqlTemplateRepo.js"
import type { SqlDialect } from "./SqlDialect.js"

/** The ports this package implements. */
export type Services =
  | StoreRepo.StoreRepo
  | TemplateRepo.TemplateRepo
  | JobQueue.JobQueue
  | Inbox.Inbox
  | IdempotencyStore.IdempotencyStore
  | Transactor.Transactor

export const layer: Layer.Layer<Services, never, Database | SqlDialect> = Layer.mergeAll(
  SqlStoreRepo.layer,
  SqlTemplateRepo.layer,
  SqlJobQueue.layer,
  SqlInbox.layer,
  SqlIdempotencyStore.layer,
  layerTransactor
)
