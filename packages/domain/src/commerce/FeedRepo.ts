/**
 * Storage of feeds and their uploads, scoped by the tenant. `FeedWorkRepo` is what the
 * worker's upload and schedule jobs use, by id alone.
 */
import { Context, type Effect, type Option } from "effect"
import type { PageRequest, Slice } from "../shared/Pagination.js"
import type { Tenant } from "../shared/Tenant.js"
import type { CatalogId } from "./Catalog.js"
import type { Feed, FeedId, Upload, UploadError, UploadId } from "./Feed.js"

export class FeedRepo extends Context.Tag("@switchboard/domain/FeedRepo")<
  FeedRepo,
  {
    readonly insert: (tenant: Tenant, feed: Feed) => Effect.Effect<void>
    readonly find: (tenant: Tenant, id: FeedId) => Effect.Effect<Option.Option<Feed>>
    /** The catalog's feeds, newest first. */
    readonly list: (tenant: Tenant, catalogId: CatalogId, page: PageRequest & { readonly after?: FeedId | undefined }) => Effect.Effect<Slice<Feed>>
    /** Replaces the feed's fields; none when it is not the tenant's. */
    readonly save: (tenant: Tenant, feed: Feed) => Effect.Effect<boolean>
    /** The feed, its uploads and their errors; answers whether it was there. */
    readonly remove: (tenant: Tenant, id: FeedId) => Effect.Effect<boolean>
    readonly insertUpload: (tenant: Tenant, upload: Upload) => Effect.Effect<void>
    readonly saveUpload: (tenant: Tenant, upload: Upload) => Effect.Effect<void>
    readonly findUpload: (tenant: Tenant, id: UploadId) => Effect.Effect<Option.Option<Upload>>
    /** The feed's uploads, newest first. */
    readonly listUploads: (
      tenant: Tenant,
      feedId: FeedId,
      page: PageRequest & { readonly after?: UploadId | undefined }
    ) => Effect.Effect<Slice<Upload>>
    /** Adds errors of the upload at positions `from`, `from + 1`, ... */
    readonly addUploadErrors: (tenant: Tenant, id: UploadId, from: number, errors: ReadonlyArray<UploadError>) => Effect.Effect<void>
    readonly uploadErrors: (
      tenant: Tenant,
      id: UploadId,
      page: { readonly limit: number; readonly after?: number | undefined }
    ) => Effect.Effect<Slice<UploadError & { readonly position: number }>>
    /** The retailer ids of the catalog's products, in pages by retailer id (deletion of what an upload lacks). */
    readonly retailerIds: (tenant: Tenant, catalogId: CatalogId, after: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<string>>
    /** Forgets the catalog's feeds (uploads and errors too). */
    readonly removeCatalog: (tenant: Tenant, catalogId: CatalogId) => Effect.Effect<void>
  }
>() {}

export class FeedWorkRepo extends Context.Tag("@switchboard/domain/FeedWorkRepo")<
  FeedWorkRepo,
  {
    readonly find: (id: FeedId) => Effect.Effect<Option.Option<Feed>>
    /** The upload with its feed and tenant (for the job that fetches its URL). */
    readonly findUpload: (id: UploadId) => Effect.Effect<Option.Option<{ readonly tenant: Tenant; readonly feed: Feed; readonly upload: Upload }>>
  }
>() {}
