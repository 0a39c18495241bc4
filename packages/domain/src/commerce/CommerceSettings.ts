/**
 * A store's commerce settings, one record per tenant (spec §4.7): whether customers see the
 * cart and the catalog in the conversation (mirrored to the operator's
 * `whatsapp_commerce_settings` of the tenant's phone number, GRAPH_API.md §8.1), and the
 * store's commerce country (ISO 3166-1) and currency (ISO 4217), which eligibility checks,
 * and its payment configuration (Meta's Payments API, in the operator's own terms: India's
 * `upi` with payment gateways, Brazil's `br` with Pix, boleto and payment links), which
 * payment requests (`order_details`) carry.
 */
import { Schema } from "effect"
import { Currency } from "../shared/Money.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { Country } from "./ShippingProfile.js"

/** One of the operator's `payment_settings` objects (`{"type": "payment_gateway", "payment_gateway": {...}}`, `pix_dynamic_code`, `payment_link`, `boleto`). */
export const PaymentSetting = Schema.Struct(
  { type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

/** The store's payment configuration, as the operator's `order_details` parameters name it. */
export const Payments = Schema.Struct({
  payment_type: Schema.Literal("upi", "br"),
  payment_settings: Schema.Array(PaymentSetting).pipe(Schema.minItems(1), Schema.maxItems(10)),
  goods_type: Schema.optional(Schema.Literal("physical-goods", "digital-goods")),
  /** Send the payment request by itself when a cart arrives. */
  request_on_cart: Schema.optional(Schema.Boolean)
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "PaymentSettings" })
export type Payments = typeof Payments.Type

/**
 * The approved template that tells a customer about an order without a payment request once the
 * 24-hour window has closed: its body's placeholders take, in order, the order's id, what
 * happened to it ("has shipped") and the description (a cancellation's reason, or "-"); it may
 * use the first one, two or three. Its header and buttons take no parameter.
 */
export const OrderUpdatesTemplate = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(512)),
  language: Schema.String.pipe(Schema.minLength(2), Schema.maxLength(15))
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "OrderUpdatesTemplate" })
export type OrderUpdatesTemplate = typeof OrderUpdatesTemplate.Type

export const CommerceSettings = Schema.Struct({
  ...Owned,
  isCartEnabled: Schema.Boolean,
  isCatalogVisible: Schema.Boolean,
  country: Schema.NullOr(Schema.String),
  currency: Schema.NullOr(Schema.String),
  /** Null: no payments through WhatsApp (orders are paid elsewhere). */
  payments: Schema.NullOr(Payments),
  /** Null: an order without a payment request is not told about outside the window. */
  orderUpdatesTemplate: Schema.NullOr(OrderUpdatesTemplate),
  /** Null until the settings were first changed through the API. */
  updatedAt: Schema.NullOr(Schema.Number)
})
export interface CommerceSettings extends Schema.Schema.Type<typeof CommerceSettings> {}

/** `PATCH /chat/commerce/settings`: fields left out stay; `null` clears the country or the currency. */
export const UpdateCommerceSettings = Schema.Struct({
  is_cart_enabled: Schema.optional(Schema.Boolean),
  is_catalog_visible: Schema.optional(Schema.Boolean),
  country: Schema.optional(Schema.NullOr(Country)),
  currency: Schema.optional(Schema.NullOr(Currency)),
  payments: Schema.optional(Schema.NullOr(Payments)),
  order_updates_template: Schema.optional(Schema.NullOr(OrderUpdatesTemplate))
}).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "UpdateCommerceSettings" })
export type UpdateCommerceSettings = typeof UpdateCommerceSettings.Type

/** The settings as the API shows them. */
export const CommerceSettingsResource = Schema.Struct({
  isCartEnabled: Wire.key(CommerceSettings.fields.isCartEnabled, "is_cart_enabled"),
  isCatalogVisible: Wire.key(CommerceSettings.fields.isCatalogVisible, "is_catalog_visible"),
  country: CommerceSettings.fields.country,
  currency: CommerceSettings.fields.currency,
  payments: CommerceSettings.fields.payments,
  orderUpdatesTemplate: Wire.key(CommerceSettings.fields.orderUpdatesTemplate, "order_updates_template"),
  updatedAt: Wire.key(Schema.NullOr(Time.IsoDateTime), "updated_at")
}).annotations({ identifier: "CommerceSettings" })
