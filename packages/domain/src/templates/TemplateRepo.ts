/**
 * Storage of a store's templates. Templates belong to the store, not to a mode: both keys
 * see the same rows, so only the tenant's store scopes them; (store, name, language) is
 * unique. Another store's rows are invisible.
 *
 * `TemplateRepo` holds what routes reach (tenant first); `TemplateStatusRepo` what only the
 * operator's status webhooks do.
 */
import { Context, type Effect, type Option } from "effect"
import type { ResourceAlreadyExists } from "../shared/Errors.js"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { StoreId, Tenant } from "../shared/Tenant.js"
import type { Category, QualityScore, Status, Template, TemplateId } from "./Template.js"

/** What the operator's template webhooks read and change of one template (the batched inbox's). */
export interface TemplateDetails {
  readonly id: TemplateId
  readonly name: string
  readonly language: string
  readonly status: Status
  readonly rejectedReason: string | null
  readonly category: Category
  readonly qualityScore: QualityScore | null
}

/** What the operator reports for one template (sync and webhooks). */
export interface TemplateState {
  readonly operatorId: string | null
  readonly name: string
  readonly language: string
  readonly category: Category
  readonly status: Status
  readonly components: Template["components"]
  readonly rejectedReason: string | null
  /** The quality rating, when the operator reported one (absent: leave the stored one). */
  readonly qualityScore?: QualityScore | undefined
}

export class TemplateRepo extends Context.Tag("@switchboard/domain/TemplateRepo")<
  TemplateRepo,
  {
    /** Newest first by id, rows with id < `after` when given, optionally only one status. */
    readonly list: (
      tenant: Tenant,
      query: PageRequest & { readonly after?: TemplateId | undefined; readonly status?: Status | undefined }
    ) => Effect.Effect<Slice<Template>>
    /** Every language of the template with this name. */
    readonly findByName: (tenant: Tenant, name: string) => Effect.Effect<ReadonlyArray<Template>>
    readonly find: (tenant: Tenant, name: string, language: string) => Effect.Effect<Option.Option<Template>>
    /** Stores the template in the tenant's store. Fails with ResourceAlreadyExists when (store, name, language) is taken. */
    readonly insert: (tenant: Tenant, template: Template) => Effect.Effect<void, ResourceAlreadyExists>
    /**
     * Makes the store's rows equal to what the operator reports: inserts the unknown ones
     * (each with an id from `newId`), updates status, category, components and reason of the
     * known ones, deletes the rows the operator no longer has. Answers the number of rows
     * changed. Runs in one transaction.
     */
    readonly replaceAll: (tenant: Tenant, states: ReadonlyArray<TemplateState>, newId: Effect.Effect<TemplateId>) => Effect.Effect<number>
    /** Deletes every language of `name`; answers how many rows went. */
    readonly deleteByName: (tenant: Tenant, name: string) => Effect.Effect<number>
  }
>() {}

/** What the operator's template status webhooks change (the inbox only; routes never receive it). */
export class TemplateStatusRepo extends Context.Tag("@switchboard/domain/TemplateStatusRepo")<
  TemplateStatusRepo,
  {
    /**
     * Records a status the operator reported for (name, language) of the store, with the
     * reason (null to clear). Answers whether a row changed; a report equal to the stored
     * row is no change, so of concurrent identical reports at most one answers true.
     */
    readonly updateStatus: (
      storeId: StoreId,
      name: string,
      language: string,
      update: { readonly status: Status; readonly rejectedReason: string | null; readonly category?: Category | undefined }
    ) => Effect.Effect<boolean>
    /**
     * Records a category change (`template_category_update`) or a quality rating
     * (`message_template_quality_update`) for (name, language) of the store; fields left out
     * stay as they are. Answers whether a row changed, as `updateStatus` does.
     */
    readonly updateDetails: (
      storeId: StoreId,
      name: string,
      language: string,
      update: { readonly category?: Category | undefined; readonly qualityScore?: QualityScore | undefined }
    ) => Effect.Effect<boolean>
    /**
     * The store's templates among `keys` (name and language), read at once; on PostgreSQL
     * their rows stay locked (in the order of their ids) until the transaction ends, so a
     * batch that reads them and then writes them (`writeDetails`) sees no concurrent change.
     */
    readonly detailsOf: (
      storeId: StoreId,
      keys: ReadonlyArray<{ readonly name: string; readonly language: string }>
    ) => Effect.Effect<ReadonlyArray<TemplateDetails>>
    /** Writes status, reason, category and quality of each row (by id, within the store) at once, stamping `updated_at` now. */
    readonly writeDetails: (storeId: StoreId, rows: ReadonlyArray<TemplateDetails>) => Effect.Effect<void>
  }
>() {}
