import { Context, type Effect, type Option } from "effect"
import type { ResourceAlreadyExists } from "../shared/Errors.js"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Status, Template } from "./Template.js"

/** What the operator reports for one template (sync and webhooks). */
export interface TemplateState {
  readonly operatorId: string | null
  readonly name: string
  readonly language: string
  readonly category: Template["category"]
  readonly status: Status
  readonly components: Template["components"]
  readonly rejectedReason: string | null
}

/**
 * Storage of a store's templates. Templates belong to the store, not to a mode: both keys
 * see the same rows. (store, name, language) is unique. Every method is scoped by `storeId`;
 * another store's rows are invisible.
 */
export class TemplateRepo extends Context.Tag("@switchboard/domain/TemplateRepo")<
  TemplateRepo,
  {
    /** Newest first by id, rows with id < `page.after` when given, optionally only one status. */
    readonly list: (storeId: string, query: PageRequest & { readonly status?: Status | undefined }) => Effect.Effect<Slice<Template>>
    /** Every language of the template with this name. */
    readonly findByName: (storeId: string, name: string) => Effect.Effect<ReadonlyArray<Template>>
    readonly find: (storeId: string, name: string, language: string) => Effect.Effect<Option.Option<Template>>
    /** Fails with ResourceAlreadyExists when (store, name, language) is taken. */
    readonly insert: (template: Template) => Effect.Effect<void, ResourceAlreadyExists>
    /**
     * Makes the store's rows equal to what the operator reports: inserts the unknown ones
     * (with ids from `newId`), updates status, category, components and reason of the
     * known ones, deletes the rows the operator no longer has. Answers the number of rows
     * changed. Runs in one transaction.
     */
    readonly replaceAll: (storeId: string, states: ReadonlyArray<TemplateState>, newId: () => string) => Effect.Effect<number>
    /**
     * Records a status the operator reported for (name, language), with the reason (null to
     * clear). Answers whether a row changed; a status equal to the stored one is no change.
     */
    readonly updateStatus: (
      storeId: string,
      name: string,
      language: string,
      update: { readonly status: Status; readonly rejectedReason: string | null; readonly category?: Template["category"] | undefined }
    ) => Effect.Effect<boolean>
    /** Deletes every language of `name`; answers how many rows went. */
    readonly deleteByName: (storeId: string, name: string) => Effect.Effect<number>
  }
>() {}
