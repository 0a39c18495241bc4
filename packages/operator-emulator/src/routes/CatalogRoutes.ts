/**
 * Catalogs (GRAPH_API.md §8.1): `POST|GET /{business_id}/owned_product_catalogs`,
 * `GET|POST|DELETE /{catalog_id}`, a WABA's connections
 * `POST|GET|DELETE /{waba_id}/product_catalogs` (`catalog_id`), and a catalog's items
 * (§8.2, §8.3): `POST /{catalog_id}/items_batch` under the catalog's call quota (80014 past
 * it), `GET /{catalog_id}/check_batch_request_status?handle=`, `GET /{catalog_id}/products`,
 * `GET /{product_item_id}` (answered through `catalogNode`).
 * Every refusal is the operator's: an unknown id is error 100 (subcode 33), a missing `name`
 * or `catalog_id` 100. A catalog is connected only to a WABA of the business that owns it or
 * of a business it was shared with (control `POST /catalogs/share`, as the owner shares it in
 * Business Manager): any other WABA gets the unknown object's error 100 (subcode 33).
 */
import { businessOf, type CatalogRecord } from "../Catalogs.js"
import { GraphErrors } from "../GraphError.js"
import type { Item, ItemRequest } from "../ItemsBatch.js"
import { ControlError, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"

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

const METHODS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE"])
/** Requests per `items_batch` call (GRAPH_API.md §8.3). */
const MAX_REQUESTS = 5000

/** The `requests` of an `items_batch` body (an array, or its JSON text), checked as the operator does. */
const itemRequests = (raw: unknown): ReadonlyArray<ItemRequest> => {
  let value = raw
  if (typeof value === "string") {
    try {
      value = JSON.parse(value)
    } catch {
      throw GraphErrors.invalidParameter("(#100) Param requests must be a JSON array.")
    }
  }
  if (!Array.isArray(value) || value.length === 0)
    throw GraphErrors.invalidParameter("(#100) The parameter requests is required and must be a non-empty array.")
  if (value.length > MAX_REQUESTS) throw GraphErrors.invalidParameter(`(#100) Too many requests in one batch: at most ${MAX_REQUESTS}.`)
  return value.map((r: unknown, i: number) => {
    const request = r as { method?: unknown; data?: { id?: unknown } }
    if (typeof request !== "object" || request === null || typeof request.method !== "string" || !METHODS.has(request.method))
      throw GraphErrors.invalidParameter(`(#100) requests[${i}].method must be one of CREATE, UPDATE, DELETE.`)
    if (typeof request.data !== "object" || request.data === null || typeof request.data.id !== "string" || request.data.id.length === 0)
      throw GraphErrors.invalidParameter(`(#100) requests[${i}].data.id (the retailer id) is required.`)
    return request as ItemRequest
  })
}

const itemView = (item: Item) => ({
  id: item.id,
  retailer_id: item.retailerId,
  ...item.fields,
  review_status: item.reviewStatus,
  errors: item.errors.map((e) => ({ error_type: e.type, error_priority: "HIGH", title: e.type, description: e.message }))
})

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:catalogId/items_batch",
    handle: (ctx, request) => {
      const catalog = catalogOf(ctx, request.params.catalogId, "POST")
      const body = (request.body() as Record<string, unknown> | undefined) ?? {}
      const itemType = body.item_type ?? request.query.get("item_type")
      if (itemType !== "PRODUCT_ITEM") throw GraphErrors.invalidParameter("(#100) Param item_type must be PRODUCT_ITEM.")
      const requests = itemRequests(body.requests)
      const upsert = body.allow_upsert ?? request.query.get("allow_upsert") ?? true
      const admitted = ctx.items.admit(catalog.id, ctx.config.catalogBatchCalls, ctx.config.catalogBatchWindowMs)
      if (!admitted.ok) throw GraphErrors.catalogBatchRateLimit(catalog.id, admitted.retryAfterMs)
      const handle = ctx.items.submit(catalog.id, requests, upsert !== false && upsert !== "false", ctx.config.itemsBatchProcessMs)
      return ok({ handles: [handle] })
    }
  },
  {
    method: "GET",
    path: "/:catalogId/check_batch_request_status",
    handle: (ctx, request) => {
      const catalog = catalogOf(ctx, request.params.catalogId, "GET")
      const handle = request.query.get("handle")
      if (handle === null || handle.length === 0) throw GraphErrors.invalidParameter("(#100) The parameter handle is required.")
      const found = ctx.items.status(catalog.id, handle)
      if (found === undefined) throw GraphErrors.invalidParameter(`(#100) Unknown batch handle ${handle}.`)
      const errors = found.issues.map((i) => ({ line: i.line, id: i.id, message: i.message, error_type: i.type, error_priority: "HIGH" }))
      return ok({
        data: [
          {
            handle,
            status: found.status,
            errors_total_count: errors.length,
            errors,
            warnings_total_count: 0,
            warnings: [],
            ids_of_invalid_requests: [...new Set(found.issues.map((i) => i.id))]
          }
        ]
      })
    }
  },
  {
    method: "GET",
    path: "/:catalogId/products",
    handle: (ctx, request) => {
      const catalog = catalogOf(ctx, request.params.catalogId, "GET")
      const limit = Math.min(5000, Math.max(1, Number(request.query.get("limit") ?? 25) || 25))
      const page = ctx.items.list(catalog.id, request.query.get("after") ?? undefined, limit)
      const last = page.items.at(-1)?.id
      return ok({
        data: page.items.map(itemView),
        paging: {
          cursors: { before: page.items[0]?.id ?? null, after: last ?? null },
          ...(page.more && last !== undefined ? { next: `${ctx.url}/v23.0/${catalog.id}/products?limit=${limit}&after=${last}` } : {})
        }
      })
    }
  },
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
    // a cursor-paged edge (GRAPH_API.md §1.2): `limit` (25 by default), `after`; `paging.next` while more follow
    handle: (ctx, request) => {
      const { businessId } = request.params
      if (!isBusiness(ctx, businessId)) throw GraphErrors.unknownObjectGet(businessId, "GET")
      const limit = Math.min(100, Math.max(1, Number(request.query.get("limit") ?? 25) || 25))
      const all = ctx.catalogs.ownedBy(businessId)
      const after = request.query.get("after")
      const start = after === null ? 0 : all.findIndex((c) => c.id === after) + 1
      const page = all.slice(start, start + limit)
      const last = page.at(-1)?.id
      return ok({
        data: page.map(view),
        paging: {
          cursors: { before: page[0]?.id ?? null, after: last ?? null },
          ...(start + limit < all.length && last !== undefined
            ? { next: `${ctx.url}/v23.0/${businessId}/owned_product_catalogs?limit=${limit}&after=${last}` }
            : {})
        }
      })
    }
  },
  {
    method: "POST",
    path: "/:wabaId/product_catalogs",
    handle: (ctx, request) => {
      const { wabaId } = request.params
      const catalog = catalogOf(ctx, param(request, "catalog_id", true)!, "POST")
      // only the business that owns the catalog, or one it was shared with, may connect it to
      // one of its WABAs; to any other the operator answers as for an object that does not exist
      if (!ctx.catalogs.mayConnect(catalog, wabaId)) throw GraphErrors.unknownObjectGet(catalog.id, "POST")
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
      ctx.items.forget(catalogId)
      return ok({ success: true })
    }
  }
]

/** `GET /{id}` of a catalog or of one of its items (`/{PRODUCT_ITEM_ID}`); the accounts' node route asks here first. */
export const catalogNode = (ctx: EmulatorContext, id: string): unknown => {
  const catalog = ctx.catalogs.get(id)
  if (catalog !== undefined) return { ...view(catalog), product_count: ctx.items.count(catalog.id) }
  const found = ctx.items.find(id)
  return found === undefined ? undefined : itemView(found.item)
}

/** The owner shares a catalog with another business (`business_id`), or stops (`shared: false`). */
export const controlEdges: ReadonlyArray<ControlEdge> = [
  {
    method: "POST",
    path: "/catalogs/share",
    handle: (ctx, request) => {
      const body = request.body()
      const id = requiredString(body, "catalog_id")
      const business = requiredString(body, "business_id")
      const catalog = ctx.catalogs.get(id)
      if (catalog === undefined) throw new ControlError(404, `no catalog ${id}`)
      const others = (catalog.sharedWith ?? []).filter((b) => b !== business)
      const sharedWith = body.shared === false ? others : [...others, business]
      // stopping the share disconnects the catalog from that business's WABAs
      const wabas = body.shared === false ? catalog.wabas.filter((w) => businessOf(w) !== business) : catalog.wabas
      ctx.catalogs.update(id, { sharedWith, wabas })
      return ok({ catalog_id: id, owner: catalog.businessId, shared_with: sharedWith })
    }
  }
]
