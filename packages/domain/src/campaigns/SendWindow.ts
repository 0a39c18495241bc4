/**
 * A campaign's `send_window` (issue 30) in each recipient's local time: whether it is open
 * now, and when it next opens. Pure: the zones are IANA names (the store derives them from
 * the phone number with libphonenumber's time zone map), and local times come from the
 * platform's `Intl` time zone database, so daylight saving time is the zone's own.
 *
 * The rule for a number that may be in several zones (libphonenumber gives every zone of
 * the country when the number carries no area code that narrows it, e.g. a Brazilian
 * mobile: Noronha to Rio Branco): the window must be open in all of them, so nobody gets a
 * message outside it wherever they are. When the zones lie too far apart for that to happen
 * within three days (a window shorter than their spread), the window applies in the zone of
 * their median UTC offset, which keeps the error under half the spread. A number with no
 * known zone is held to the window in UTC.
 *
 * A window whose `to` is before its `from` spans midnight (22:00 to 06:00); `from` equal to
 * `to` is open all day.
 */
import type { SendWindow } from "./Campaign.js"

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const UTC = "UTC"

const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5))

const formatters = new Map<string, Intl.DateTimeFormat | null>()
const formatter = (zone: string): Intl.DateTimeFormat | null => {
  let f = formatters.get(zone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric"
      })
    } catch {
      f = null // a name the platform's database does not know
    }
    formatters.set(zone, f)
  }
  return f
}

/** Whether the platform knows the zone. */
export const isKnownZone = (zone: string): boolean => formatter(zone) !== null

/** How far the zone's wall clock is ahead of UTC at `at` (ms; negative west of Greenwich). */
export const offsetOf = (zone: string, at: number): number => {
  const f = formatter(zone)
  if (f === null) return 0
  const p: Record<string, number> = {}
  for (const part of f.formatToParts(at)) if (part.type !== "literal") p[part.type] = Number(part.value)
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return wall - Math.floor(at / 1000) * 1000
}

/** The zones of a stored zone key (`&`-separated, as libphonenumber's map has them); unknown names left out; UTC when none is left. */
export const zonesOf = (key: string | null): ReadonlyArray<string> => {
  const zones = key === null || key === "" ? [] : key.split("&").filter(isKnownZone)
  return zones.length === 0 ? [UTC] : zones
}

const openInZone = (window: SendWindow, zone: string, at: number): boolean => {
  const from = minutesOf(window.from)
  const to = minutesOf(window.to)
  if (from === to) return true
  const wall = at + offsetOf(zone, at)
  const m = Math.floor((((wall % DAY) + DAY) % DAY) / MINUTE)
  return from < to ? m >= from && m < to : m >= from || m < to
}

/** The first instant at or after `at` when the window is open in `zone` (daylight saving time included: a start the clocks skip opens when they jump). */
export const nextOpeningIn = (window: SendWindow, zone: string, at: number): number => {
  if (openInZone(window, zone, at)) return at
  const offset = offsetOf(zone, at)
  const wall = at + offset
  let target = wall - (((wall % DAY) + DAY) % DAY) + minutesOf(window.from) * MINUTE
  if (target <= wall) target += DAY
  const guess = target - offset
  const corrected = target - offsetOf(zone, guess)
  if (offsetOf(zone, corrected) === offsetOf(zone, guess) && openInZone(window, zone, corrected)) return Math.max(at, corrected)
  // the start falls in a gap the clocks skip (or the offset moved in between): the first open minute between the two
  let lo = Math.max(at, Math.min(guess, corrected))
  let hi = Math.max(guess, corrected)
  if (!openInZone(window, zone, hi)) return nextOpeningIn(window, zone, hi + MINUTE) // a window the gap swallowed whole: the next day's
  while (hi - lo > MINUTE) {
    const mid = Math.floor((lo + hi) / 2 / MINUTE) * MINUTE
    if (mid <= lo || mid >= hi) break
    if (openInZone(window, zone, mid)) hi = mid
    else lo = mid
  }
  return hi
}

/** The window with its ends swapped: it opens when the window closes. */
const complement = (window: SendWindow): SendWindow => ({ from: window.to, to: window.from })

/** Whether the window is open at `at` in every one of `zones`. */
export const isOpen = (window: SendWindow, zones: ReadonlyArray<string>, at: number): boolean => {
  for (const zone of zones) if (!openInZone(window, zone, at)) return false
  return true
}

/** The zone of the median UTC offset (the lower one of the two middle ones). */
const medianZone = (zones: ReadonlyArray<string>, at: number): string =>
  [...zones].sort((a, b) => offsetOf(a, at) - offsetOf(b, at))[Math.floor((zones.length - 1) / 2)]

/**
 * When a recipient in `zones` may be sent to: `at` when the window is open in all of them,
 * else the first opening within three days when it is, else (zones too far apart) the next
 * opening in the zone of the median offset.
 */
export const nextOpening = (window: SendWindow, zones: ReadonlyArray<string>, at: number): number => {
  if (zones.length === 0) return nextOpeningIn(window, UTC, at)
  if (isOpen(window, zones, at)) return at
  if (zones.length === 1) return nextOpeningIn(window, zones[0], at)
  // every opening of every zone over three days; the intersection starts at one of them
  const candidates: Array<number> = []
  for (const zone of zones) {
    let t = at
    for (let k = 0; k < 3; k++) {
      const opens = nextOpeningIn(window, zone, t)
      candidates.push(opens)
      t = nextOpeningIn(complement(window), zone, opens)
    }
  }
  candidates.sort((a, b) => a - b)
  for (const c of candidates) if (isOpen(window, zones, c)) return c
  return nextOpeningIn(window, medianZone(zones, at), at)
}

/**
 * Whether a recipient in `zones` is inside the window at `at`: open in all of them, or, when
 * they lie too far apart for that ever to happen, open in the zone of the median offset.
 */
export const isOpenFor = (window: SendWindow, zones: ReadonlyArray<string>, at: number): boolean => nextOpening(window, zones, at) === at
