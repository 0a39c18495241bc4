/**
 * The time zones of a phone number, for campaigns' send windows (issue 30): libphonenumber's
 * time zone map (`PhoneZoneData.ts`), longest prefix first, so an area code narrows a country
 * that spans zones (+1 201 is New York, +1 213 Los Angeles, +7 383 Novosibirsk) and a number
 * without one gets every zone of its country (the rule for several zones is
 * `CampaignSendWindow`'s). Stored on each recipient at ingestion (`time_zone`, the zones
 * joined by `&`); null when the map knows nothing of the number.
 */
import { PREFIXES, ZONES } from "./PhoneZoneData.js"

let map: Map<string, string> | undefined
let longest = 0

const load = (): Map<string, string> => {
  if (map !== undefined) return map
  map = new Map()
  for (const entry of PREFIXES.split(",")) {
    const colon = entry.indexOf(":")
    const prefix = entry.slice(0, colon)
    const zones = entry
      .slice(colon + 1)
      .split("&")
      .map((i) => ZONES[Number.parseInt(i, 36)])
    map.set(prefix, zones.join("&"))
    if (prefix.length > longest) longest = prefix.length
  }
  return map
}

/** The zones of an E.164 phone (`+` and digits), `&`-separated; null when unknown. */
export const zoneKeyOf = (phone: string | null): string | null => {
  if (phone === null) return null
  const zones = load()
  const digits = phone.startsWith("+") ? phone.slice(1) : phone
  for (let n = Math.min(longest, digits.length); n > 0; n--) {
    const found = zones.get(digits.slice(0, n))
    if (found !== undefined) return found
  }
  return null
}
