/**
 * Products (spec §4.2): they live here first; the operator's catalog is a mirror (DESIGN.md
 * "Commerce"). Fields follow the operator's product item (GRAPH_API.md §8.2): `retailer_id`
 * (the merchant's SKU, unique within a catalog), prices as integer minor units with one ISO
 * 4217 currency, and the operator's enumerations. `review_status` and `errors` are what the
 * operator said of it.
 */
import { Schema } from "effect"
import * as Id from "../shared/Id.js"
import { Owned } from "../shared/Tenant.js"
import * as Time from "../shared/Time.js"
import * as Wire from "../shared/Wire.js"
import { CatalogId } from "./Catalog.js"

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

/** The product as stored: its fields, which catalog it is in, and what the operator said of it. */
export const Product = Schema.Struct({
  id: ProductId.schema,
  ...Owned,
  catalogId: CatalogId.schema,
  retailerId: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price: Schema.Number,
  salePrice: Schema.NullOr(Schema.Number),
  currency: Schema.String,
  availability: Availability,
  condition: Condition,
  imageUrl: Schema.String,
  url: Schema.NullOr(Schema.String),
  brand: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  inventory: Schema.NullOr(Schema.Number),
  visibility: Visibility,
  /** `pending` until the operator reviewed the last write. */
  reviewStatus: ReviewStatus,
  errors: Schema.Array(ProductError),
  createdAt: Schema.Number,
  updatedAt: Schema.Number
})
export interface Product extends Schema.Schema.Type<typeof Product> {}

/** The product's fields in wire names (what a batch request or the operator carries). */
export const dataOf = (p: Product): ProductData => ({
  retailer_id: p.retailerId,
  name: p.name,
  description: p.description,
  price: p.price,
  sale_price: p.salePrice,
  currency: p.currency,
  availability: p.availability,
  condition: p.condition,
  image_url: p.imageUrl,
  url: p.url,
  brand: p.brand,
  category: p.category,
  inventory: p.inventory,
  visibility: p.visibility
})

/** The entity's own fields from wire-named data. */
export const fieldsOf = (d: ProductData) => ({
  retailerId: d.retailer_id,
  name: d.name,
  description: d.description,
  price: d.price,
  salePrice: d.sale_price,
  currency: d.currency,
  availability: d.availability,
  condition: d.condition,
  imageUrl: d.image_url,
  url: d.url,
  brand: d.brand,
  category: d.category,
  inventory: d.inventory,
  visibility: d.visibility
})

/** The product as the API shows it. */
export const ProductResource = Schema.Struct({
  id: Product.fields.id,
  catalogId: Wire.key(Product.fields.catalogId, "catalog_id"),
  retailerId: Wire.key(Product.fields.retailerId, "retailer_id"),
  name: Product.fields.name,
  description: Product.fields.description,
  price: Product.fields.price.annotations({ description: "Integer minor units of `currency` (1999 = 19.99 USD)" }),
  salePrice: Wire.key(Product.fields.salePrice, "sale_price"),
  currency: Product.fields.currency,
  availability: Product.fields.availability,
  condition: Product.fields.condition,
  imageUrl: Wire.key(Product.fields.imageUrl, "image_url"),
  url: Product.fields.url,
  brand: Product.fields.brand,
  category: Product.fields.category,
  inventory: Product.fields.inventory,
  visibility: Product.fields.visibility,
  reviewStatus: Wire.key(Product.fields.reviewStatus, "review_status"),
  errors: Product.fields.errors,
  createdAt: Wire.key(Time.IsoDateTime, "created_at"),
  updatedAt: Wire.key(Time.IsoDateTime, "updated_at")
}).annotations({ identifier: "Product" })

const field = <S extends Schema.Schema.AnyNoContext>(schema: S, description: string) => Schema.optional(schema.annotations({ description }))
const fields = {
  retailer_id: field(Schema.String, "The merchant's SKU, unique within the catalog (1–100 characters)"),
  name: field(Schema.String, "Up to 200 characters"),
  description: field(Schema.NullOr(Schema.String), "Up to 9,999 characters"),
  price: field(Schema.Number, "Integer minor units, 0 or more (1999 = 19.99)"),
  sale_price: field(Schema.NullOr(Schema.Number), "Integer minor units, below `price`"),
  currency: field(Schema.String, "ISO 4217 code, e.g. USD"),
  availability: field(Availability, "Default `in stock`"),
  condition: field(Condition, "Default `new`"),
  image_url: field(Schema.String, "Absolute http(s) URL"),
  url: field(Schema.NullOr(Schema.String), "The product's page"),
  brand: field(Schema.NullOr(Schema.String), "Up to 100 characters"),
  category: field(Schema.NullOr(Schema.String), "Up to 250 characters"),
  inventory: field(Schema.NullOr(Schema.Number), "Units in stock, a non-negative integer"),
  visibility: field(Visibility, "Default `published`")
}

/**
 * A product's fields as a request carries them (`POST /chat/catalogs/{id}/products`,
 * `PATCH /chat/products/{id}`): the types here, the operator's rules (`ProductRules`) after.
 * A CREATE needs `retailer_id`, `name`, `price`, `currency` and `image_url`.
 */
export const ProductInput = Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" }, identifier: "ProductInput" })

/** `PATCH /chat/products/{id}`: the fields to change; `retailer_id` cannot change. */
const { retailer_id: _fixed, ...changeable } = fields
export const ProductPatch = Schema.Struct(changeable).annotations({
  parseOptions: { onExcessProperty: "error" },
  identifier: "ProductPatch"
})

/** Filters of `GET /chat/catalogs/{id}/products`. */
export const ListFilters = {
  availability: Schema.optional(Availability),
  review_status: Schema.optional(ReviewStatus),
  has_errors: Schema.optional(Schema.BooleanFromString.annotations({ description: "`true` or `false`" })),
  retailer_id: Schema.optional(Schema.String)
}

export const Deleted = Schema.Struct({ id: ProductId.schema, deleted: Schema.Literal(true) })
