import { Schema } from "effect"

/** ISO 4217 currency code, upper case. */
export const Currency = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be an ISO 4217 code such as USD" }))

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
