/**
 * Returns of an order (spec §4.4): shipped quantities the customer sends back, each item
 * with a reason. The states are the operator's (GRAPH_API.md §7.4):
 *
 *   REQUESTED ──ACCEPT_RETURN──► APPROVED ──refund (with return_id)──► REFUNDED
 *   REQUESTED ──CLOSE_RETURN──► DISAPPROVED
 *   APPROVED ──CLOSE_RETURN──► MERCHANT_MARKED_COMPLETED
 *   REQUESTED ──refund (with return_id)──► REFUNDED
 *
 * `REFUNDED`, `DISAPPROVED` and `MERCHANT_MARKED_COMPLETED` are final. Anything else is
 * refused with `InvalidState` naming the current status (409 `invalid_state`).
 */
import { Either, Schema } from "effect"
import { InvalidState } from "../shared/Errors.js"
import * as Id from "../shared/Id.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { IdempotencyKey, ItemRef, OrderId, Quantity } from "./Order.js"

/** `ret_…` */
export const ReturnId = Id.kind("ret", "ReturnId")
export type ReturnId = Id.Of<typeof ReturnId>

export const Status = Schema.Literal("REQUESTED", "APPROVED", "DISAPPROVED", "REFUNDED", "MERCHANT_MARKED_COMPLETED")
export type Status = typeof Status.Type

export const UpdateEvent = Schema.Literal("ACCEPT_RETURN", "CLOSE_RETURN")
export type Operation = typeof UpdateEvent.Type | "refund"

const refuse = (status: Status, operation: string) => Either.left(new InvalidState({ resource: "return", status, operation }))

/** The status after `operation`, or `InvalidState`: the one place that knows the return's transitions. */
export const transition = (status: Status, operation: Operation): Either.Either<Status, InvalidState> => {
  switch (operation) {
    case "ACCEPT_RETURN":
      return status === "REQUESTED" ? Either.right("APPROVED") : refuse(status, "accept")
    case "CLOSE_RETURN":
      return status === "REQUESTED"
        ? Either.right("DISAPPROVED")
        : status === "APPROVED"
          ? Either.right("MERCHANT_MARKED_COMPLETED")
          : refuse(status, "close")
    case "refund":
      return status === "REQUESTED" || status === "APPROVED" ? Either.right("REFUNDED") : refuse(status, operation)
  }
}

export const ReturnItem = Schema.Struct({ itemId: Schema.String, retailerId: Schema.String, quantity: Schema.Int, reason: Schema.String })

export const Return = Schema.Struct({
  id: ReturnId.schema,
  orderId: OrderId.schema,
  status: Status,
  items: Schema.Array(ReturnItem),
  notes: Schema.NullOr(Schema.String),
  merchantReturnId: Schema.NullOr(Schema.String),
  refundId: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.NullOr(Schema.String),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Return extends Schema.Schema.Type<typeof Return> {}

export const ReturnResource = Schema.Struct({
  id: Return.fields.id,
  orderId: Wire.key(Return.fields.orderId, "order_id"),
  status: Return.fields.status,
  items: Schema.Array(
    Schema.Struct({
      itemId: Wire.key(Schema.String, "item_id"),
      retailerId: Wire.key(Schema.String, "retailer_id"),
      quantity: Schema.Int,
      reason: Schema.String
    })
  ),
  notes: Return.fields.notes,
  merchantReturnId: Wire.key(Return.fields.merchantReturnId, "merchant_return_id"),
  refundId: Wire.key(Return.fields.refundId, "refund_id"),
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Return" })

const strict = { parseOptions: { onExcessProperty: "error" } } as const
const Reason = Schema.String.pipe(Schema.filter((s) => (s.trim().length > 0 && s.length <= 500) || "must be 1 to 500 characters"))

/** `POST /chat/orders/{id}/returns`. */
export const CreateReturn = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  items: Schema.Array(Schema.Struct({ ...ItemRef, quantity: Quantity, reason: Reason }).annotations(strict)).pipe(
    Schema.minItems(1),
    Schema.maxItems(100)
  ),
  merchant_return_id: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
  notes: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
}).annotations({ ...strict, identifier: "CreateReturn" })
export type CreateReturn = typeof CreateReturn.Type

/** `PATCH /chat/returns/{id}`. */
export const UpdateReturn = Schema.Struct({
  idempotency_key: Schema.optional(IdempotencyKey),
  update_event: Schema.optional(UpdateEvent),
  notes: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  merchant_return_id: Schema.optional(Schema.String.pipe(Schema.maxLength(255)))
}).annotations({ ...strict, identifier: "UpdateReturn" })
export type UpdateReturn = typeof UpdateReturn.Type
