/**
 * Tolerant readers of the operator's webhook JSON, shared by the parsers of `WebhookEvent`
 * and its per-field files: a value of the wrong type reads as absent.
 */
import type * as Time from "../shared/Time.js"

export const obj = (u: unknown): Record<string, unknown> | undefined =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : undefined
export const arr = (u: unknown): Array<unknown> => (Array.isArray(u) ? u : [])
/** A string, or a number as its decimal text (the operator sends some ids either way). */
export const str = (u: unknown): string | undefined => (typeof u === "string" ? u : typeof u === "number" ? String(u) : undefined)
/** Seconds since the epoch as the operator sends them, in ms; `fallback` when absent or unreadable. */
export const epoch = (u: unknown, fallback: Time.Millis): Time.Millis => {
  const n = Number(u)
  return Number.isFinite(n) && n > 0 ? n * 1000 : fallback
}
