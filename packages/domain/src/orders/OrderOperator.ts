/**
 * The operator's commerce order API (GRAPH_API.md §7.3, Appendix B.7): acknowledgement,
 * refunds, cancellations, shipments and their tracking, each with our idempotency key.
 *
 * WhatsApp carts are not Commerce Platform orders (§7.0; a closed beta for Facebook and
 * Instagram Shops): the order use cases do not call it. The customer hears of an order
 * through `order_status` messages instead (`OrderUpdates.ts`). The port stays for Shops
 * accounts (the emulator keeps its order book behind an explicit account flag).
 *
 * Errors: a write the operator refuses is `OperatorRejected` with its code (a refund above
 * what it holds refundable: code 100); no usable answer is `OperatorUnavailable`. Every
 * write carries its idempotency key, so the adapter retries it safely.
 */
import { Context, type Effect } from "effect"
import type { OperatorRejected, OperatorUnavailable } from "../shared/Errors.js"
import type { OperatorAccount } from "../stores/Store.js"

/** An amount in minor units of `currency` (the adapter writes the operator's decimal text). */
export interface OperatorMoney {
  readonly amount: number
  readonly currency: string
}

export interface ItemQuantity {
  readonly retailerId: string
  readonly quantity: number
}

type Write = Effect.Effect<void, OperatorRejected | OperatorUnavailable>

export class OrderOperator extends Context.Tag("@switchboard/domain/OrderOperator")<
  OrderOperator,
  {
    /** Whether the account has the commerce order API (writes are mirrored only then). */
    readonly hasOrderApi: (account: OperatorAccount) => boolean
    /** `POST /{ORDER_ID}/acknowledge_order`. */
    readonly acknowledge: (
      account: OperatorAccount,
      orderRef: string,
      input: { readonly idempotencyKey: string; readonly merchantOrderReference: string }
    ) => Write
    /** `POST /{ORDER_ID}/refunds`: item amounts, shipping and the rest as an adjustment. */
    readonly refund: (
      account: OperatorAccount,
      orderRef: string,
      input: {
        readonly idempotencyKey: string
        readonly reasonCode: string
        readonly items: ReadonlyArray<{ readonly retailerId: string; readonly amount: OperatorMoney }>
        readonly shipping: OperatorMoney | null
        readonly adjustment: OperatorMoney | null
        readonly returnId: string | null
      }
    ) => Write
    /** `POST /{ORDER_ID}/cancellations`: the items cancelled (the operator refunds their paid value as we do). */
    readonly cancel: (
      account: OperatorAccount,
      orderRef: string,
      input: {
        readonly idempotencyKey: string
        readonly reasonCode: string
        readonly restockItems: boolean
        readonly items: ReadonlyArray<ItemQuantity>
      }
    ) => Write
    /** `POST /{ORDER_ID}/shipments`. */
    readonly ship: (
      account: OperatorAccount,
      orderRef: string,
      input: {
        readonly idempotencyKey: string
        readonly items: ReadonlyArray<ItemQuantity>
        readonly carrier: string
        readonly trackingNumber: string
        readonly externalShipmentId: string
      }
    ) => Write
    /** `POST /{ORDER_ID}/update_shipment`, by our shipment id as `external_shipment_id`. */
    readonly updateShipment: (
      account: OperatorAccount,
      orderRef: string,
      input: { readonly idempotencyKey: string; readonly externalShipmentId: string; readonly carrier: string; readonly trackingNumber: string }
    ) => Write
  }
>() {}
