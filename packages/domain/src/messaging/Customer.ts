/**
 * A customer: someone who wrote to the store's number, per store and mode. The time of
 * their last message opens the 24-hour customer service window: inside it any message may
 * be sent; outside it only approved templates.
 */
import { Schema } from "effect"
import type { Mode } from "../shared/Tenant.js"

export const WINDOW_MS = 24 * 60 * 60 * 1000

export interface Customer {
  readonly id: string
  readonly storeId: string
  readonly mode: Mode
  /** E.164. */
  readonly phone: string
  readonly waId: string
  readonly profileName: string | null
  readonly lastInboundAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const windowOpen = (customer: Pick<Customer, "lastInboundAt"> | undefined, now: Date): boolean =>
  customer?.lastInboundAt != null && now.getTime() - customer.lastInboundAt.getTime() < WINDOW_MS

export const CustomerResource = Schema.Struct({
  id: Schema.String,
  phone: Schema.String,
  wa_id: Schema.String,
  profile_name: Schema.NullOr(Schema.String),
  last_message_at: Schema.NullOr(Schema.String),
  window_open: Schema.Boolean,
  window_expires_at: Schema.NullOr(Schema.String),
  opted_out: Schema.Boolean,
  created_at: Schema.String
}).annotations({ identifier: "Customer" })
export type CustomerResource = typeof CustomerResource.Type

export const toResource = (c: Customer, optedOut: boolean, now: Date): CustomerResource => ({
  id: c.id,
  phone: c.phone,
  wa_id: c.waId,
  profile_name: c.profileName,
  last_message_at: c.lastInboundAt?.toISOString() ?? null,
  window_open: windowOpen(c, now),
  window_expires_at: c.lastInboundAt ? new Date(c.lastInboundAt.getTime() + WINDOW_MS).toISOString() : null,
  opted_out: optedOut,
  created_at: c.createdAt.toISOString()
})
