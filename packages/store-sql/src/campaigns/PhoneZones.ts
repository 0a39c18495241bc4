/**
 * The time zones of a phone number, for campaigns' send windows (issue 30): libphonenumber's
 * time zone map (`PhoneZoneData.ts`), longest prefix first, so an area code narrows a country
 * that spans zones (+1 201 is New York, +1 213 Los Angeles, +7 383 Novosibirsk) and a number
 * without one gets every zone of its country (the rule for several zones is
 * `CampaignSendWindow`'s). Stored on each recipient at ingestion (`time_zone`, the zones
 * joined by `&`); null when the map knows nothing of the number.
 */
import { PREFIXES, ZONES } from "./PhoneZoneData.js"

/**
 * The prefixes as a digit trie: node `n`'s child for digit `d` is `children[n * 10 + d]`
 * (0: none), its zones `zones[n]` (undefined: no prefix ends there). A lookup walks the
 * phone's digits once, without a string per prefix tried.
 */
interface Trie {
  readonly children: Int32Array
  readonly zones: ReadonlyArray<string | undefined>
}

let trie: Trie | undefined

const load = (): Trie => {
  if (trie !== undefined) return trie
  const entries = PREFIXES.split(",")
  let size = 1
  for (const entry of entries) size += entry.indexOf(":")
  const children = new Int32Array(size * 10)
  const zones: Array<string | undefined> = [undefined]
  for (const entry of entries) {
    const colon = entry.indexOf(":")
    let node = 0
    for (let i = 0; i < colon; i++) {
      const at = node * 10 + entry.charCodeAt(i) - 48
      if (children[at] === 0) {
        children[at] = zones.length
        zones.push(undefined)
      }
      node = children[at]
    }
    zones[node] = entry
      .slice(colon + 1)
      .split("&")
      .map((i) => ZONES[Number.parseInt(i, 36)])
      .join("&")
  }
  trie = { children, zones }
  return trie
}

/** The zones of an E.164 phone (`+` and digits), `&`-separated, of its longest known prefix; null when unknown. */
export const zoneKeyOf = (phone: string | null): string | null => {
  if (phone === null) return null
  const { children, zones } = load()
  let found: string | undefined
  let node = 0
  for (let i = phone.charCodeAt(0) === 43 ? 1 : 0; i < phone.length; i++) {
    const digit = phone.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) break
    node = children[node * 10 + digit]
    if (node === 0) break
    found = zones[node] ?? found
  }
  return found ?? null
}
