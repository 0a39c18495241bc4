/**
 * The operator's rate card (per-message pricing since 1 July 2025, GRAPH_API.md §3.1): a price
 * per template category and recipient country, in one currency, from an effective date. A
 * phone's country is the card row whose `calling_code` is the longest prefix of its digits;
 * `*` prices the rest of the world. Prices are kept in micro-units (1e-6 of the currency) so
 * sums are exact.
 */
import { Schema } from "effect"

export const Rate = Schema.Struct({
  /** `marketing`, `utility`, `authentication` (lower case, as `pricing.category`). */
  category: Schema.String,
  /** ISO 3166 alpha-2, or `*` for the rest of the world. */
  country: Schema.String,
  /** Country calling code digits (`1`, `44`, `91`), or `*`. */
  callingCode: Schema.String,
  priceMicros: Schema.Int,
  currency: Schema.String,
  /** `YYYY-MM-DD`. */
  effectiveDate: Schema.String,
  source: Schema.String
})
export interface Rate extends Schema.Schema.Type<typeof Rate> {}

/** Amounts in the card's currency, rounded to 6 decimals. */
export const amount = (micros: number): number => Math.round(micros) / 1_000_000

/** A card indexed for lookups. */
export interface Card {
  readonly currency: string
  readonly effectiveDate: string | null
  /** The country of a phone (E.164), by the longest calling-code prefix; `*` when none matches. */
  readonly countryOf: (phone: string) => string
  /** The price of one message of `category` to `country`, in micros; 0 when the card has none. */
  readonly price: (category: string, country: string) => number
}

export const card = (rates: ReadonlyArray<Rate>): Card => {
  const codes = new Map<string, string>()
  const prices = new Map<string, number>()
  for (const r of rates) {
    if (r.callingCode !== "*") codes.set(r.callingCode, r.country)
    prices.set(`${r.category}|${r.country}`, r.priceMicros)
  }
  const dates = rates.map((r) => r.effectiveDate).sort()
  return {
    currency: rates[0]?.currency ?? "USD",
    effectiveDate: dates.length === 0 ? null : dates[dates.length - 1],
    countryOf: (phone) => {
      const digits = phone.replace(/^\+/, "")
      for (let n = Math.min(4, digits.length); n > 0; n--) {
        const country = codes.get(digits.slice(0, n))
        if (country !== undefined) return country
      }
      return "*"
    },
    price: (category, country) => prices.get(`${category}|${country}`) ?? prices.get(`${category}|*`) ?? 0
  }
}

/** Parses a rate card CSV: a header naming `category,country,calling_code,price,currency,effective_date[,source]`, then one row per price. */
export const parseCsv = (text: string, defaultSource: string): { readonly rates: ReadonlyArray<Rate> } | { readonly error: string } => {
  const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0 && !l.startsWith("#"))
  if (lines.length < 2) return { error: "the file has no rate rows" }
  const header = lines[0].split(",").map((h) => h.trim().toLowerCase())
  const col = (name: string) => header.indexOf(name)
  for (const name of ["category", "country", "calling_code", "price", "currency", "effective_date"])
    if (col(name) < 0) return { error: `the header has no column ${name}` }
  const rates: Array<Rate> = []
  for (let i = 1; i < lines.length; i++) {
    const cells = lines[i].split(",").map((c) => c.trim())
    const price = Number(cells[col("price")])
    const date = cells[col("effective_date")]
    if (!Number.isFinite(price) || price < 0) return { error: `line ${i + 1}: price must be a non-negative number` }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date ?? "")) return { error: `line ${i + 1}: effective_date must be YYYY-MM-DD` }
    rates.push({
      category: (cells[col("category")] ?? "").toLowerCase(),
      country: (cells[col("country")] ?? "").toUpperCase(),
      callingCode: cells[col("calling_code")] ?? "*",
      priceMicros: Math.round(price * 1_000_000),
      currency: (cells[col("currency")] ?? "USD").toUpperCase(),
      effectiveDate: date,
      source: col("source") >= 0 ? (cells[col("source")] ?? defaultSource) : defaultSource
    })
  }
  return { rates }
}
