/**
 * Catalog routes (spec §4.1): list, create (at the operator), read, rename, delete, connect
 * an existing operator catalog, disconnect. A catalog id of another store or mode answers
 * 404 `resource_not_found` exactly as an unknown one. Operator refusals are 422
 * `operator_rejected`; an unreachable operator is 503 `operator_unavailable`, and nothing
 * changed.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Catalog, Pagination } from "@switchboard/domain"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
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
  .add(
    HttpApiEndpoint.get("list", "/catalogs")
      .setUrlParams(Pagination.ListParams(Catalog.CatalogId.schema, {}))
      .addSuccess(Pagination.PageOf(Catalog.CatalogResource, "CatalogPage"))
  )
  .add(
    HttpApiEndpoint.post("create", "/catalogs")
      .setPayload(Catalog.CreateCatalog)
      .addSuccess(Catalog.CatalogResource, { status: 201 })
      .addError(ApiError.ResourceAlreadyExists)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.post("connect", "/catalogs/connect")
      .setPayload(Catalog.ConnectCatalog)
      .addSuccess(Catalog.CatalogResource, { status: 201 })
      .addError(ApiError.ResourceAlreadyExists)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(HttpApiEndpoint.get("get", "/catalogs/:id").setPath(IdPath).addSuccess(Catalog.CatalogResource).addError(ApiError.ResourceNotFound))
  .add(
    HttpApiEndpoint.patch("update", "/catalogs/:id")
      .setPath(IdPath)
      .setPayload(Catalog.UpdateCatalog)
      .addSuccess(Catalog.CatalogResource)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.del("remove", "/catalogs/:id")
      .setPath(IdPath)
      .addSuccess(Catalog.Deleted)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
  )
  .add(
    HttpApiEndpoint.post("disconnect", "/catalogs/:id/disconnect")
      .setPath(IdPath)
      .addSuccess(Catalog.CatalogResource)
      .addError(ApiError.ResourceNotFound)
      .addError(ApiError.OperatorRejected)
      .addError(ApiError.OperatorUnavailable)
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
        description: "By the operator's catalog id; it takes the operator's name unless `name` is given.",
        request: { operator_catalog_id: catalog.operator_catalog_id },
        response: { ...catalog, origin: "connected" }
      },
      "catalogs.get": { summary: "Get a catalog", response: catalog },
      "catalogs.update": { summary: "Rename a catalog", request: { name: "Summer collection" }, response: { ...catalog, name: "Summer collection" } },
      "catalogs.remove": {
        summary: "Delete a catalog",
        description: "A created catalog is deleted at the operator; a connected one is disconnected there and forgotten here.",
        response: { id: catalog.id, deleted: true }
      },
      "catalogs.disconnect": {
        summary: "Disconnect a catalog from the WhatsApp business account",
        description: "Customers no longer see it; the catalog stays, here and at the operator.",
        response: { ...catalog, connected: false }
      }
    }
  }) {}
