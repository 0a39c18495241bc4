/** The handlers of the flow routes: each calls its use case, which answers the entity that the route's schema encodes. */
import { HttpApiBuilder } from "@effect/platform"
import { FlowResponses, Flows, FlowStats } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { FlowsGroup } from "./Api.js"

export const FlowsLive = HttpApiBuilder.group(apiOf(FlowsGroup), "flows", (h) =>
  h
    .handle("list", ({ urlParams }) => Flows.list(urlParams))
    .handle("create", ({ payload }) => Flows.create(payload))
    .handle("get", ({ path }) => Flows.get(path.id))
    .handle("update", ({ path, payload }) => Flows.update(path.id, payload))
    .handle("remove", ({ path }) => Flows.remove(path.id))
    .handle("putJson", ({ path, payload }) => Flows.putJson(path.id, payload))
    .handle("getJson", ({ path }) => Flows.getJson(path.id))
    .handle("publish", ({ path, urlParams }) => Flows.publish(path.id, { deprecate_previous: urlParams.deprecate_previous ?? true }))
    .handle("deprecate", ({ path }) => Flows.deprecate(path.id))
    .handle("newVersion", ({ path }) => Flows.newVersion(path.id))
    .handle("versions", ({ path }) => Flows.versions(path.id))
    .handle("responses", ({ path, urlParams }) => FlowResponses.listForFlow(path.id, urlParams))
    .handle("stats", ({ path, urlParams }) => FlowStats.stats(path.id, urlParams))
    .handle("allResponses", ({ urlParams }) => FlowResponses.listAll(urlParams))
    .handle("sandboxResponse", ({ payload }) => FlowResponses.sandboxResponse(payload))
)
