/**
 * A customer: someone who wrote to the store's number, per store and mode. The time of
 * their last message opens the 24-hour customer service window: inside it any message may
 * be sent; outside it only approved templates.
 */
import { Schema } from "effect"
import * as Wire from "../shared/Wire.js"
import * as Id from "../shared/Id.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"

export const CustomerId = Id.kind("cus", "CustomerId")
export type CustomerId = Id.Of<typeof CustomerId>

export const WINDOW_MS: Time.Millis = 24 * Time.HOUR

export const Customer = Schema.Struct({
  id: CustomerId.schema,
  ...Owned,
  /** E.164. */
  phone: Schema.String,
  waId: Schema.String,
  profileName: Schema.NullOr(Schema.String),
  /** When they last wrote (the operator's time of their message); opens the window. */
  lastInboundAt: Schema.NullOr(Schema.Number),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
}).annotations({ identifier: "CustomerEntity" })
export interface Customer extends Schema.Schema.Type<typeof Customer> {}

/** Whether a free-form message may reach the customer at `now`: they wrote less than 24 hours ago. */
export const windowOpen = (customer: Pick<Customer, "lastInboundAt"> | undefined, now: Time.Millis): boolean =>
  customer?.lastInboundAt != null && now - customer.lastInboundAt < WINDOW_MS

/** A customer as a route sees it at one moment: with its window and whether it opted out. */
export const CustomerView = Schema.Struct({
  ...Customer.fields,
  windowOpen: Schema.Boolean,
  windowExpiresAt: Schema.NullOr(Schema.Number),
  optedOut: Schema.Boolean
})
export interface CustomerView extends Schema.Schema.Type<typeof CustomerView> {}

export const view = (customer: Customer, optedOut: boolean, now: Time.Millis): CustomerView => ({
  ...customer,
  windowOpen: windowOpen(customer, now),
  windowExpiresAt: customer.lastInboundAt === null ? null : customer.lastInboundAt + WINDOW_MS,
  optedOut
})

const renamed = Wire.key

/** The customer as the API shows it (a view: the window and the opt-out at the time of the request). */
export const CustomerResource = Schema.Struct({
  id: CustomerView.fields.id,
  phone: CustomerView.fields.phone,
  waId: renamed(CustomerView.fields.waId, "wa_id"),
  profileName: renamed(CustomerView.fields.profileName, "profile_name"),
  lastInboundAt: renamed(Schema.NullOr(Time.IsoDateTime), "last_message_at"),
  windowOpen: renamed(CustomerView.fields.windowOpen, "window_open"),
  windowExpiresAt: renamed(Schema.NullOr(Time.IsoDateTime), "window_expires_at"),
  optedOut: renamed(CustomerView.fields.optedOut, "opted_out"),
  createdAt: renamed(Time.IsoDateTime, "created_at")
}).annotations({ identifier: "Customer" })
