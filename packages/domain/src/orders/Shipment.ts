/**
 * Shipments of an order (spec §4.5): which items and quantities went out, with tracking. A
 * shipment takes at most what is unshipped (ordered − cancelled − already shipped) of each
 * item; `PATCH` changes only its tracking (a change is the caller event `shipment.updated`).
 * Only an acknowledged (`in_progress`) order ships.
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { IdempotencyKey, ItemRef, OrderId, Quantity } from "./Order.js"
import { ItemQuantity, ItemQuantityResource } from "./OrderRecord.js"

/** `shm_…` (`shp_` is a shipping profile's). */
export const ShipmentId = Id.kind("shm", "ShipmentId")
export type ShipmentId = Id.Of<typeof ShipmentId>

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const Text = (max: number) => Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= max) || `must be 1 to ${max} characters`))
const Url = Schema.String.pipe(Schema.filter((s) => (/^https?:\/\/\S+$/.test(s) && s.length <= 2000) || "must be an http(s) URL"))

export const Tracking = Schema.Struct({
  carrier: Schema.String,
  trackingNumber: Schema.String,
  trackingUrl: Schema.NullOr(Schema.String)
})
export interface Tracking extends Schema.Schema.Type<typeof Tracking> {}

export const Shipment = Schema.Struct({
  id: ShipmentId.schema,
  orderId: OrderId.schema,
  items: Schema.Array(ItemQuantity),
  tracking: Tracking,
  externalShipmentId: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Shipment extends Schema.Schema.Type<typeof Shipment> {}

export const ShipmentResource = Schema.Struct({
  id: Shipment.fields.id,
  orderId: Wire.key(Shipment.fields.orderId, "order_id"),
  items: Schema.Array(ItemQuantityResource),
  tracking: Schema.Struct({
    carrier: Schema.String,
    trackingNumber: Wire.key(Schema.String, "tracking_number"),
    trackingUrl: Wire.key(Schema.NullOr(Schema.String), "tracking_url")
  }),
  externalShipmentId: Wire.key(Shipment.fields.externalShipmentId, "external_shipment_id"),
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Shipment" })

/** A shipment as the API shows it (the data of `shipment.updated`). */
export const toJson = Schema.encodeSync(ShipmentResource)

/** Whether two trackings differ (`shipment.updated` is sent for a change only). */
export const trackingChanged = (a: Tracking, b: Tracking): boolean =>
  a.carrier !== b.carrier || a.trackingNumber !== b.trackingNumber || a.trackingUrl !== b.trackingUrl

export const TrackingInput = Schema.Struct({
  carrier: Text(100),
  tracking_number: Text(200),
  tracking_url: Schema.optional(Url)
}).annotations({ ...strict, identifier: "TrackingInfo" })

/** `POST /chat/orders/{id}/shipments`. */
export const CreateShipment = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  items: Schema.Array(Schema.Struct({ ...ItemRef, quantity: Quantity }).annotations(strict)).pipe(Schema.minItems(1), Schema.maxItems(100)),
  tracking: TrackingInput,
  external_shipment_id: Schema.optional(Text(255))
}).annotations({ ...strict, identifier: "CreateShipment" })
export type CreateShipment = typeof CreateShipment.Type

/** `PATCH /chat/orders/{id}/shipments/{shipmentId}`: the tracking. */
export const UpdateShipment = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  tracking: TrackingInput
}).annotations({ ...strict, identifier: "UpdateShipment" })
export type UpdateShipment = typeof UpdateShipment.Type
