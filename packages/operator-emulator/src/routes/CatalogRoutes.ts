/**
 * Catalogs (GRAPH_API.md §8.1): `POST|GET /{business_id}/owned_product_catalogs`,
 * `GET|POST|DELETE /{catalog_id}`, and a WABA's connections
 * `POST|GET|DELETE /{waba_id}/product_catalogs` (`catalog_id`). Every refusal is the
 * operator's: an unknown id is error 100 (subcode 33), a missing `name` or `catalog_id` 100.
 */
import { businessOf, type CatalogRecord } from "../Catalogs.js"
import { GraphErrors } from "../GraphError.js"
import { optionalString, requiredString } from "../Requests.js"
import { type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"

const view = (c: CatalogRecord) => ({ id: c.id, name: c.name, vertical: c.vertical, business: { id: c.businessId } })

/** A body parameter, or the same name in the query string (the Graph API takes both). */
const param = (request: GraphRequest, name: string, required: boolean): string | undefined => {
  const fromQuery = request.query.get(name)
  if (fromQuery !== null) return fromQuery
  const body = request.method === "GET" ? {} : ((request.body() as Record<string, unknown> | undefined) ?? {})
  return required ? requiredString(body, name) : optionalString(body, name)
}

const catalogOf = (ctx: EmulatorContext, id: string, method: string): CatalogRecord => {
  const catalog = ctx.catalogs.get(id)
  if (catalog === undefined) throw GraphErrors.unknownObjectGet(id, method)
  return catalog
}

/** Whether `id` names a business the emulator knows: the owner of some WABA seen. */
const isBusiness = (ctx: EmulatorContext, id: string): boolean => ctx.accounts.wabaIds().some((waba) => businessOf(waba) === id)

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:businessId/owned_product_catalogs",
    handle: (ctx, request) => {
      const { businessId } = request.params
      if (!isBusiness(ctx, businessId)) throw GraphErrors.unknownObject(businessId)
      const name = param(request, "name", true)!
      return ok({ id: ctx.catalogs.create(businessId, name, param(request, "vertical", false) ?? "commerce").id })
    }
  },
  {
    method: "GET",
    path: "/:businessId/owned_product_catalogs",
    handle: (ctx, { params: { businessId } }) => ok({ data: ctx.catalogs.ownedBy(businessId).map(view) })
  },
  {
    method: "POST",
    path: "/:wabaId/product_catalogs",
    handle: (ctx, request) => {
      const { wabaId } = request.params
      const catalog = catalogOf(ctx, param(request, "catalog_id", true)!, "POST")
      if (!catalog.wabas.includes(wabaId)) ctx.catalogs.update(catalog.id, { wabas: [...catalog.wabas, wabaId] })
      return ok({ success: true })
    }
  },
  {
    method: "GET",
    path: "/:wabaId/product_catalogs",
    handle: (ctx, { params: { wabaId } }) => ok({ data: ctx.catalogs.connectedTo(wabaId).map(view) })
  },
  {
    method: "DELETE",
    path: "/:wabaId/product_catalogs",
    handle: (ctx, request) => {
      const { wabaId } = request.params
      const catalog = catalogOf(ctx, param(request, "catalog_id", true)!, "DELETE")
      ctx.catalogs.update(catalog.id, { wabas: catalog.wabas.filter((w) => w !== wabaId) })
      return ok({ success: true })
    }
  },
  {
    method: "POST",
    path: "/:catalogId",
    handle: (ctx, request) => {
      const catalog = catalogOf(ctx, request.params.catalogId, "POST")
      const name = param(request, "name", false)
      if (name !== undefined) ctx.catalogs.update(catalog.id, { name })
      return ok({ success: true })
    }
  },
  {
    method: "DELETE",
    path: "/:catalogId",
    handle: (ctx, { params: { catalogId } }) => {
      if (!ctx.catalogs.delete(catalogId)) throw GraphErrors.unknownObjectGet(catalogId, "DELETE")
      return ok({ success: true })
    }
  }
]

/** `GET /{id}` of a catalog (the accounts' node route asks here first). */
export const catalogNode = (ctx: EmulatorContext, id: string): unknown => {
  const catalog = ctx.catalogs.get(id)
  return catalog === undefined ? undefined : { ...view(catalog), product_count: 0 }
}
