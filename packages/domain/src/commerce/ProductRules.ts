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
/** A product's data fields beside its retailer id (the columns of its stored row, too). */
export const DATA_FIELDS = [
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
] as const
const KNOWN: ReadonlySet<string> = new Set(["retailer_id", ...DATA_FIELDS])
export const REQUIRED_TO_CREATE = ["retailer_id", "name", "price", "currency", "image_url"] as const

/** An absolute http(s) URL with a host, no spaces (a pattern: `new URL` per product costs more than the rest of the check). */
const URL_PATTERN = /^https?:\/\/[^\s/?#@]+(?::\d{1,5})?(?:[/?#]\S*)?$/i
const isUrl = (s: string): boolean => s.length <= 2000 && URL_PATTERN.test(s)

/** What a check answers: the fields given (wire names), or the issues found. */
export type Checked =
  | { readonly ok: true; readonly data: Partial<ProductData> & { readonly retailer_id: string } }
  | { readonly ok: false; readonly issues: ReadonlyArray<FieldIssue> }

/**
 * Checks one product's `data` for `method`; issue paths start with `root` (e.g.
 * `requests[3].data`; empty for a body that is the product itself).
 */
export const check = (method: Method, data: unknown, root = ""): Checked => {
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { ok: false, issues: [{ path: root === "" ? "body" : root, message: "must be an object" }] }
  const d = data as Record<string, unknown>
  const c: Checking = { d, out: {}, issues: [], root }
  for (const key in d) if (!KNOWN.has(key)) issue(c, key, "is not a product field")
  text(c, "retailer_id", 100, false)
  if (d.retailer_id === undefined) issue(c, "retailer_id", "is required")
  if (method === "DELETE") {
    for (const key in d) if (key !== "retailer_id" && KNOWN.has(key)) issue(c, key, "a DELETE takes retailer_id alone")
  } else {
    text(c, "name", 200, false)
    text(c, "description", 9999, true)
    amount(c, "price", false)
    amount(c, "sale_price", true)
    const currency = d.currency
    if (currency !== undefined) {
      if (typeof currency !== "string" || !ISO_4217.has(currency)) issue(c, "currency", "must be an ISO 4217 currency code such as USD")
      else c.out.currency = currency
    }
    oneOf(c, "availability", AVAILABILITY)
    oneOf(c, "condition", CONDITION)
    oneOf(c, "visibility", VISIBILITY)
    url(c, "image_url", false)
    url(c, "url", true)
    text(c, "brand", 100, true)
    text(c, "category", 250, true)
    const inventory = d.inventory
    if (inventory !== undefined && inventory !== null && (typeof inventory !== "number" || !Number.isSafeInteger(inventory) || inventory < 0))
      issue(c, "inventory", "must be a non-negative integer")
    else if (inventory !== undefined) c.out.inventory = inventory
    if (method === "CREATE") for (const field of REQUIRED_TO_CREATE) if (d[field] === undefined) issue(c, field, "is required")
    if (typeof c.out.price === "number" && typeof c.out.sale_price === "number" && c.out.sale_price >= c.out.price)
      issue(c, "sale_price", "must be below price")
  }
  return c.issues.length > 0 ? { ok: false, issues: c.issues } : { ok: true, data: c.out as Partial<ProductData> & { readonly retailer_id: string } }
}

// the checks of one field, on one shared state (no closures per product: a batch checks 50,000)

interface Checking {
  readonly d: Record<string, unknown>
  readonly out: Record<string, unknown>
  readonly issues: Array<FieldIssue>
  readonly root: string
}

const issue = (c: Checking, field: string, message: string) => c.issues.push({ path: c.root === "" ? field : `${c.root}.${field}`, message })

const text = (c: Checking, field: string, max: number, nullable: boolean) => {
  const v = c.d[field]
  if (v === undefined) return
  if (v === null && nullable) c.out[field] = null
  else if (typeof v !== "string" || v.trim().length === 0) issue(c, field, "must be a non-empty string")
  else if (v.length > max) issue(c, field, `must be at most ${max} characters`)
  else c.out[field] = v
}

const amount = (c: Checking, field: string, nullable: boolean) => {
  const v = c.d[field]
  if (v === undefined) return
  if (v === null && nullable) c.out[field] = null
  else if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
    issue(c, field, "must be a non-negative integer amount in minor units (cents), e.g. 1999 for 19.99")
  else c.out[field] = v
}

const oneOf = (c: Checking, field: string, allowed: ReadonlySet<string>) => {
  const v = c.d[field]
  if (v === undefined) return
  if (typeof v !== "string" || !allowed.has(v)) issue(c, field, `must be one of: ${[...allowed].join(", ")}`)
  else c.out[field] = v
}

const url = (c: Checking, field: string, nullable: boolean) => {
  const v = c.d[field]
  if (v === undefined) return
  if (v === null && nullable) c.out[field] = null
  else if (typeof v !== "string" || !isUrl(v)) issue(c, field, "must be an absolute http(s) URL")
  else c.out[field] = v
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
