/**
 * Shipment and return routes (spec §4.4, §4.5): an order's shipments (list, create, read
 * one, update its tracking) and returns (the global list by `status` and `order_id`, an
 * order's list, create under an order, read, update with `update_event`). An order,
 * shipment or return id of another store, mode or order answers 404 `resource_not_found`
 * exactly as an unknown one.
 */
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Pagination, Return, Shipment } from "@switchboard/domain"
import { Schema } from "effect"
import * as ApiError from "../ApiError.js"
import { Authentication } from "../Authentication.js"
import * as Endpoints from "../internal/Endpoints.js"
import { Docs } from "../openapi/Document.js"
import { orderExample } from "./OrdersApi.js"

const time = "2026-05-05T08:00:00.000Z"
const item = orderExample.items[0]
const shipment = {
  id: "shm_01M85GK8TB3E8BH2R1WY18AD93",
  order_id: orderExample.id,
  items: [{ item_id: item.id, retailer_id: item.retailer_id, quantity: 1 }],
  tracking: { carrier: "UPS", tracking_number: "1Z999AA10123456784", tracking_url: "https://www.ups.com/track?tracknum=1Z999AA10123456784" },
  external_shipment_id: "ship-77",
  created_at: time,
  updated_at: time
}
const returned = {
  id: "ret_01M85GK8TB3E8BH2R1WY18AD94",
  order_id: orderExample.id,
  status: "REQUESTED",
  items: [{ item_id: item.id, retailer_id: item.retailer_id, quantity: 1, reason: "too small" }],
  notes: null,
  merchant_return_id: null,
  refund_id: null,
  created_at: time,
  updated_at: time
}

const ShipmentPath = Schema.Struct({ id: Schema.String, shipmentId: Schema.String })
const ListReturns = Pagination.ListParams(Return.ReturnId.schema, {
  status: Schema.optional(Return.Status),
  order_id: Schema.optional(Schema.String)
})

export class FulfilmentGroup extends HttpApiGroup.make("fulfilment")
  .add(Endpoints.listOf("listShipments", "/orders/:id/shipments", Shipment.ShipmentId.schema, {}, Shipment.ShipmentResource, "ShipmentPage"))
  .add(
    Endpoints.createIn("createShipment", "/orders/:id/shipments", Shipment.CreateShipment, Shipment.ShipmentResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState,
      ...ApiError.operatorErrors
    ])
  )
  .add(Endpoints.getOne("getShipment", "/orders/:id/shipments/:shipmentId", Shipment.ShipmentResource, ShipmentPath))
  .add(
    Endpoints.update(
      "updateShipment",
      "/orders/:id/shipments/:shipmentId",
      Shipment.UpdateShipment,
      Shipment.ShipmentResource,
      [ApiError.ResourceNotFound, ...ApiError.operatorErrors],
      ShipmentPath
    )
  )
  .add(Endpoints.listOf("listOrderReturns", "/orders/:id/returns", Return.ReturnId.schema, {}, Return.ReturnResource, "ReturnPage"))
  .add(
    Endpoints.createIn("createReturn", "/orders/:id/returns", Return.CreateReturn, Return.ReturnResource, [
      ApiError.ResourceNotFound,
      ApiError.InvalidState
    ])
  )
  .add(HttpApiEndpoint.get("listReturns", "/returns").setUrlParams(ListReturns).addSuccess(Pagination.PageOf(Return.ReturnResource, "ReturnList")))
  .add(Endpoints.getOne("getReturn", "/returns/:id", Return.ReturnResource))
  .add(
    Endpoints.update("updateReturn", "/returns/:id", Return.UpdateReturn, Return.ReturnResource, [ApiError.ResourceNotFound, ApiError.InvalidState])
  )
  .middleware(Authentication)
  .prefix("/chat")
  .annotate(Docs, {
    tags: { fulfilment: "Shipments and returns of orders" },
    ids: { returns: returned.id },
    operations: {
      "fulfilment.listShipments": { summary: "List an order's shipments", response: { data: [shipment], next_cursor: null } },
      "fulfilment.createShipment": {
        summary: "Ship items of an order",
        description:
          "Each item at most its unshipped quantity (ordered − cancelled − shipped). The order is `completed` once nothing is left unshipped.",
        request: {
          idempotency_key: "ship-1",
          items: [{ retailer_id: item.retailer_id, quantity: 1 }],
          tracking: { carrier: "UPS", tracking_number: "1Z999AA10123456784", tracking_url: shipment.tracking.tracking_url },
          external_shipment_id: "ship-77"
        },
        response: shipment
      },
      "fulfilment.getShipment": { summary: "Get a shipment", response: shipment },
      "fulfilment.updateShipment": {
        summary: "Update a shipment's tracking",
        request: { tracking: { carrier: "FEDEX", tracking_number: "7712" } },
        response: { ...shipment, tracking: { carrier: "FEDEX", tracking_number: "7712", tracking_url: null } }
      },
      "fulfilment.listOrderReturns": { summary: "List an order's returns", response: { data: [returned], next_cursor: null } },
      "fulfilment.createReturn": {
        summary: "Open a return",
        description: "Shipped quantities not yet returned, each item with a reason.",
        request: { items: [{ retailer_id: item.retailer_id, quantity: 1, reason: "too small" }] },
        response: returned
      },
      "fulfilment.listReturns": { summary: "List returns", response: { data: [returned], next_cursor: null } },
      "fulfilment.getReturn": { summary: "Get a return", response: returned },
      "fulfilment.updateReturn": {
        summary: "Accept or close a return",
        description:
          "`ACCEPT_RETURN`: REQUESTED → APPROVED; `CLOSE_RETURN`: REQUESTED → DISAPPROVED, APPROVED → MERCHANT_MARKED_COMPLETED. A refund with `return_id` makes it REFUNDED.",
        request: { update_event: "ACCEPT_RETURN", notes: "label sent" },
        response: { ...returned, status: "APPROVED", notes: "label sent" }
      }
    }
  }) {}
