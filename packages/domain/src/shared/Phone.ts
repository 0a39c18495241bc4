import { Schema } from "effect"

/**
 * A phone number in E.164 form: a leading plus, a country code, at most 15 digits.
 * Input may carry spaces, dashes, dots and parentheses; `normalize` removes them.
 */
export const E164 = Schema.String.pipe(
  Schema.pattern(/^\+[1-9]\d{6,14}$/, {
    message: () => "must be a phone number in E.164 form, e.g. +15551230001"
  }),
  Schema.brand("E164")
)
export type E164 = typeof E164.Type

const separators = /[\s\-().]/g
const e164 = /^\+[1-9]\d{6,14}$/

/**
 * The E.164 form of `input`, or undefined when it is not a valid number. A number already in
 * that form (it has no separator) is answered as it is, without a copy.
 */
export const normalize = (input: string): E164 | undefined => {
  if (e164.test(input)) return input as E164
  const compact = input.replace(separators, "")
  return e164.test(compact) ? (compact as E164) : undefined
}

/** The operator's `wa_id` form: digits only. */
export const toWaId = (phone: string): string => phone.replace(/\D/g, "")

/** From a `wa_id` (digits) back to E.164. */
export const fromWaId = (waId: string): E164 | undefined => normalize(`+${waId.replace(/\D/g, "")}`)
