/** The commerce tables (migrations 0008–0012) and their column maps. */
import { type Catalog, CommerceSettings, Feed, Product, type ProductBatch, ProductRules, ShippingProfile } from "@switchboard/domain"
import * as Columns from "../internal/Columns.js"

export interface ShippingProfilesTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly name: string
  /** JSON array of destinations. */
  readonly destinations: string
  /** JSON `{ min_days, max_days }`. */
  readonly handling_time: string
  /** 0/1; at most one 1 per (store_id, mode), by a partial unique index. */
  readonly is_default: number | boolean
}

/** One row per tenant (migration 0009). */
export interface CommerceSettingsTable extends Columns.TenantRow {
  readonly is_cart_enabled: number | boolean
  readonly is_catalog_visible: number | boolean
  readonly country: string | null
  readonly currency: string | null
  /** JSON: the payment configuration, null for none. */
  readonly payments: string | null
  /** JSON: the order-updates template (`{name, language}`), null for none (migration 0026). */
  readonly order_updates_template: string | null
  readonly updated_at: number | string | null
}

/** Catalogs (migration 0010); (store_id, mode, operator_catalog_id) is unique. */
export interface CatalogsTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly name: string
  readonly operator_catalog_id: string
  readonly origin: "created" | "connected"
  readonly connected: number | boolean
}

/** Catalog owners (migration 0016): the one store that may hold an operator catalog. */
export interface CatalogOwnersTable {
  readonly operator_catalog_id: string
  readonly store_id: string
  readonly created_at: number | string
}

export const catalogColumns = Columns.map<Catalog.Catalog, CatalogsTable>("catalogs", {
  ...Columns.owned,
  name: ["name", Columns.text],
  operatorCatalogId: ["operator_catalog_id", Columns.text],
  origin: ["origin", Columns.text],
  connected: ["connected", Columns.bool],
  ...Columns.stamps
})

/** Products (migration 0011); (catalog_id, retailer_id) is unique. */
export interface ProductsTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly catalog_id: string
  readonly retailer_id: string
  readonly name: string
  readonly description: string | null
  readonly price: number | string
  readonly sale_price: number | string | null
  readonly currency: string
  readonly availability: string
  readonly condition: string
  readonly image_url: string
  readonly url: string | null
  readonly brand: string | null
  readonly category: string | null
  readonly inventory: number | string | null
  readonly visibility: string
  readonly review_status: string
  /** JSON array of the product's errors. */
  readonly errors: string
  readonly error_count: number
}

/** An upload's checked rows waiting for the whole file to be read (migration 0027): a product's data, in file order. */
export interface ProductStagingTable extends Pick<ProductsTable, "id" | "retailer_id" | (typeof PRODUCT_DATA_COLUMNS)[number]> {
  readonly upload_id: string
  readonly seq: number
}

/** A product's data: what makes an upsert a change, and what a staged row holds beside its id and retailer id. */
export const PRODUCT_DATA_COLUMNS = ProductRules.DATA_FIELDS

/** One row per product error, for the catalog's error list and diagnostics. */
export interface ProductErrorsTable {
  readonly catalog_id: string
  readonly retailer_id: string
  readonly n: number
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly product_id: string
  readonly type: string
  readonly severity: string
  readonly code: string
  readonly message: string
}

export interface ProductBatchesTable extends Columns.OwnedRow {
  readonly catalog_id: string
  readonly source: string
  readonly status: string
  readonly allow_upsert: number | boolean
  readonly total: number
  readonly processed: number
  readonly succeeded: number
  readonly failed: number
  /** Errors recorded so far: the position of the next one. */
  readonly error_count: number
  readonly created_at: number | string
  readonly updated_at: number | string
  readonly finished_at: number | string | null
}

export interface ProductBatchChunksTable {
  readonly batch_id: string
  readonly seq: number
  readonly catalog_id: string
  readonly size: number
  /** JSON array of the chunk's checked requests. */
  readonly requests: string
  readonly handle: string | null
  readonly sent_at: number | string | null
  readonly next_poll_at: number | string | null
  readonly finished: number
}

export interface ProductBatchErrorsTable {
  readonly batch_id: string
  readonly position: number
  readonly idx: number
  readonly retailer_id: string | null
  readonly code: string
  readonly message: string
  readonly field: string | null
}

export const productColumns = Columns.map<Product.Product, ProductsTable>("products", {
  ...Columns.owned,
  catalogId: ["catalog_id", Columns.text],
  retailerId: ["retailer_id", Columns.text],
  name: ["name", Columns.text],
  description: ["description", Columns.text],
  price: ["price", Columns.integer],
  salePrice: ["sale_price", Columns.nullable(Columns.integer)],
  currency: ["currency", Columns.text],
  availability: ["availability", Columns.text],
  condition: ["condition", Columns.text],
  imageUrl: ["image_url", Columns.text],
  url: ["url", Columns.text],
  brand: ["brand", Columns.text],
  category: ["category", Columns.text],
  inventory: ["inventory", Columns.nullable(Columns.integer)],
  visibility: ["visibility", Columns.text],
  reviewStatus: ["review_status", Columns.text],
  errors: ["errors", Columns.json(Product.Product.fields.errors)],
  ...Columns.stamps
})

export const batchColumns = Columns.map<ProductBatch.ProductBatch, Omit<ProductBatchesTable, "error_count">>("product_batches", {
  ...Columns.owned,
  catalogId: ["catalog_id", Columns.text],
  source: ["source", Columns.text],
  status: ["status", Columns.text],
  allowUpsert: ["allow_upsert", Columns.bool],
  total: ["total", Columns.integer],
  processed: ["processed", Columns.integer],
  succeeded: ["succeeded", Columns.integer],
  failed: ["failed", Columns.integer],
  ...Columns.stamps,
  finishedAt: ["finished_at", Columns.nullable(Columns.epoch)]
})

export interface FeedsTable extends Columns.OwnedRow, Columns.StampedRow {
  readonly catalog_id: string
  readonly name: string
  readonly delimiter: string
  readonly default_currency: string | null
  readonly deletion_enabled: number | boolean
  /** JSON of the schedule, or null. */
  readonly schedule: string | null
}

export interface FeedUploadsTable {
  readonly id: string
  readonly feed_id: string
  readonly store_id: string
  readonly mode: "live" | "test"
  readonly catalog_id: string
  readonly input_method: string
  readonly filename: string | null
  readonly url: string | null
  readonly status: string
  readonly num_detected_items: number
  readonly num_persisted_items: number
  readonly num_invalid_items: number
  readonly num_deleted_items: number
  readonly error: string | null
  readonly batch_handle: string | null
  readonly started_at: number | string
  readonly ended_at: number | string | null
}

export interface FeedUploadErrorsTable {
  readonly upload_id: string
  readonly position: number
  readonly row_number: number
  readonly retailer_id: string | null
  readonly field: string | null
  readonly message: string
  readonly severity: string
}

export const feedColumns = Columns.map<Feed.Feed, FeedsTable>("feeds", {
  ...Columns.owned,
  catalogId: ["catalog_id", Columns.text],
  name: ["name", Columns.text],
  delimiter: ["delimiter", Columns.text],
  defaultCurrency: ["default_currency", Columns.text],
  deletionEnabled: ["deletion_enabled", Columns.bool],
  schedule: ["schedule", Columns.nullable(Columns.json(Feed.Schedule))],
  ...Columns.stamps
})

export const uploadColumns = Columns.map<Feed.Upload, FeedUploadsTable>("feed_uploads", {
  id: ["id", Columns.text],
  feedId: ["feed_id", Columns.text],
  ...Columns.tenant,
  catalogId: ["catalog_id", Columns.text],
  inputMethod: ["input_method", Columns.text],
  filename: ["filename", Columns.text],
  url: ["url", Columns.text],
  status: ["status", Columns.text],
  numDetectedItems: ["num_detected_items", Columns.integer],
  numPersistedItems: ["num_persisted_items", Columns.integer],
  numInvalidItems: ["num_invalid_items", Columns.integer],
  numDeletedItems: ["num_deleted_items", Columns.integer],
  error: ["error", Columns.text],
  batchHandle: ["batch_handle", Columns.text],
  startedAt: ["started_at", Columns.epoch],
  endedAt: ["ended_at", Columns.nullable(Columns.epoch)]
})

export interface CommerceTables {
  readonly feeds: FeedsTable
  readonly feed_uploads: FeedUploadsTable
  readonly feed_upload_errors: FeedUploadErrorsTable
  readonly products: ProductsTable
  readonly product_staging: ProductStagingTable
  readonly product_errors: ProductErrorsTable
  readonly product_batches: ProductBatchesTable
  readonly product_batch_chunks: ProductBatchChunksTable
  readonly product_batch_errors: ProductBatchErrorsTable
  readonly catalogs: CatalogsTable
  readonly catalog_owners: CatalogOwnersTable
  readonly shipping_profiles: ShippingProfilesTable
  readonly commerce_settings: CommerceSettingsTable
}

export const commerceSettingsColumns = Columns.map<CommerceSettings.CommerceSettings, CommerceSettingsTable>("commerce_settings", {
  ...Columns.tenant,
  isCartEnabled: ["is_cart_enabled", Columns.bool],
  isCatalogVisible: ["is_catalog_visible", Columns.bool],
  country: ["country", Columns.text],
  currency: ["currency", Columns.text],
  payments: ["payments", Columns.nullable(Columns.json(CommerceSettings.Payments))],
  orderUpdatesTemplate: ["order_updates_template", Columns.nullable(Columns.json(CommerceSettings.OrderUpdatesTemplate))],
  updatedAt: ["updated_at", Columns.nullable(Columns.epoch)]
})

export const shippingProfileColumns = Columns.map<ShippingProfile.ShippingProfile, ShippingProfilesTable>("shipping_profiles", {
  ...Columns.owned,
  name: ["name", Columns.text],
  destinations: ["destinations", Columns.json(ShippingProfile.ShippingProfile.fields.destinations)],
  handlingTime: ["handling_time", Columns.json(ShippingProfile.ShippingProfile.fields.handlingTime)],
  isDefault: ["is_default", Columns.bool],
  ...Columns.stamps
})

export const shippingProfileSelect = [
  "id",
  "store_id",
  "mode",
  "name",
  "destinations",
  "handling_time",
  "is_default",
  "created_at",
  "updated_at"
] as const
