/**
 * The time zones of a phone number, for campaigns' send windows (issue 30): libphonenumber's
 * time zone map (`PhoneZoneData.ts`), longest prefix first, so an area code narrows a country
 * that spans zones (+1 201 is New York, +1 213 Los Angeles, +7 383 Novosibirsk) and a number
 * without one gets every zone of its country (the rule for several zones is
 * `CampaignSendWindow`'s). Stored on each recipient at ingestion as the id of its zone list
 * (`zone_id`, `ZoneLists.ts`: the lists, zones joined by `&`, are rows of their own); null
 * when the map knows nothing of the number.
 */
import { PREFIXES, ZONES } from "./PhoneZoneData.js"

/**
 * The prefixes as a digit trie: node `n`'s child for digit `d` is `children[n * 10 + d]`
 * (0: none), its zone list `lists[n]` (an index into `names`, the distinct lists; -1: no
 * prefix ends there). A lookup walks the phone's digits once, without a string per prefix
 * tried.
 */
interface Trie {
  readonly children: Int32Array
  readonly lists: Int32Array
  readonly names: ReadonlyArray<string>
}

let trie: Trie | undefined

const load = (): Trie => {
  if (trie !== undefined) return trie
  const entries = PREFIXES.split(",")
  let size = 1
  for (const entry of entries) size += entry.indexOf(":")
  const children = new Int32Array(size * 10)
  const lists = new Int32Array(size).fill(-1)
  const names: Array<string> = []
  const positions = new Map<string, number>()
  let nodes = 1
  for (const entry of entries) {
    const colon = entry.indexOf(":")
    let node = 0
    for (let i = 0; i < colon; i++) {
      const at = node * 10 + entry.charCodeAt(i) - 48
      if (children[at] === 0) children[at] = nodes++
      node = children[at]
    }
    const name = entry
      .slice(colon + 1)
      .split("&")
      .map((i) => ZONES[Number.parseInt(i, 36)])
      .join("&")
    let list = positions.get(name)
    if (list === undefined) {
      list = names.push(name) - 1
      positions.set(name, list)
    }
    lists[node] = list
  }
  trie = { children, lists, names }
  return trie
}

/**
 * The zone list of an E.164 phone (`+` and digits), of its longest known prefix: an index
 * into the distinct lists of the map (`zoneListName`), -1 when unknown. A number, so a bulk
 * ingestion carries one small integer per row, not a string.
 */
export const zoneListOf = (phone: string | null): number => {
  if (phone === null) return -1
  const { children, lists } = load()
  let found = -1
  let node = 0
  for (let i = phone.charCodeAt(0) === 43 ? 1 : 0; i < phone.length; i++) {
    const digit = phone.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) break
    node = children[node * 10 + digit]
    if (node === 0) break
    if (lists[node] !== -1) found = lists[node]
  }
  return found
}

/** The zones of a list `zoneListOf` answered, `&`-separated. */
export const zoneListName = (list: number): string => load().names[list]

/** The zones of an E.164 phone (`+` and digits), `&`-separated, of its longest known prefix; null when unknown. */
export const zoneKeyOf = (phone: string | null): string | null => {
  const list = zoneListOf(phone)
  return list === -1 ? null : load().names[list]
}
