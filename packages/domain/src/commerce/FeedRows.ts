/**
 * A feed file's rows as products: the header's column names (ours, or the operator's feed
 * names: `id`, `title`, `link`, `image_link`, `google_product_category`,
 * `quantity_to_sell_on_facebook`), the delimiter detected from the header, and prices in
 * either form a feed carries: integer minor units (`1999`, with a `currency` column or the
 * feed's default currency) or an amount with its currency (`19.99 USD`). Each row is then
 * checked with the operator's product rules (`ProductRules`).
 */
import { ISO_4217, parseDecimal } from "../shared/Money.js"
import { DELIMITER_CHAR, type Delimiter } from "./Feed.js"
import type { ProductData } from "./Product.js"
import * as ProductRules from "./ProductRules.js"

const ALIASES: Readonly<Record<string, string>> = {
  retailer_id: "retailer_id",
  id: "retailer_id",
  name: "name",
  title: "name",
  description: "description",
  price: "price",
  sale_price: "sale_price",
  currency: "currency",
  availability: "availability",
  condition: "condition",
  visibility: "visibility",
  image_url: "image_url",
  image_link: "image_link",
  url: "url",
  link: "url",
  brand: "brand",
  category: "category",
  google_product_category: "category",
  inventory: "inventory",
  quantity_to_sell_on_facebook: "inventory"
}
const IMAGE = "image_link"

/** The delimiter character of a feed: its own, or the candidate most frequent in the header line. */
export const delimiterOf = (delimiter: Delimiter, headerLine: string): string => {
  if (delimiter !== "AUTODETECT") return DELIMITER_CHAR[delimiter]
  let best = ","
  let bestCount = 0
  for (const c of Object.values(DELIMITER_CHAR)) {
    const n = headerLine.split(c).length - 1
    if (n > bestCount) {
      best = c
      bestCount = n
    }
  }
  return best
}

/** Which product field each column holds (undefined: a column we ignore). */
export type Columns = ReadonlyArray<string | undefined>

/** The columns of a header, or why it cannot be a product file. */
export const columnsOf = (header: ReadonlyArray<string>): { readonly columns: Columns } | { readonly error: string } => {
  const columns = header.map((h) => {
    const field = ALIASES[h.trim().toLowerCase()]
    return field === IMAGE ? "image_url" : field
  })
  if (!columns.includes("retailer_id")) return { error: "the header has no retailer_id (or id) column" }
  const seen = new Set<string>()
  for (const c of columns) {
    if (c === undefined) continue
    if (seen.has(c)) return { error: `the header names ${c} twice` }
    seen.add(c)
  }
  return { columns }
}

const INTEGER = /^\d{1,15}$/
const AMOUNT = /^(\d{1,15}(?:\.\d+)?)\s+([A-Za-z]{3})$/

/**
 * A row's cells as product data (wire names, empty cells left out), with the issues found in
 * its prices (the rest is checked by `ProductRules`).
 */
export const dataOf = (
  columns: Columns,
  cells: ReadonlyArray<string>,
  defaultCurrency: string | null
): { readonly data: Record<string, unknown>; readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }> } => {
  const raw: Record<string, string> = {}
  for (let i = 0; i < columns.length; i++) {
    const field = columns[i]
    const cell = cells[i]?.trim()
    if (field !== undefined && cell !== undefined && cell.length > 0) raw[field] = cell
  }
  const issues: Array<{ path: string; message: string }> = []
  // the cells become the data in place (prices and inventory replaced by numbers): no copy per row
  const data: Record<string, unknown> = raw
  let currency = raw.currency ?? defaultCurrency ?? undefined
  for (const field of ["price", "sale_price"] as const) {
    const cell = raw[field]
    if (cell === undefined) continue
    const amount = AMOUNT.exec(cell)
    if (amount !== null) {
      const code = amount[2].toUpperCase()
      if (!ISO_4217.has(code)) {
        issues.push({ path: field, message: `names ${code}, not an ISO 4217 currency code` })
        continue
      }
      if (currency !== undefined && currency !== code) {
        issues.push({ path: field, message: `is in ${code} but the product's currency is ${currency}` })
        continue
      }
      currency = code
      const minor = parseDecimal(amount[1], code)
      if (minor === undefined) issues.push({ path: field, message: `has more decimals than ${code} allows` })
      else data[field] = minor
    } else if (INTEGER.test(cell)) data[field] = Number(cell)
    else issues.push({ path: field, message: "must be integer minor units (1999) or an amount with its currency (19.99 USD)" })
  }
  if (currency !== undefined) data.currency = currency
  const inventory = raw.inventory
  if (inventory !== undefined) data.inventory = INTEGER.test(inventory) ? Number(inventory) : inventory
  return { data, issues }
}

/** A row checked with the operator's rules for a CREATE: its product data, or its issues (the price issues first). */
export const check = (columns: Columns, cells: ReadonlyArray<string>, defaultCurrency: string | null) => {
  const { data, issues } = dataOf(columns, cells, defaultCurrency)
  const checked = ProductRules.check("CREATE", data)
  if (issues.length === 0 && checked.ok) return { ok: true as const, data: checked.data, rid: checked.data.retailer_id }
  const priced = new Set(issues.map((i) => i.path))
  const all = [...issues, ...(checked.ok ? [] : checked.issues.filter((i) => !priced.has(i.path)))]
  return { ok: false as const, issues: all, rid: typeof data.retailer_id === "string" ? data.retailer_id : null }
}

/**
 * What checking a file's row found: the header's columns (or why it cannot head a product
 * file), a data row's complete product (`ProductRules.complete`), or a data row's issues.
 * Plain data, so it can cross threads (`FeedReader.checkedRows`).
 */
export type Outcome =
  | { readonly line: number; readonly header: true; readonly error: string | null }
  | { readonly line: number; readonly header: false; readonly ok: true; readonly rid: string; readonly data: ProductData }
  | {
      readonly line: number
      readonly header: false
      readonly ok: false
      readonly rid: string | null
      readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
    }

/**
 * Checks one file's rows, group after group, in file order: line 1 is the header (its
 * columns are kept for the rows after it), every other row is checked (`check`) against
 * them; nothing after a header that cannot be one (the file stops there). One checker per
 * file (it keeps the header's columns).
 */
export const checker = (defaultCurrency: string | null) => {
  let columns: Columns | undefined
  let refused = false
  // a file's rows (`FeedReader.Row`: its import would be a loop)
  return (rows: ReadonlyArray<{ readonly line: number; readonly cells: ReadonlyArray<string> }>): Array<Outcome> => {
    const out: Array<Outcome> = []
    for (const row of rows) {
      if (refused) break
      if (row.line === 1) {
        const found = columnsOf(row.cells)
        if ("error" in found) {
          refused = true
          out.push({ line: 1, header: true, error: found.error })
        } else {
          columns = found.columns
          out.push({ line: 1, header: true, error: null })
        }
        continue
      }
      const checked = check(columns!, row.cells, defaultCurrency)
      out.push(
        checked.ok
          ? { line: row.line, header: false, ok: true, rid: checked.rid, data: ProductRules.complete(checked.data) }
          : { line: row.line, header: false, ok: false, rid: checked.rid, issues: checked.issues }
      )
    }
    return out
  }
}
