/**
 * Flows (GRAPH_API.md §5.1): `POST|GET /{waba_id}/flows`, `POST /{flow_id}/publish`,
 * `POST /{flow_id}/deprecate` (a flow's `GET /{id}` is answered by `AccountRoutes`), and the
 * control API's `POST /flows` (a flow in any status, at once) and `POST /flows/status`
 * (health monitoring: THROTTLED, BLOCKED, back to PUBLISHED). The flows and the check of a
 * flow message live in `Flows.ts`.
 */
import { type FlowStatus, flowStatuses, flowView } from "../Flows.js"
import { GraphErrors } from "../GraphError.js"
import { ControlError, requiredString } from "../Requests.js"
import { type ControlEdge, type EmulatorContext, type GraphEdge, type GraphRequest, ok } from "../Router.js"

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
    path: "/:wabaId/flows",
    handle: (ctx, request) => ok({ id: ctx.flows.create(wabaOf(ctx, request), request.body()).id })
  },
  {
    method: "GET",
    path: "/:wabaId/flows",
    handle: (ctx, request) => ok({ data: ctx.flows.ofWaba(wabaOf(ctx, request)).map(flowView) })
  },
  {
    method: "POST",
    path: "/:flowId/publish",
    handle: (ctx, { params: { flowId }, method }) => {
      const flow = flowOf(ctx, flowId, method)
      if (flow.status !== "DRAFT") throw GraphErrors.flowPublishFailed(`Flow ${flow.id} is ${flow.status}: only a DRAFT can be published.`)
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
  }
]
