/**
 * Catalog routes (spec §4.1): list, create (at the operator), read, rename, delete, connect
 * an existing operator catalog, disconnect. A catalog id of another store or mode answers
 * 404 `resource_not_found` exactly as an unknown one. Operator refusals are 422
 * `operator_rejected`; an unreachable operator is 503 `operator_unavailable`, and nothing
 * changed.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Catalog, CatalogSync } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { IdPath } from "../internal/Path.js"
import { Docs } from "../openapi/Document.js"

const time = "2026-05-04T09:30:00.000Z"
const catalog = {
  id: "cat_01M85GK8TB3E8BH2R1WY18AD8X",
  name: "Spring collection",
  operator_catalog_id: "771234567890123",
  origin: "created",
  connected: true,
  created_at: time,
  updated_at: time
}

export class CatalogsGroup extends HttpApiGroup.make("catalogs")
  .add(Endpoints.list("list", "/catalogs", Catalog.CatalogId.schema, {}, Catalog.CatalogResource, "CatalogPage"))
  .add(
    Endpoints.create("create", "/catalogs", Catalog.CreateCatalog, Catalog.CatalogResource, [
      ApiError.ResourceAlreadyExists,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    Endpoints.create("connect", "/catalogs/connect", Catalog.ConnectCatalog, Catalog.CatalogResource, [
      ApiError.ResourceNotFound,
      ApiError.ResourceAlreadyExists,
      ...ApiError.operatorErrors
    ])
  )
  .add(Endpoints.getOne("get", "/catalogs/:id", Catalog.CatalogResource))
  .add(
    Endpoints.update("update", "/catalogs/:id", Catalog.UpdateCatalog, Catalog.CatalogResource, [
      ApiError.ResourceNotFound,
      ...ApiError.operatorErrors
    ])
  )
  .add(
    HttpApiEndpoint.del("remove", "/catalogs/:id")
      .setPath(IdPath)
      .setUrlParams(
        Schema.Struct({
          force: Schema.optional(Schema.BooleanFromString.annotations({ description: "`true` deletes a catalog that has products, with them" }))
        })
      )
      .addSuccess(Catalog.Deleted)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ...ApiError.operatorErrors))
  )
  .add(
    HttpApiEndpoint.post("disconnect", "/catalogs/:id/disconnect")
      .setPath(IdPath)
      .addSuccess(Catalog.CatalogResource)
      .pipe(ApiError.withErrors(ApiError.ResourceNotFound, ...ApiError.operatorErrors))
  )
  .add(
    HttpApiEndpoint.post("sync", "/catalogs/:id/sync")
      .setPath(IdPath)
      .addSuccess(CatalogSync.SyncResource, { status: 202 })
      .addError(ApiError.ResourceNotFound)
  )
  .add(
    HttpApiEndpoint.get("getSync", "/catalogs/:id/syncs/:syncId")
      .setPath(Schema.Struct({ id: Schema.String, syncId: Schema.String }))
      .addSuccess(CatalogSync.SyncResource)
      .addError(ApiError.ResourceNotFound)
  )
  .add(Endpoints.getOne("diagnostics", "/catalogs/:id/diagnostics", CatalogSync.DiagnosticsResource))
  .add(
    Endpoints.listOf(
      "errors",
      "/catalogs/:id/errors",
      CatalogSync.ErrorPosition,
      CatalogSync.ErrorFilters,
      CatalogSync.CatalogErrorResource,
      "CatalogErrorPage"
    )
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { catalogs: "Product catalogs, mirrored at the operator and connected to the store's WhatsApp business account" },
    ids: { catalogs: catalog.id },
    operations: {
      "catalogs.list": { summary: "List catalogs", response: { data: [catalog], next_cursor: null } },
      "catalogs.create": {
        summary: "Create a catalog",
        description: "Created at the operator (owned by the account's business) and connected to the WhatsApp business account.",
        request: { name: catalog.name },
        response: catalog
      },
      "catalogs.connect": {
        summary: "Connect an existing operator catalog",
        description:
          "By the operator's catalog id; it takes the operator's name unless `name` is given. An operator catalog belongs to the store that created or first connected it: another store, an id the operator does not know and a catalog the operator will not connect to the account all get the same 404 `resource_not_found`.",
        request: { operator_catalog_id: catalog.operator_catalog_id },
        response: { ...catalog, origin: "connected" }
      },
      "catalogs.get": { summary: "Get a catalog", response: catalog },
      "catalogs.update": { summary: "Rename a catalog", request: { name: "Summer collection" }, response: { ...catalog, name: "Summer collection" } },
      "catalogs.remove": {
        summary: "Delete a catalog",
        description:
          "A created catalog is deleted at the operator; a connected one is disconnected there and forgotten here. A catalog with products needs `force=true` (a 400 names `force` otherwise); its products and batches go with it.",
        response: { id: catalog.id, deleted: true }
      },
      "catalogs.sync": {
        summary: "Sync a catalog to the operator",
        description:
          "Pushes every product again through the batch path; answers 202 once the queue is built. The operator's rejections become product errors (see diagnostics and errors). Ends with `catalog.sync.completed`.",
        response: {
          id: "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q",
          catalog_id: catalog.id,
          status: "queued",
          total: 1200,
          processed: 0,
          succeeded: 0,
          failed: 0,
          created_at: time,
          finished_at: null
        }
      },
      "catalogs.getSync": {
        summary: "Track a sync",
        response: {
          id: "pbh_01M85GN7ZK2J3H4G5F6D7S8A9Q",
          catalog_id: catalog.id,
          status: "finished",
          total: 1200,
          processed: 1200,
          succeeded: 1187,
          failed: 13,
          created_at: time,
          finished_at: time
        }
      },
      "catalogs.diagnostics": {
        summary: "A catalog's diagnostics",
        description: "The products' errors grouped by the operator's type and severity, with the number of products affected.",
        response: {
          catalog_id: catalog.id,
          products: 1200,
          products_with_errors: 13,
          groups: [
            { type: "IMAGE_QUALITY", severity: "MUST_FIX", affected_products: 9 },
            { type: "POLICY_VIOLATION", severity: "MUST_FIX", affected_products: 4 }
          ]
        }
      },
      "catalogs.errors": {
        summary: "A catalog's product errors",
        description: "Every error of every product, paged, by `severity` (`MUST_FIX`, `OPPORTUNITY`) and `type`.",
        response: {
          data: [
            {
              product_id: "prd_01M85GM2Q4W8X8D6V7E4T3R2B1",
              retailer_id: "SKU-1003",
              type: "IMAGE_QUALITY",
              severity: "MUST_FIX",
              code: "image_quality",
              message: "The image could not be downloaded"
            }
          ],
          next_cursor: null
        }
      },
      "catalogs.disconnect": {
        summary: "Disconnect a catalog from the WhatsApp business account",
        description: "Customers no longer see it; the catalog stays, here and at the operator.",
        response: { ...catalog, connected: false }
      }
    }
  }) {}
