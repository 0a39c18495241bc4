/** Identifiers in the operator's shapes. */
import { randomBytes } from "node:crypto"

/** A WhatsApp message id: `wamid.` followed by random base64url. */
export const newWamid = (): string => `wamid.${randomBytes(24).toString("base64url")}`

/** A Graph trace id (`x-fb-trace-id`, `fbtrace_id`): 11 random base64url characters. */
export const newTraceId = (): string => randomBytes(8).toString("base64url").slice(0, 11)

/** A Graph request id (`x-fb-request-id`). */
export const newRequestId = (): string => randomBytes(12).toString("base64url")

/** Strips formatting from a phone number (spaces, dashes, parentheses, one leading `+`); returns undefined unless 6..15 digits remain. */
export const normalizePhone = (input: string): string | undefined => {
  const cleaned = input.replace(/[\s\-().]/g, "").replace(/^\+/, "")
  return /^\d{6,15}$/.test(cleaned) ? cleaned : undefined
}
