/**
 * Product and batch routes (spec §4.2): a catalog's products (list with filters, single
 * create), a product (read, change, delete, its errors), and batches (submit up to 50,000
 * requests in a body of up to 32 MiB, track one by its handle, list a catalog's). Another
 * store's catalog, product or handle answers 404 `resource_not_found` as an unknown one.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Pagination, Product, ProductBatch, Products } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import { BodyLimit } from "../BodyLimit.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"
const catalogId = "cat_01M85GK8TB3E8BH2R1WY18AD8X"
const product = {
  id: "prd_01M85GM2Q4W8X8D6V7E4T3R2B1",
  catalog_id: catalogId,
  retailer_id: "SKU-1001",
  name: "Linen shirt",
  description: "Relaxed fit, 100% linen",
  price: 4900,
  sale_price: null,
  currency: "USD",
  availability: "in stock",
  condition: "new",
  image_url: "https://shop.example.com/img/sku-1001.jpg",
  url: "https://shop.example.com/p/sku-1001",
  brand: "Northwind",
  category: "Apparel & Accessories > Clothing > Shirts",
  inventory: 25,
  visibility: "published",
  review_status: "approved",
  errors: [],
  created_at: time,
  updated_at: time
}
const handle = "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q"
const batch = {
  handle,
  catalog_id: catalogId,
  source: "api",
  status: "finished",
  allow_upsert: true,
  total: 3,
  processed: 3,
  succeeded: 1,
  failed: 2,
  errors: [
    { index: 1, retailer_id: "SKU-1002", code: "validation_failed", message: "must be an ISO 4217 currency code such as USD", field: "currency" },
    { index: 2, retailer_id: "SKU-1003", code: "image_quality", message: "The image could not be downloaded", field: null }
  ],
  errors_next_cursor: null,
  created_at: time,
  updated_at: time,
  finished_at: time
}
const { errors: _, errors_next_cursor: __, ...summary } = batch

const ProductPath = Schema.Struct({ id: Schema.String })
const BatchPath = Schema.Struct({ id: Schema.String, handle: Schema.String })

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(Endpoints.listOf("list", "/catalogs/:id/products", Product.ProductId.schema, Product.ListFilters, Product.ProductResource, "ProductPage"))
  .add(
    Endpoints.createIn("create", "/catalogs/:id/products", Product.ProductInput, Product.ProductResource, [
      ApiError.ResourceNotFound,
      ApiError.ResourceAlreadyExists,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    HttpApiEndpoint.post("submitBatch", "/catalogs/:id/products/batch")
      .setPath(IdPath)
      .setPayload(ProductBatch.SubmitBatch)
      .addSuccess(ProductBatch.BatchResource, { status: 202 })
      .addError(ApiError.ResourceNotFound)
      .annotate(BodyLimit, BodyLimit.PRODUCT_BATCH)
  )
  .add(
    Endpoints.listOf(
      "listBatches",
      "/catalogs/:id/products/batch",
      ProductBatch.ProductBatchId.schema,
      {},
      ProductBatch.BatchSummary,
      "ProductBatchPage"
    )
  )
  .add(
    HttpApiEndpoint.get("getBatch", "/catalogs/:id/products/batch/:handle")
      .setPath(BatchPath)
      .setUrlParams(Pagination.ListParams(ProductBatch.ErrorPosition, {}))
      .addSuccess(ProductBatch.BatchResource)
      .addError(ApiError.ResourceNotFound)
  )
  .add(Endpoints.getOne("get", "/products/:id", Product.ProductResource, ProductPath))
  .add(
    Endpoints.update(
      "update",
      "/products/:id",
      Product.ProductPatch,
      Product.ProductResource,
      [ApiError.ResourceNotFound, ...ApiError.operatorErrors],
      ProductPath
    )
  )
  .add(Endpoints.remove("remove", "/products/:id", Product.Deleted, [ApiError.ResourceNotFound, ...ApiError.operatorErrors], ProductPath))
  .add(Endpoints.listOf("errors", "/products/:id/errors", Products.ErrorPosition, {}, Product.ProductError, "ProductErrorPage", ProductPath))
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { products: "Products of a catalog and product batches, carried to the operator under its per-catalog call quota" },
    ids: { products: product.id },
    operations: {
      "products.list": {
        summary: "List a catalog's products",
        description: "Filters: `availability`, `review_status`, `has_errors` (`true`/`false`), `retailer_id`.",
        response: { data: [product], next_cursor: null }
      },
      "products.create": {
        summary: "Create a product",
        description:
          "Checked with the operator's rules (a 400 names the field), stored at once with `review_status: pending`, and sent to the operator as a batch of one. An operator refusal of the call (422) undoes it. Beyond a handful of products use the batch route.",
        request: {
          retailer_id: product.retailer_id,
          name: product.name,
          price: product.price,
          currency: product.currency,
          image_url: product.image_url
        },
        response: { ...product, review_status: "pending" }
      },
      "products.submitBatch": {
        summary: "Submit a product batch",
        description:
          "Up to 50,000 requests (`CREATE`, `UPDATE`, `DELETE`) in a body of up to 32 MiB; answers 202 with the `handle` at once. A request that fails the operator's rules is an error of the batch (with its index, retailer_id and field) and never reaches the operator; a retailer_id twice in one body is a 400. The rest goes to the operator in chunks of 5,000 under the catalog's call quota.",
        request: {
          allow_upsert: true,
          requests: [
            {
              method: "UPDATE",
              data: { retailer_id: "SKU-1001", name: "Linen shirt", price: 4900, currency: "USD", image_url: product.image_url }
            },
            { method: "DELETE", data: { retailer_id: "SKU-0999" } }
          ]
        },
        response: { ...batch, status: "queued", processed: 0, succeeded: 0, failed: 0, errors: [], finished_at: null }
      },
      "products.listBatches": { summary: "List a catalog's batches", response: { data: [summary], next_cursor: null } },
      "products.getBatch": {
        summary: "Track a batch",
        description:
          "`status` (`queued`, `in_progress`, `finished`, `failed`), the counts, and a page of the errors (`limit`, `cursor` from `errors_next_cursor`).",
        response: batch
      },
      "products.get": { summary: "Get a product", response: product },
      "products.update": {
        summary: "Change a product",
        description: "The fields given change (not `retailer_id`); the product is pending the operator's review again.",
        request: { price: 3900 },
        response: { ...product, price: 3900, review_status: "pending" }
      },
      "products.remove": {
        summary: "Delete a product",
        description: "Gone here at once; deleted at the operator by a batch of one.",
        response: { id: product.id, deleted: true }
      },
      "products.errors": {
        summary: "A product's errors",
        description: "What the operator found wrong with the product's last write.",
        response: {
          data: [{ type: "IMAGE_QUALITY", severity: "MUST_FIX", code: "image_quality", message: "The image could not be downloaded" }],
          next_cursor: null
        }
      }
    }
  }) {}
