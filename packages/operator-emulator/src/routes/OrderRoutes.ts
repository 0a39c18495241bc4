/**
 * The Commerce Platform order write edges (GRAPH_API.md §7.3): `POST /{ORDER_ID}/
 * acknowledge_order | refunds | cancellations | shipments | update_shipment`. WhatsApp carts
 * are not Commerce Platform orders (§7.0; a closed beta for Facebook and Instagram Shops, with
 * other ids), so these edges answer as the real operator answers for an id it does not know:
 * 400, code 100, subcode 33. The emulator keeps no pretend order book.
 */
import { GraphErrors } from "../GraphError.js"
import type { GraphEdge } from "../Router.js"

const unknownOrder: GraphEdge["handle"] = (_ctx, request) => {
  throw GraphErrors.unknownObject(request.params.orderId)
}

export const graphEdges: ReadonlyArray<GraphEdge> = ["acknowledge_order", "refunds", "cancellations", "shipments", "update_shipment"].map((edge) => ({
  method: "POST",
  path: `/:orderId/${edge}`,
  handle: unknownOrder
}))
