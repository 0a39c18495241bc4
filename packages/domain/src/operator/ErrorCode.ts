/**
 * The operator's error codes (GRAPH_API.md §10) classified by what we do about them.
 * - `throttled`: back off and retry later (rate limits).
 * - `transient`: retry with back-off.
 * - `optedOut`: never retry; the contact joins the store's opt-out list.
 * - `permanent`: never retry.
 */
export type ErrorClass = "throttled" | "transient" | "optedOut" | "permanent"

export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, 131056])
const TRANSIENT_CODES: ReadonlySet<number> = new Set([1, 2, 131000, 131016, 131057, 133016, 368])

export const classify = (code: number): ErrorClass =>
  RATE_LIMIT_CODES.has(code) ? "throttled" : code === 131050 ? "optedOut" : TRANSIENT_CODES.has(code) ? "transient" : "permanent"

export const isRetryable = (code: number): boolean => {
  const c = classify(code)
  return c === "throttled" || c === "transient"
}

export const TEMPLATE_PAUSED = 132015
export const TEMPLATE_DISABLED = 132016
export const OUTSIDE_WINDOW = 131047
