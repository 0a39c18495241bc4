/**
 * Flows (GRAPH_API.md §5.1): `POST|GET /{waba_id}/flows` (with `clone_flow_id`, `flow_json`,
 * `endpoint_uri`), `POST /{flow_id}` (metadata and endpoint), `POST|GET /{flow_id}/assets`
 * (the Flow JSON, uploaded as Meta documents: multipart `file`, `name`, `asset_type=FLOW_JSON`;
 * the answer carries its `validation_errors`), `POST /{flow_id}/publish`, `POST /{flow_id}/deprecate`, `DELETE /{flow_id}`,
 * `POST|GET /{phone_number_id}/whatsapp_business_encryption` (a flow's `GET /{id}`, with its
 * preview link, is answered by `AccountRoutes`), with the operator's refusals 139001–139004:
 * only a DRAFT takes new JSON or a new endpoint or is deleted; publishing needs a valid Flow
 * JSON, and an endpoint when the JSON declares `data_api_version`. And the
 * control API's `POST /flows` (a flow in any status, at once), `POST /flows/status`
 * (health monitoring: THROTTLED, BLOCKED, back to PUBLISHED; each status change is sent as
 * the `flows` webhook FLOW_STATUS_CHANGE by `FlowStore`) and `POST /flows/alert` (a health
 * alert webhook, GRAPH_API.md §2.9, A.10: `event`, `alert_state` and the figures given). The flows and the check of a
 * flow message live in `Flows.ts`.
 */
import { type FlowStatus, flowStatuses, flowView, needsEndpoint, validationErrorsOf } from "../Flows.js"
import { GraphErrors } from "../GraphError.js"
import { ControlError, UploadedFile, optionalString, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"
import { webhookEnvelope } from "../Webhooks.js"
import * as CatalogRoutes from "./CatalogRoutes.js"

/** `POST|DELETE /{id}` of anything but a flow goes on to the catalog edges (the only other objects with these edges). */
const otherwise = (method: "POST" | "DELETE", ctx: EmulatorContext, request: GraphRequest) => {
  const edge = CatalogRoutes.graphEdges.find((e) => e.method === method && e.path === "/:catalogId")
  if (edge === undefined) throw GraphErrors.unknownObjectGet(request.params.id, method)
  return edge.handle(ctx, { ...request, params: { catalogId: request.params.id } })
}

/** A list cursor, opaque as the operator's are. */
const cursorOf = (flowId: string): string => Buffer.from(flowId).toString("base64url")

const bodyOf = (request: GraphRequest): Record<string, unknown> => {
  const body = request.body()
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
}

/** The WABA of a flows edge (created on first use); a phone number id has no flows. */
const wabaOf = (ctx: EmulatorContext, request: GraphRequest): string => {
  const wabaId = request.params.wabaId
  if (ctx.accounts.phoneNumber(wabaId) !== undefined) throw GraphErrors.nonexistingField("flows", wabaId)
  ctx.accounts.ensureWaba(wabaId)
  return wabaId
}

const flowOf = (ctx: EmulatorContext, id: string, method: string) => {
  const flow = ctx.flows.get(id)
  if (flow === undefined) throw GraphErrors.unknownObjectGet(id, method)
  return flow
}

export const graphEdges: ReadonlyArray<GraphEdge> = [
  {
    method: "POST",
    path: "/:id",
    handle: (ctx, request) => {
      const flow = ctx.flows.get(request.params.id)
      if (flow === undefined) return otherwise("POST", ctx, request)
      const body = bodyOf(request)
      const endpoint = body.endpoint_uri
      if (endpoint !== undefined && flow.status !== "DRAFT") {
        throw GraphErrors.flowUpdateFailed(`Flow ${flow.id} is ${flow.status}: the endpoint of a published flow cannot change.`)
      }
      ctx.flows.change(flow, {
        ...(typeof body.name === "string" ? { name: body.name } : {}),
        ...(body.categories !== undefined ? { categories: body.categories } : {}),
        ...(endpoint !== undefined ? { endpointUri: typeof endpoint === "string" && endpoint.length > 0 ? endpoint : undefined } : {})
      })
      return ok({ success: true })
    }
  },
  {
    method: "DELETE",
    path: "/:id",
    handle: (ctx, request) => {
      const flow = ctx.flows.get(request.params.id)
      if (flow === undefined) return otherwise("DELETE", ctx, request)
      if (flow.status !== "DRAFT") throw GraphErrors.flowDeleteFailed(`Flow ${flow.id} is ${flow.status}: only a DRAFT can be deleted.`)
      ctx.flows.delete(flow)
      return ok({ success: true })
    }
  },
  {
    method: "POST",
    path: "/:flowId/assets",
    handle: (ctx, request) => {
      const flow = flowOf(ctx, request.params.flowId, "POST")
      // the documented upload: multipart/form-data with `file` (the JSON file), `name`, `asset_type`
      const body = bodyOf(request)
      if (body.asset_type === undefined) throw GraphErrors.invalidParameter("The parameter asset_type is required.")
      if (body.asset_type !== "FLOW_JSON") throw GraphErrors.invalidParameter("Param asset_type must be FLOW_JSON.")
      if (typeof body.name !== "string" || body.name.length === 0) throw GraphErrors.invalidParameter("The parameter name is required.")
      if (!(body.file instanceof UploadedFile)) {
        throw GraphErrors.invalidParameter("The parameter file is required: upload the Flow JSON as a file (multipart/form-data).")
      }
      const file = body.file.text
      if (flow.status !== "DRAFT")
        throw GraphErrors.flowUpdateFailed(`Flow ${flow.id} is ${flow.status}: the Flow JSON of a published flow cannot change.`)
      ctx.flows.change(flow, { json: file })
      return ok({ success: true, validation_errors: validationErrorsOf(file) })
    }
  },
  {
    method: "GET",
    path: "/:flowId/assets",
    handle: (ctx, request) => {
      const flow = flowOf(ctx, request.params.flowId, "GET")
      if (flow.json === undefined) return ok({ data: [] })
      return ok({
        data: [
          { name: "flow.json", asset_type: "FLOW_JSON", download_url: `data:application/json;base64,${Buffer.from(flow.json).toString("base64")}` }
        ]
      })
    }
  },
  {
    method: "POST",
    path: "/:phoneNumberId/whatsapp_business_encryption",
    handle: (ctx, request) => {
      const phone = request.params.phoneNumberId
      if (ctx.accounts.phoneNumber(phone) === undefined) throw GraphErrors.unknownObjectGet(phone, "POST")
      const key = bodyOf(request).business_public_key ?? request.query.get("business_public_key")
      if (typeof key !== "string" || !key.includes("BEGIN PUBLIC KEY")) {
        throw GraphErrors.invalidParameter("business_public_key must be an RSA public key in PEM format.")
      }
      ctx.flows.setKey(phone, key)
      return ok({ success: true })
    }
  },
  {
    method: "GET",
    path: "/:phoneNumberId/whatsapp_business_encryption",
    handle: (ctx, request) => {
      const key = ctx.flows.key(request.params.phoneNumberId)
      return ok({ data: key === undefined ? [] : [{ business_public_key: key, business_public_key_signature_status: "VALID" }] })
    }
  },
  {
    method: "POST",
    path: "/:wabaId/flows",
    handle: (ctx, request) => {
      const flow = ctx.flows.create(wabaOf(ctx, request), request.body())
      // with a flow_json, the operator answers its validation too (GRAPH_API.md §5.1)
      return ok(
        typeof bodyOf(request).flow_json === "string"
          ? { id: flow.id, success: true, validation_errors: validationErrorsOf(flow.json) }
          : { id: flow.id }
      )
    }
  },
  {
    method: "GET",
    path: "/:wabaId/flows",
    // paged as the operator's lists are: `limit` (25 by default), `after` a cursor, `paging.next` while more follow
    handle: (ctx, request) => {
      const wabaId = wabaOf(ctx, request)
      const all = ctx.flows.ofWaba(wabaId)
      const limit = Math.max(1, Math.min(100, Number(request.query.get("limit") ?? "25") || 25))
      const after = request.query.get("after")
      const start = after === null ? 0 : Math.max(0, all.findIndex((f) => cursorOf(f.id) === after) + 1)
      const page = all.slice(start, start + limit)
      if (page.length === 0) return ok({ data: [] })
      const cursors = { before: cursorOf(page[0]!.id), after: cursorOf(page[page.length - 1]!.id) }
      const more = start + limit < all.length
      const next = new URLSearchParams(request.query)
      next.set("after", cursors.after)
      next.set("limit", String(limit))
      return ok({
        data: page.map(flowView),
        paging: { cursors, ...(more ? { next: `${ctx.url}/${request.version}/${wabaId}/flows?${next.toString()}` } : {}) }
      })
    }
  },
  {
    method: "POST",
    path: "/:flowId/publish",
    handle: (ctx, { params: { flowId }, method }) => {
      const flow = flowOf(ctx, flowId, method)
      if (flow.status !== "DRAFT") throw GraphErrors.flowPublishFailed(`Flow ${flow.id} is ${flow.status}: only a DRAFT can be published.`)
      if (flow.json === undefined) throw GraphErrors.flowPublishFailed(`Flow ${flow.id} has no Flow JSON.`)
      if (validationErrorsOf(flow.json).length > 0) throw GraphErrors.flowPublishFailed(`Flow ${flow.id} has validation errors.`)
      if (needsEndpoint(flow.json) && flow.endpointUri === undefined) {
        throw GraphErrors.flowPublishFailed(`Flow ${flow.id} declares data_api_version but has no endpoint_uri.`)
      }
      ctx.flows.setStatus(flow, "PUBLISHED")
      return ok({ success: true })
    }
  },
  {
    method: "POST",
    path: "/:flowId/deprecate",
    handle: (ctx, { params: { flowId }, method }) => {
      const flow = flowOf(ctx, flowId, method)
      if (flow.status === "DRAFT" || flow.status === "DEPRECATED") {
        throw GraphErrors.flowDeprecateFailed(`Flow ${flow.id} is ${flow.status}: only a published flow can be deprecated.`)
      }
      ctx.flows.setStatus(flow, "DEPRECATED")
      return ok({ success: true })
    }
  }
]

const statusOf = (body: Record<string, unknown>, fallback: FlowStatus): FlowStatus => {
  const raw = body.status === undefined ? fallback : requiredString(body, "status").toUpperCase()
  if (!flowStatuses.includes(raw as FlowStatus)) throw new ControlError(400, `status must be one of ${flowStatuses.join(", ")}`)
  return raw as FlowStatus
}

export const controlEdges: ReadonlyArray<ControlEdge> = [
  {
    method: "POST",
    path: "/flows",
    handle: (ctx, request) => {
      const body = request.body()
      const wabaId = requiredString(body, "waba_id")
      ctx.accounts.ensureWaba(wabaId)
      const status = statusOf(body, "PUBLISHED")
      const flow = ctx.flows.create(wabaId, { name: requiredString(body, "name"), categories: body.categories ?? ["OTHER"] })
      if (status !== flow.status) ctx.flows.setStatus(flow, status)
      return ok(flowView(flow))
    }
  },
  {
    method: "POST",
    path: "/flows/status",
    handle: (ctx, request) => {
      const body = request.body()
      const id = requiredString(body, "flow_id")
      const flow = ctx.flows.get(id)
      if (flow === undefined) throw new ControlError(404, `no flow ${id}`)
      ctx.flows.setStatus(flow, statusOf(body, flow.status))
      return ok(flowView(flow))
    }
  },
  {
    method: "POST",
    path: "/flows/alert",
    handle: (ctx, request) => {
      const body = request.body()
      const id = requiredString(body, "flow_id")
      const flow = ctx.flows.get(id)
      if (flow === undefined) throw new ControlError(404, `no flow ${id}`)
      const event = (optionalString(body, "event") ?? "ENDPOINT_ERROR_RATE").toUpperCase()
      if (!ALERTS.includes(event)) throw new ControlError(400, `event must be one of ${ALERTS.join(", ")}`)
      const alertState = (optionalString(body, "alert_state") ?? "ACTIVATED").toUpperCase()
      if (alertState !== "ACTIVATED" && alertState !== "DEACTIVATED") throw new ControlError(400, "alert_state must be ACTIVATED or DEACTIVATED")
      const value = {
        event,
        message: `Flow ${flow.name}: ${event} alert ${alertState.toLowerCase()}`,
        flow_id: flow.id,
        alert_state: alertState,
        ...figures(event, body)
      }
      ctx.webhooks.deliver(webhookEnvelope(flow.wabaId, "flows", value, ctx.now()), `flow ${flow.id} ${event} ${alertState}`)
      return ok(value)
    }
  }
]

const ALERTS = ["ENDPOINT_ERROR_RATE", "CLIENT_ERROR_RATE", "ENDPOINT_LATENCY", "ENDPOINT_AVAILABILITY", "FLOW_VERSION_EXPIRY_WARNING"]

/** The alert's figures: those given in the body, else defaults at the thresholds one catalogue reports (§2.9). */
const figures = (event: string, body: Record<string, unknown>): Record<string, unknown> => {
  const num = (key: string, fallback: number) => (typeof body[key] === "number" ? body[key] : fallback)
  switch (event) {
    case "ENDPOINT_ERROR_RATE":
    case "CLIENT_ERROR_RATE": {
      const rate = num("error_rate", 10)
      return {
        error_rate: rate,
        threshold: num("threshold", 10),
        errors: Array.isArray(body.errors) ? body.errors : [{ error_type: "TIMEOUT_ERROR", error_rate: rate, error_count: num("error_count", 1) }]
      }
    }
    case "ENDPOINT_LATENCY":
      return {
        p50_latency: num("p50_latency", 800),
        p90_latency: num("p90_latency", 1500),
        requests_count: num("requests_count", 100),
        threshold: num("threshold", 1000)
      }
    case "ENDPOINT_AVAILABILITY":
      return { availability: num("availability", 85), threshold: num("threshold", 90) }
    default:
      return {}
  }
}
