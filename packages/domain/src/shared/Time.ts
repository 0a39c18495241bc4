/**
 * Time in the domain: one representation everywhere (entities, ports, events), epoch
 * milliseconds UTC, read from Effect's `Clock` so tests drive it with `TestClock`.
 * The API shows it as ISO 8601 text (`IsoDateTime`).
 */
import { Clock, type Effect, Schema } from "effect"

/** Epoch milliseconds, UTC. */
export type Millis = number

/** The current time from the `Clock` service (`TestClock` in tests). */
export const now: Effect.Effect<Millis> = Clock.currentTimeMillis

export const SECOND: Millis = 1000
export const MINUTE: Millis = 60 * SECOND
export const HOUR: Millis = 60 * MINUTE
export const DAY: Millis = 24 * HOUR

/** Texts of the times rendered lately: a stored time is rendered on every read of its row. */
const isoTexts = new Map<Millis, string>()
const ISO_TEXTS = 8192

/** ISO 8601 text of a time. */
export const toIso = (ms: Millis): string => {
  let text = isoTexts.get(ms)
  if (text === undefined) {
    text = new Date(ms).toISOString()
    if (isoTexts.size >= ISO_TEXTS) isoTexts.clear()
    isoTexts.set(ms, text)
  }
  return text
}

/** ISO 8601 date-time text, as requests carry it (e.g. `2030-01-31T09:00:00Z`). */
export const IsoText = Schema.String.pipe(
  Schema.filter((s) => (/^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s))) || "must be an ISO 8601 date-time, e.g. 2030-01-31T09:00:00Z")
)

/**
 * A time on the wire: ISO 8601 text outside, `Millis` inside. Resources declare their
 * times with it, so encoding a resource renders them.
 */
export const IsoDateTime: Schema.Schema<Millis, string> = Schema.transform(IsoText, Schema.Number, {
  strict: true,
  decode: (s) => Date.parse(s),
  encode: toIso
}).annotations({ identifier: "DateTime", jsonSchema: { type: "string", format: "date-time" } })
