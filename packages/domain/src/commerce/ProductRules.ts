/**
 * The operator's rules for a product's fields (GRAPH_API.md §8.2), checked here so that a
 * product that would be refused never reaches the operator, and the caller learns which
 * field is wrong and why. Hand-written rather than a Schema decode: a batch checks up to
 * 50,000 products per request, and every issue must name its field under the request's
 * own path (`requests[12].data.price`).
 *
 * - `CREATE`: `retailer_id`, `name`, `price`, `currency` and `image_url` are required; the
 *   rest take the operator's defaults (`in stock`, `new`, `published`).
 * - `UPDATE`: `retailer_id` and any subset of the fields (with `allow_upsert`, an UPDATE of
 *   an unknown product creates it, so it then needs what a CREATE needs: the caller checks).
 * - `DELETE`: `retailer_id` alone.
 * - Prices are integers in minor units, 0 or more; `sale_price` is below `price`.
 * - Text lengths: `retailer_id` 100, `name` 200 (the operator's title limit), `description`
 *   9,999, `brand` 100, `category` 250. URLs are absolute http(s).
 */
import type { FieldIssue } from "../shared/Errors.js"
import { ISO_4217 } from "../shared/Money.js"
import type { Availability, Condition, ProductData, Visibility } from "./Product.js"

export type Method = "CREATE" | "UPDATE" | "DELETE"

const AVAILABILITY: ReadonlySet<string> = new Set(["in stock", "out of stock", "available for order", "discontinued", "preorder"])
const CONDITION: ReadonlySet<string> = new Set(["new", "refurbished", "used"])
const VISIBILITY: ReadonlySet<string> = new Set(["published", "staging"])
const KNOWN: ReadonlySet<string> = new Set([
  "retailer_id",
  "name",
  "description",
  "price",
  "sale_price",
  "currency",
  "availability",
  "condition",
  "image_url",
  "url",
  "brand",
  "category",
  "inventory",
  "visibility"
])
export const REQUIRED_TO_CREATE = ["retailer_id", "name", "price", "currency", "image_url"] as const

const isUrl = (s: string): boolean => {
  if (!/^https?:\/\//i.test(s) || s.length > 2000) return false
  try {
    return new URL(s).hostname.length > 0
  } catch {
    return false
  }
}

/** What a check answers: the fields given (wire names), or the issues found. */
export type Checked =
  | { readonly ok: true; readonly data: Partial<ProductData> & { readonly retailer_id: string } }
  | { readonly ok: false; readonly issues: ReadonlyArray<FieldIssue> }

/**
 * Checks one product's `data` for `method`; issue paths start with `root` (e.g.
 * `requests[3].data`; empty for a body that is the product itself).
 */
export const check = (method: Method, data: unknown, root = ""): Checked => {
  const at = (field: string) => (root === "" ? field : `${root}.${field}`)
  const issues: Array<FieldIssue> = []
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { ok: false, issues: [{ path: root === "" ? "body" : root, message: "must be an object" }] }
  const d = data as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const text = (field: string, max: number, nullable: boolean) => {
    const v = d[field]
    if (v === undefined) return
    if (v === null && nullable) out[field] = null
    else if (typeof v !== "string" || v.trim().length === 0) issues.push({ path: at(field), message: "must be a non-empty string" })
    else if (v.length > max) issues.push({ path: at(field), message: `must be at most ${max} characters` })
    else out[field] = v
  }
  const amount = (field: string, nullable: boolean) => {
    const v = d[field]
    if (v === undefined) return
    if (v === null && nullable) out[field] = null
    else if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
      issues.push({ path: at(field), message: "must be a non-negative integer amount in minor units (cents), e.g. 1999 for 19.99" })
    else out[field] = v
  }
  const oneOf = (field: string, allowed: ReadonlySet<string>) => {
    const v = d[field]
    if (v === undefined) return
    if (typeof v !== "string" || !allowed.has(v)) issues.push({ path: at(field), message: `must be one of: ${[...allowed].join(", ")}` })
    else out[field] = v
  }
  const url = (field: string, nullable: boolean) => {
    const v = d[field]
    if (v === undefined) return
    if (v === null && nullable) out[field] = null
    else if (typeof v !== "string" || !isUrl(v)) issues.push({ path: at(field), message: "must be an absolute http(s) URL" })
    else out[field] = v
  }

  for (const key of Object.keys(d)) if (!KNOWN.has(key)) issues.push({ path: at(key), message: "is not a product field" })
  text("retailer_id", 100, false)
  if (d.retailer_id === undefined) issues.push({ path: at("retailer_id"), message: "is required" })
  if (method === "DELETE") {
    for (const key of Object.keys(d))
      if (key !== "retailer_id" && KNOWN.has(key)) issues.push({ path: at(key), message: "a DELETE takes retailer_id alone" })
  } else {
    text("name", 200, false)
    text("description", 9999, true)
    amount("price", false)
    amount("sale_price", true)
    const currency = d.currency
    if (currency !== undefined) {
      if (typeof currency !== "string" || !ISO_4217.has(currency))
        issues.push({ path: at("currency"), message: "must be an ISO 4217 currency code such as USD" })
      else out.currency = currency
    }
    oneOf("availability", AVAILABILITY)
    oneOf("condition", CONDITION)
    oneOf("visibility", VISIBILITY)
    url("image_url", false)
    url("url", true)
    text("brand", 100, true)
    text("category", 250, true)
    const inventory = d.inventory
    if (inventory !== undefined && inventory !== null && (typeof inventory !== "number" || !Number.isSafeInteger(inventory) || inventory < 0))
      issues.push({ path: at("inventory"), message: "must be a non-negative integer" })
    else if (inventory !== undefined) out.inventory = inventory
    if (method === "CREATE")
      for (const field of REQUIRED_TO_CREATE) if (d[field] === undefined) issues.push({ path: at(field), message: "is required" })
    if (typeof out.price === "number" && typeof out.sale_price === "number" && out.sale_price >= out.price)
      issues.push({ path: at("sale_price"), message: "must be below price" })
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, data: out as Partial<ProductData> & { readonly retailer_id: string } }
}

/** A complete product from the fields of a CREATE (or an upserting UPDATE), with the operator's defaults. */
export const complete = (data: Partial<ProductData> & { readonly retailer_id: string }): ProductData => ({
  retailer_id: data.retailer_id,
  name: data.name ?? "",
  description: data.description ?? null,
  price: data.price ?? 0,
  sale_price: data.sale_price ?? null,
  currency: data.currency ?? "",
  availability: (data.availability ?? "in stock") as Availability,
  condition: (data.condition ?? "new") as Condition,
  image_url: data.image_url ?? "",
  url: data.url ?? null,
  brand: data.brand ?? null,
  category: data.category ?? null,
  inventory: data.inventory ?? null,
  visibility: (data.visibility ?? "published") as Visibility
})
