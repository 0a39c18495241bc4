import { Schema } from "effect"

/**
 * The active ISO 4217 currency codes (list one of ISO 4217, as published by SIX, amendment
 * 177; funds codes, precious metals and testing codes left out).
 */
export const ISO_4217: ReadonlySet<string> = new Set(
  (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD " +
    "CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF " +
    "GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP " +
    "LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB " +
    "PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL " +
    "THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG"
  ).split(" ")
)

/** An ISO 4217 currency code, upper case; an unknown code is refused. */
export const Currency = Schema.String.pipe(
  Schema.filter((s) => ISO_4217.has(s) || "must be an ISO 4217 currency code such as USD"),
  Schema.annotations({ jsonSchema: { type: "string", pattern: "^[A-Z]{3}$" } })
)

/** An amount in integer minor units (cents), zero or more: never a decimal, never negative. */
export const MinorUnits = Schema.Number.pipe(
  Schema.filter((n) => (Number.isSafeInteger(n) && n >= 0) || "must be a non-negative integer amount in minor units (cents), e.g. 1999 for 19.99"),
  Schema.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
)

/** An amount in integer minor units (cents) with its currency; never floating point. */
export const Money = Schema.Struct({
  amount: Schema.Int,
  currency: Currency
})
export type Money = typeof Money.Type

export const add = (a: Money, b: Money): Money => {
  if (a.currency !== b.currency) throw new Error(`currency mismatch: ${a.currency} vs ${b.currency}`)
  return { amount: a.amount + b.amount, currency: a.currency }
}

const EXPONENT_0 = new Set("BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".split(" "))
const EXPONENT_3 = new Set("BHD IQD JOD KWD LYD OMR TND".split(" "))

/** The number of decimals of the currency's minor unit (ISO 4217): 2 for most, 0 for JPY and the like, 3 for BHD and the like. */
export const exponent = (currency: string): number => (EXPONENT_0.has(currency) ? 0 : EXPONENT_3.has(currency) ? 3 : 2)

/**
 * Minor units from a decimal text in `currency` ("19.99" USD → 1999), or undefined when the
 * text is not a non-negative amount with at most the currency's decimals. Exact: no floating point.
 */
export const parseDecimal = (text: string, currency: string): number | undefined => {
  const digits = exponent(currency)
  const m = /^(\d{1,15})(?:\.(\d+))?$/.exec(text)
  if (m === null) return undefined
  const fraction = m[2] ?? ""
  if (fraction.length > digits) return undefined
  const value = Number(m[1] + fraction.padEnd(digits, "0"))
  return Number.isSafeInteger(value) ? value : undefined
}
