/** The shipment and return handlers: each route is its use case. */
import { HttpApiBuilder } from "@effect/platform"
import { Fulfilment } from "@switchboard/domain"
import { apiOf } from "../internal/Handlers.js"
import { FulfilmentGroup } from "./FulfilmentApi.js"

export const FulfilmentLive = HttpApiBuilder.group(apiOf(FulfilmentGroup), "fulfilment", (h) =>
  h
    .handle("listShipments", ({ path, urlParams }) => Fulfilment.listShipments(path.id, urlParams))
    .handle("createShipment", ({ path, payload }) => Fulfilment.createShipment(path.id, payload))
    .handle("getShipment", ({ path }) => Fulfilment.getShipment(path.id, path.shipmentId))
    .handle("updateShipment", ({ path, payload }) => Fulfilment.updateShipment(path.id, path.shipmentId, payload))
    .handle("listOrderReturns", ({ path, urlParams }) => Fulfilment.listOrderReturns(path.id, urlParams))
    .handle("createReturn", ({ path, payload }) => Fulfilment.createReturn(path.id, payload))
    .handle("listReturns", ({ urlParams }) => Fulfilment.listReturns(urlParams))
    .handle("getReturn", ({ path }) => Fulfilment.getReturn(path.id))
    .handle("updateReturn", ({ path, payload }) => Fulfilment.updateReturn(path.id, payload))
)
