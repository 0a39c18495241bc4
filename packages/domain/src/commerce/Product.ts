/**
 * Products (spec §4.2): they live here first; the operator's catalog is a mirror (DESIGN.md
 * "Commerce"). Fields follow the operator's product item (GRAPH_API.md §8.2): `retailer_id`
 * (the merchant's SKU, unique within a catalog), prices as integer minor units with one ISO
 * 4217 currency, and the operator's enumerations. `review_status` and `errors` are what the
 * operator said of it.
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"

/** `prd_…` */
export const ProductId = Id.kind("prd", "ProductId")
export type ProductId = Id.Of<typeof ProductId>

/** The operator's availability values (GRAPH_API.md §8.2). */
export const Availability = Schema.Literal("in stock", "out of stock", "available for order", "discontinued", "preorder")
export type Availability = typeof Availability.Type

export const Condition = Schema.Literal("new", "refurbished", "used")
export type Condition = typeof Condition.Type

export const Visibility = Schema.Literal("published", "staging")
export type Visibility = typeof Visibility.Type

export const ReviewStatus = Schema.Literal("pending", "approved", "rejected", "outdated")
export type ReviewStatus = typeof ReviewStatus.Type

/** The operator's diagnostics severities (GRAPH_API.md §8.5). */
export const Severity = Schema.Literal("MUST_FIX", "OPPORTUNITY")

/** One problem the operator (or our own check) found with a product. */
export const ProductError = Schema.Struct({
  /** The operator's diagnostics type: IMAGE_QUALITY, POLICY_VIOLATION, ATTRIBUTES_INVALID, ATTRIBUTES_MISSING, ... */
  type: Schema.String,
  severity: Severity,
  code: Schema.String,
  message: Schema.String,
  field: Schema.optional(Schema.String)
})
export type ProductError = typeof ProductError.Type

/** A product's own fields, as a caller writes them (wire names). */
export interface ProductData {
  readonly retailer_id: string
  readonly name: string
  readonly description: string | null
  readonly price: number
  readonly sale_price: number | null
  readonly currency: string
  readonly availability: Availability
  readonly condition: Condition
  readonly image_url: string
  readonly url: string | null
  readonly brand: string | null
  readonly category: string | null
  readonly inventory: number | null
  readonly visibility: Visibility
}
